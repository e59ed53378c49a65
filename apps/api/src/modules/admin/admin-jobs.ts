import type { Rollups } from '../../db/rollups'
import { type Jobs, type QueuePolicies, SWEEP_POLICY } from '../../queue/job-runner'

declare module '../../queue/job-runner' {
  interface JobData {
    /** Folds changed members into the access rollups and compacts the counts (analytics, list totals). */
    'rollups.settle': Record<string, never>
  }
}

export const ADMIN_QUEUES: QueuePolicies<'rollups.settle'> = { 'rollups.settle': SWEEP_POLICY }

/**
 * Keeps the rollups small and current between analytics views: members whose subscriptions changed
 * are settled into their access rollups, and the count rows are folded into one per key.
 */
export async function registerAdminJobs(
  jobs: Pick<Jobs, 'work' | 'schedule'>,
  deps: {
    rollups: Pick<Rollups, 'settleAccess' | 'compact'>
    compactMovements: () => Promise<void>
  },
): Promise<void> {
  await jobs.work('rollups.settle', async () => {
    await deps.rollups.settleAccess()
    await deps.rollups.compact()
    await deps.compactMovements()
  })
  await jobs.schedule('rollups.settle', '*/5 * * * *')
}
