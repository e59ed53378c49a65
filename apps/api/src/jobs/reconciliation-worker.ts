import type { Reconciliation } from '../modules/payments/ledger/reconciliation'

/** Every few minutes: payments still pending are settled by asking their processor. */
export function reconciliationWorker(deps: { reconciliation: Reconciliation }) {
  return async () => {
    await deps.reconciliation.run()
  }
}

/** Hourly: the last 30 days at each processor compared with the ledger (see ledger/reconciliation.ts). */
export function sweepWorker(deps: { reconciliation: Reconciliation }) {
  return async () => {
    await deps.reconciliation.sweep()
  }
}
