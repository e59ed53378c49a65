import { createHash } from 'node:crypto'
import type { Kysely } from 'kysely'
import type Stripe from 'stripe'
import type { DB, PlanRow } from '../../../db/types'
import type { PaidInvoice } from '../common/fulfilment'
import { invoicePriceId, toPaidInvoice } from './stripe-objects'

/**
 * Each plan has a Stripe product and a price matching its amount, currency and interval. A changed
 * price gets a new Stripe price (Stripe prices are immutable); existing subscribers keep theirs.
 */
export function createStripeCatalog(deps: { db: Kysely<DB>; stripe: Stripe }) {
  const { db, stripe } = deps

  const priceKey = (plan: PlanRow) =>
    `price-${plan.id}-${plan.price_minor}-${plan.currency}-${plan.interval}-${plan.interval_count}`

  async function matches(plan: PlanRow): Promise<boolean> {
    if (!plan.stripe_price_id) return false
    const price = await stripe.prices.retrieve(plan.stripe_price_id)
    const recurring =
      plan.interval === 'lifetime' ? null : { interval: plan.interval, count: plan.interval_count }
    return (
      price.active &&
      price.unit_amount === plan.price_minor &&
      price.currency === plan.currency.toLowerCase() &&
      (recurring
        ? price.recurring?.interval === recurring.interval &&
          price.recurring.interval_count === recurring.count
        : !price.recurring)
    )
  }

  /** The plan a Stripe price belongs to: ours, or a retired one (its metadata names the plan). */
  async function planOfPrice(priceId: string): Promise<string | undefined> {
    const row = await db
      .selectFrom('plans')
      .select('id')
      .where('stripe_price_id', '=', priceId)
      .executeTakeFirst()
    if (row) return row.id
    const price = await stripe.prices.retrieve(priceId).catch(() => undefined)
    return price?.metadata?.planId || undefined
  }

  return {
    /**
     * A paid subscription invoice as fulfilment reads it, with the plan it bills taken from its price
     * (an upgrade, or a downgrade reaching its renewal, bills another plan than the one it started with).
     */
    async paidInvoice(invoice: Stripe.Invoice, chargeId: string | null): Promise<PaidInvoice | undefined> {
      const paid = toPaidInvoice(invoice, chargeId)
      if (!paid) return undefined
      const priceId = invoicePriceId(invoice)
      const planId = priceId ? await planOfPrice(priceId) : undefined
      return planId ? { ...paid, planId } : paid
    },

    /** The plan's Stripe product (made with its price when needed): what a coupon applies to. */
    async ensureProduct(plan: PlanRow): Promise<string> {
      await this.ensurePrice(plan)
      const row = await db
        .selectFrom('plans')
        .select('stripe_product_id')
        .where('id', '=', plan.id)
        .executeTakeFirstOrThrow()
      return row.stripe_product_id ?? ''
    },

    /** The Stripe price id to charge for this plan, creating product and price when needed. */
    async ensurePrice(plan: PlanRow): Promise<string> {
      if (await matches(plan)) return plan.stripe_price_id!
      let productId = plan.stripe_product_id
      if (productId) {
        const details = { name: `EdgeClub ${plan.name}`, description: plan.description || undefined }
        // The same change sends the same key; a later edit of the name or description is a new one.
        const version = createHash('sha256').update(JSON.stringify(details)).digest('hex').slice(0, 16)
        await stripe.products.update(productId, details, {
          idempotencyKey: `product-${productId}-${version}`,
        })
      } else {
        const product = await stripe.products.create(
          {
            name: `EdgeClub ${plan.name}`,
            description: plan.description || undefined,
            metadata: { planId: plan.id, slug: plan.slug },
          },
          { idempotencyKey: `product-${plan.id}` },
        )
        productId = product.id
      }
      const price = await stripe.prices.create(
        {
          product: productId,
          unit_amount: plan.price_minor,
          currency: plan.currency.toLowerCase(),
          metadata: { planId: plan.id },
          ...(plan.interval === 'lifetime'
            ? {}
            : { recurring: { interval: plan.interval, interval_count: plan.interval_count } }),
        },
        { idempotencyKey: priceKey(plan) },
      )
      const previous = plan.stripe_price_id
      await db
        .updateTable('plans')
        .set({ stripe_product_id: productId, stripe_price_id: price.id })
        .where('id', '=', plan.id)
        .execute()
      if (previous && previous !== price.id)
        await stripe.prices
          .update(previous, { active: false }, { idempotencyKey: `retire-${previous}` })
          .catch(() => undefined)
      return price.id
    },
  }
}
export type StripeCatalog = ReturnType<typeof createStripeCatalog>
