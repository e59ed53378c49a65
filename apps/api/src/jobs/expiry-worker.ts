import type { FastifyBaseLogger } from 'fastify'
import type { SubscriptionsService } from '../modules/subscriptions/subscriptions-service'

/** Ends access that ran out even when no event said so (each end queues that member's role sync). */
export function expiryWorker(deps: { subscriptions: SubscriptionsService; log: FastifyBaseLogger }) {
  return async () => {
    const ended = await deps.subscriptions.expireEnded()
    if (ended > 0) deps.log.info({ ended }, 'subscriptions past their end were expired')
  }
}
