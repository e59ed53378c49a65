import type { CardCheckoutService } from '../modules/payments/card/card-checkout-service'

/** Access that ended here (a full refund) ends at Stripe too, so the member is not charged again. */
export function stripeCancelWorker(deps: { card: CardCheckoutService }) {
  return async (data: { stripeSubscriptionId: string }) => {
    await deps.card.cancelStripeSubscription(data.stripeSubscriptionId)
  }
}
