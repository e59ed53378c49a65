import type { FastifyBaseLogger } from 'fastify'
import { TRANSACTIONAL_MAIL_POLICY } from '../../mail/mail-queue'
import type { Jobs, QueuePolicies } from '../../queue/job-runner'
import type { AuthService } from './auth-service'

declare module '../../queue/job-runner' {
  interface JobData {
    /** One reset request: the link is made (or reused) and mailed by the job, never stored raw. */
    'auth.password-reset': { email: string; requestKey: string }
  }
}

export const AUTH_QUEUES: QueuePolicies<'auth.password-reset'> = {
  'auth.password-reset': { ...TRANSACTIONAL_MAIL_POLICY, batchSize: 5 },
}

export async function registerAuthJobs(
  jobs: Pick<Jobs, 'work'>,
  deps: { auth: Pick<AuthService, 'sendPasswordReset'>; log: FastifyBaseLogger },
): Promise<void> {
  // Makes (or reuses) one reset request's link and emails it; a failed send is retried like transactional
  // mail (back within about a minute of the mail server's return).
  await jobs.work('auth.password-reset', async (data) => {
    const outcome = await deps.auth.sendPasswordReset(data.email, data.requestKey)
    if (outcome === 'throttled') deps.log.warn('password reset emails for one address hit the hourly limit')
  })
}
