import type { FastifyBaseLogger } from 'fastify'
import type Stripe from 'stripe'
import type { Clock } from '../../lib/clock'
import { addMs, MINUTE } from '../../lib/clock'
import type { CheckoutService } from './checkout-service'
import type { PaymentsRepository } from './payments-repository'

/** A lost webhook loses nothing: payments pending for 10 minutes are settled by asking Stripe. */
export const RECONCILE_AFTER = 10 * MINUTE

export function createReconciliation(deps: {
  stripe: Stripe
  payments: PaymentsRepository
  checkout: CheckoutService
  clock: Clock
  log: FastifyBaseLogger
}) {
  return {
    async run(): Promise<{ checked: number; settled: number }> {
      const stale = await deps.payments.listStalePending(addMs(deps.clock.now(), -RECONCILE_AFTER), 100)
      let settled = 0
      for (const payment of stale) {
        try {
          const intent = await deps.stripe.paymentIntents.retrieve(payment.stripe_payment_intent_id!)
          const outcome = await deps.checkout.syncIntent(payment, intent)
          if (outcome !== 'open') settled += 1
          // Still open: look again next time, not on every run.
          else await deps.payments.update(payment.id, { updated_at: deps.clock.now() })
        } catch (error) {
          deps.log.warn(
            { paymentId: payment.id, reason: error instanceof Error ? error.message : String(error) },
            'reconciliation failed for a payment',
          )
        }
      }
      if (settled > 0) deps.log.info({ settled }, 'reconciliation settled payments a webhook did not')
      return { checked: stale.length, settled }
    },
  }
}
