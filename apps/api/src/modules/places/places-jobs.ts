import type { Jobs, QueuePolicies } from '../../queue/job-runner'
import type { AccessListener } from '../subscriptions/access-service'
import type { PlacesRepository } from './places-repository'
import type { PlacesService } from './places-service'

declare module '../../queue/job-runner' {
  interface JobData {
    /** A plan's places changed: each member holding it gets the syncs an access change gets. */
    'places.plan-changed': { planId: string }
  }
}

export const PLACES_QUEUES: QueuePolicies<'places.plan-changed'> = {
  'places.plan-changed': {
    retryLimit: 5,
    retryDelay: 10,
    batchSize: 1,
    concurrency: 1,
    expireInSeconds: 600,
  },
}

/** Holders are told in transactions of this many, so a plan with many members never holds one long. */
const CHUNK = 200

export async function registerPlacesJobs(
  jobs: Pick<Jobs, 'work'>,
  deps: {
    places: Pick<PlacesService, 'holders'>
    transaction: PlacesRepository['transaction']
    /** The same listeners an access change calls (Discord's and Telegram's syncs). */
    onGrantChanged: readonly AccessListener[]
  },
): Promise<void> {
  await jobs.work('places.plan-changed', async ({ planId }, job) => {
    const holders = await deps.places.holders(planId)
    // Each holder's syncs are keyed by this edit, so a retried job queues nothing twice.
    const edit = job.key ?? `plan-places:${planId}:${job.id}`
    for (let start = 0; start < holders.length; start += CHUNK) {
      await deps.transaction(async (trx) => {
        for (const userId of holders.slice(start, start + CHUNK))
          for (const listener of deps.onGrantChanged)
            await listener({ userId, key: `${edit}:${userId}` }, trx)
      })
    }
  })
}
