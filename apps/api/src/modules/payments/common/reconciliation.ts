import type { FastifyBaseLogger } from 'fastify'
import type { Transaction } from 'kysely'
import type { DB } from '../../../db/types'
import type { Clock } from '../../../lib/clock'
import { DAY, MINUTE } from '../../../lib/clock'
import type { PaymentsRepository } from './payments-repository'

/** A payment pending this long without news is settled by asking its processor (a webhook may be lost). */
export const RECONCILE_AFTER = 10 * MINUTE
/** How far back the sweep compares a processor's records with the ledger. */
const SWEEP_WINDOW = 30 * DAY

/** What one rail reports after settling its stale pending payments. */
export interface RailReconciliation {
  checked: number
  settled: number
}

/** Something the sweep found: repaired through the fulfilment, or paid but not matchable to the ledger. */
export interface SweepFinding {
  outcome: 'repaired' | 'unmatched'
  /** The processor's object (a Stripe invoice or PaymentIntent id, a BTCPay invoice id). */
  objectId: string
  kind: string
  amountMinor: number | null
  currency: string | null
  detail: string
}

export interface ReconciliationSource {
  rail: 'card' | 'crypto'
  /** Settles our pending payments by asking the processor (every few minutes). */
  reconcile(): Promise<RailReconciliation>
  /** Compares what the processor holds as paid since `since` with the ledger, repairing what it can. */
  sweep?(since: Date): Promise<SweepFinding[]>
}

/**
 * The safety net behind webhooks: each configured rail compares what its processor says was paid
 * with the ledger and repairs the difference through the same fulfilment as a webhook would. What
 * it repairs and what it cannot match are written to the audit log; the unmatched stay listed for
 * admins until resolved.
 */
export function createReconciliation(deps: {
  sources: ReconciliationSource[]
  payments: PaymentsRepository
  audit: {
    record(
      entry: {
        actor: null
        action: string
        targetType: string
        targetId: string
        outcome: 'success' | 'failure'
        details: Record<string, unknown>
      },
      trx?: Transaction<DB>,
    ): Promise<void>
  }
  clock: Clock
  log: FastifyBaseLogger
}) {
  const failed = (rail: string, error: unknown) =>
    // One rail's processor being down must not stop the other rail's repairs.
    deps.log.warn(
      { rail, reason: error instanceof Error ? error.message : String(error) },
      'reconciliation of a rail failed; it runs again on the next sweep',
    )

  return {
    configured: () => deps.sources.length > 0,

    async run(): Promise<Record<string, RailReconciliation>> {
      const results: Record<string, RailReconciliation> = {}
      for (const source of deps.sources) {
        try {
          results[source.rail] = await source.reconcile()
        } catch (error) {
          failed(source.rail, error)
        }
      }
      return results
    },

    async sweep(): Promise<SweepFinding[]> {
      const now = deps.clock.now()
      const since = new Date(now.getTime() - SWEEP_WINDOW)
      const findings: SweepFinding[] = []
      for (const source of deps.sources) {
        if (!source.sweep) continue
        try {
          for (const finding of await source.sweep(since)) {
            findings.push(finding)
            const entry = {
              actor: null,
              action: finding.outcome === 'repaired' ? 'reconciliation.repaired' : 'reconciliation.unmatched',
              targetType: source.rail === 'card' ? 'stripe' : 'btcpay',
              targetId: finding.objectId,
              outcome: finding.outcome === 'repaired' ? ('success' as const) : ('failure' as const),
              details: {
                kind: finding.kind,
                amountMinor: finding.amountMinor,
                currency: finding.currency,
                detail: finding.detail,
              },
            }
            // The finding and its audit row commit together (and an admin's run, if this is one,
            // has its own row join the first of them: plugins/audit.ts).
            await deps.payments.transaction(async (trx) => {
              const isNew =
                finding.outcome === 'repaired' ||
                (await deps.payments.recordReconciliationIssue(
                  {
                    rail: source.rail,
                    objectId: finding.objectId,
                    kind: finding.kind,
                    amountMinor: finding.amountMinor,
                    currency: finding.currency,
                    detail: finding.detail,
                    at: now,
                  },
                  trx,
                ))
              if (isNew) await deps.audit.record(entry, trx)
            })
          }
        } catch (error) {
          failed(source.rail, error)
        }
      }
      const repaired = findings.filter((finding) => finding.outcome === 'repaired').length
      if (findings.length > 0)
        deps.log.warn(
          { repaired, unmatched: findings.length - repaired },
          'the reconciliation sweep found payments the ledger was missing',
        )
      return findings
    },
  }
}
export type Reconciliation = ReturnType<typeof createReconciliation>
