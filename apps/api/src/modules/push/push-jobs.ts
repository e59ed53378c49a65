import type { Jobs, QueuePolicies } from '../../queue/job-runner'
import type { PushService } from './push-service'

declare module '../../queue/job-runner' {
  interface JobData {
    /** One ledger step (a publication or a result) to queue for every subscription that wants it. */
    'push.fanout': { seq: number }
    /** One notification to one subscription (keyed `push:<seq>:<subscription>`: queued and sent once). */
    'push.send': { seq: number; subscriptionId: string }
  }
}

export const PUSH_QUEUES: QueuePolicies<'push.fanout' | 'push.send'> = {
  'push.fanout': { retryLimit: 10, retryDelay: 2, batchSize: 5, concurrency: 1, expireInSeconds: 300 },
  // Many sends in flight at once (each is mostly waiting on the push service); a process killed
  // mid-send repeats at most these, each under its topic and tag (decision 023). A push service
  // that is away or busy (5xx, 429) is tried again after 4, 8, 16 ... seconds, for about an hour.
  'push.send': {
    retryLimit: 10,
    retryDelay: 2,
    // Fetched as many as run at once: a job fetched waits for no other, so none outlives its expiry
    // in a crowded process and runs a second time beside itself.
    batchSize: 64,
    concurrency: 64,
    expireInSeconds: 60,
    forgetWhenDone: true,
  },
}

export async function registerPushJobs(jobs: Pick<Jobs, 'work'>, push: PushService): Promise<void> {
  await jobs.work('push.fanout', async ({ seq }) => {
    await push.fanOut(seq)
  })
  await jobs.work('push.send', async ({ seq, subscriptionId }) => {
    await push.send(seq, subscriptionId)
  })
}
