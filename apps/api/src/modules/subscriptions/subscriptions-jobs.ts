import type { FastifyBaseLogger } from 'fastify'
import { type Jobs, type QueuePolicies, SWEEP_POLICY } from '../../queue/job-runner'
import type { AccessService } from './access-service'

declare module '../../queue/job-runner' {
  interface JobData {
    'subscriptions.expire': Record<string, never>
    'crypto.reminders': Record<string, never>
    /** Daily: paused plans resuming in three days, and renewals whose grace ends tomorrow, are reminded. */
    'subscriptions.reminders': Record<string, never>
  }
}

export const SUBSCRIPTIONS_QUEUES: QueuePolicies<
  'subscriptions.expire' | 'crypto.reminders' | 'subscriptions.reminders'
> = {
  'subscriptions.expire': SWEEP_POLICY,
  'crypto.reminders': SWEEP_POLICY,
  'subscriptions.reminders': SWEEP_POLICY,
}

export async function registerSubscriptionsJobs(
  jobs: Pick<Jobs, 'work' | 'schedule'>,
  deps: {
    access: Pick<
      AccessService,
      'expireEnded' | 'remindCryptoRenewals' | 'remindResumes' | 'remindGraceEnding'
    >
    cryptoConfigured: boolean
    log: FastifyBaseLogger
  },
): Promise<void> {
  // Every minute: access that ran out ends even when no event said so (each end queues its effects).
  await jobs.work('subscriptions.expire', async () => {
    const ended = await deps.access.expireEnded()
    if (ended > 0) deps.log.info({ ended }, 'subscriptions past their end were expired')
  })
  await jobs.schedule('subscriptions.expire', '* * * * *')
  // Hourly, each reminder keyed by its date: the windows are wider than an hour, each is sent once.
  await jobs.work('subscriptions.reminders', async () => {
    await deps.access.remindResumes()
    await deps.access.remindGraceEnding()
  })
  await jobs.schedule('subscriptions.reminders', '7 * * * *')
  if (deps.cryptoConfigured) {
    await jobs.work('crypto.reminders', async () => {
      await deps.access.remindCryptoRenewals()
    })
    // Daily: the reminder window is 3 days wide and each period is reminded once (its end date is the key).
    await jobs.schedule('crypto.reminders', '30 8 * * *')
  }
}
