import type { Jobs, QueuePolicies } from '../../queue/job-runner'
import type { PushService } from './push-service'

declare module '../../queue/job-runner' {
  interface JobData {
    /** One ledger step (a publication or a result) to queue for every subscription that wants it. */
    'push.fanout': { seq: number }
    /**
     * One ledger step's notification to a batch of subscriptions (keyed `push:<seq>:<n>`: queued and
     * done once); each delivery is recorded under `push:<seq>:<subscription>`, so a retry sends only
     * to the others. `subscriptionId`: one subscription, as jobs were queued before batches.
     */
    'push.send': { seq: number; subscriptionIds: string[] } | { seq: number; subscriptionId: string }
  }
}

export const PUSH_QUEUES: QueuePolicies<'push.fanout' | 'push.send'> = {
  'push.fanout': { retryLimit: 10, retryDelay: 2, batchSize: 5, concurrency: 1, expireInSeconds: 300 },
  // A few batches at once, so that sends keep going while one batch waits on its slowest push; the
  // push service bounds the sends in flight in the whole process (PUSH_SENDS_IN_FLIGHT), and each batch
  // stops starting sends well before its expiry (the rest is retried), so none runs twice beside
  // itself. A push service that is away or busy (5xx, 429) is tried again after 4, 8, 16 ... seconds,
  // for about an hour, and only for the subscriptions it refused.
  'push.send': {
    retryLimit: 10,
    retryDelay: 2,
    // Fetched as many as run at once: a job fetched waits for no other.
    batchSize: 4,
    concurrency: 4,
    expireInSeconds: 60,
    forgetWhenDone: true,
  },
}

export async function registerPushJobs(jobs: Pick<Jobs, 'work'>, push: PushService): Promise<void> {
  await jobs.work('push.fanout', async ({ seq }) => {
    await push.fanOut(seq)
  })
  await jobs.work('push.send', async (data, job) => {
    const ids = 'subscriptionIds' in data ? data.subscriptionIds : [data.subscriptionId]
    await push.sendBatch(data.seq, ids, {
      effects: job.effects,
      lastAttempt: job.lastAttempt,
      // Half the job's expiry: a batch still sending by then leaves the rest to its next try.
      budgetMs: (PUSH_QUEUES['push.send'].expireInSeconds * 1000) / 2,
    })
  })
}
