import type { SignalsService } from '../modules/signals/signals-service'

/** Every minute: open trading signals on the price feed's instruments settle at target, stop or expiry. */
export function signalsSettlementWorker(deps: { signals: SignalsService }) {
  return async () => {
    await deps.signals.settleFromPrices()
  }
}
