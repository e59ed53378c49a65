import type { Tallies } from '../db/tallies'

/**
 * Keeps the rollups small and current between analytics views: members whose subscriptions changed
 * are settled into their access rollups, and the tally rows are folded into one per key.
 */
export function rollupsWorker(deps: { tallies: Pick<Tallies, 'settleAccess' | 'compact'> }) {
  return async () => {
    await deps.tallies.settleAccess()
    await deps.tallies.compact()
  }
}
