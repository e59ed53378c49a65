import type { FastifyBaseLogger } from 'fastify'
import type { AuthService } from '../modules/auth/auth-service'

/** Makes (or reuses) one reset request's link and emails it; a failed send is retried with backoff. */
export function passwordResetWorker(deps: { auth: AuthService; log: FastifyBaseLogger }) {
  return async (data: { email: string; requestKey: string }) => {
    const outcome = await deps.auth.sendPasswordReset(data.email, data.requestKey)
    if (outcome === 'throttled') deps.log.warn('password reset emails for one address hit the hourly limit')
  }
}
