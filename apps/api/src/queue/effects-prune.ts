import { type Jobs, type QueuePolicies, SWEEP_POLICY } from './job-runner'

declare module './job-runner' {
  interface JobData {
    /** Forgets the records of effects done long ago (job_effects would otherwise grow forever). */
    'jobs.prune-effects': Record<string, never>
  }
}

export const RUNNER_QUEUES: QueuePolicies<'jobs.prune-effects'> = { 'jobs.prune-effects': SWEEP_POLICY }

/**
 * How long the record of a done effect is kept: longer than any job under its key can still run or be
 * queued again as the same job. A failing job retries for at most about three days (transactional
 * mail's 150 tries under its ceiling), pg-boss keeps a waiting job 14 days and a finished one 7 more,
 * and the causes that replay a key (Stripe retries a webhook for three days, the sweeps look back
 * hours) are all younger than that. A pick's pushes alone write 15,000 rows at the club's size.
 */
export const EFFECT_RECORD_DAYS = 30

export async function registerRunnerJobs(jobs: Pick<Jobs, 'work' | 'schedule' | 'pruneEffects'>) {
  await jobs.work('jobs.prune-effects', async () => {
    await jobs.pruneEffects(EFFECT_RECORD_DAYS)
  })
  await jobs.schedule('jobs.prune-effects', '23 4 * * *')
}
