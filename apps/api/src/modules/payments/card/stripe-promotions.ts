import type Stripe from 'stripe'
import type { PlanRow, PromoCodeRow } from '../../../db/types'
import type { StripePromotions } from '../promo/promo-codes-service'
import type { StripeCatalog } from './stripe-catalog'

/**
 * A promo code at Stripe: a coupon with the same discount, duration, expiry and plans (its products),
 * and a promotion code members' subscriptions are created with. Limits (per member, total, audience)
 * are counted by EdgeClub, not by Stripe: an abandoned checkout would use one up at Stripe.
 */
export function createStripePromotions(deps: { stripe: Stripe; catalog: StripeCatalog }): StripePromotions {
  const { stripe } = deps
  return {
    async create(code: PromoCodeRow, plans: PlanRow[]) {
      const products = await Promise.all(plans.map((plan) => deps.catalog.ensureProduct(plan)))
      const coupon = await stripe.coupons.create(
        {
          name: code.code,
          duration: code.duration,
          ...(code.duration === 'repeating' ? { duration_in_months: code.duration_in_months ?? 1 } : {}),
          ...(code.percent_off !== null
            ? { percent_off: Number(code.percent_off) }
            : { amount_off: code.amount_off_minor ?? 0, currency: (code.currency ?? 'USD').toLowerCase() }),
          ...(code.expires_at ? { redeem_by: Math.floor(new Date(code.expires_at).valueOf() / 1000) } : {}),
          ...(products.length > 0 ? { applies_to: { products } } : {}),
          metadata: { promoCodeId: code.id },
        },
        { idempotencyKey: `coupon-${code.id}` },
      )
      const promotion = await stripe.promotionCodes.create(
        {
          promotion: { type: 'coupon', coupon: coupon.id },
          code: code.code,
          ...(code.expires_at ? { expires_at: Math.floor(new Date(code.expires_at).valueOf() / 1000) } : {}),
          metadata: { promoCodeId: code.id },
        },
        { idempotencyKey: `promotion-code-${code.id}` },
      )
      return { couponId: coupon.id, promotionCodeId: promotion.id }
    },

    async deactivate(promotionCodeId: string) {
      await stripe.promotionCodes.update(
        promotionCodeId,
        { active: false },
        { idempotencyKey: `promotion-code-off-${promotionCodeId}` },
      )
    },
  }
}
