import Stripe from 'stripe'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  customerWithCard,
  DAY,
  expectEventsAsDeclared,
  expectSdkShape,
  type Harness,
  itemPeriod,
  recurringPrice,
  resetHarness,
  startHarness,
} from './stripe-harness'

/**
 * Coupons and promotion codes through the SDK: their rules and refusals, redemptions counted, and
 * the discounts they grant on subscription invoices for one invoice, N months, or for ever.
 */

let h: Harness

beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => h?.close())
afterEach(() => expectEventsAsDeclared(h))
beforeEach(async () => resetHarness(h))

/** Renews the subscription `times` times on the global clock; returns its invoices oldest first. */
async function renew(sub: Stripe.Subscription, times: number): Promise<Stripe.Invoice[]> {
  for (let i = 0; i < times; i++) {
    const current = await h.stripe.subscriptions.retrieve(sub.id)
    h.emulator.stripe.advance(itemPeriod(current).end - h.emulator.stripe.now() + 60)
  }
  const list = await h.stripe.invoices.list({ subscription: sub.id, limit: 100 })
  return list.data.reverse()
}

async function promotion(
  coupon: Stripe.CouponCreateParams,
  code: Partial<Stripe.PromotionCodeCreateParams> = {},
) {
  const created = await h.stripe.coupons.create(coupon)
  return h.stripe.promotionCodes.create({ promotion: { type: 'coupon', coupon: created.id }, ...code })
}

describe('coupons', () => {
  it('creates, reads, renames, lists and deletes coupons, with their events and shape', async () => {
    const product = await h.stripe.products.create({ name: 'Pro' })
    const percent = await h.stripe.coupons.create({
      id: 'BLACKFRIDAY',
      percent_off: 25.5,
      duration: 'repeating',
      duration_in_months: 3,
      max_redemptions: 100,
      redeem_by: h.emulator.stripe.now() + 30 * DAY,
      applies_to: { products: [product.id] },
      name: 'Black Friday',
      metadata: { campaign: 'bf' },
    })
    expect(percent).toMatchObject({
      id: 'BLACKFRIDAY',
      object: 'coupon',
      percent_off: 25.5,
      amount_off: null,
      currency: null,
      duration: 'repeating',
      duration_in_months: 3,
      times_redeemed: 0,
      valid: true,
      name: 'Black Friday',
    })
    // `applies_to` is includable: only there when expanded.
    expect(percent.applies_to).toBeUndefined()
    expectSdkShape(percent, 'Coupons.d.ts', 'Coupon')
    const expanded = await h.stripe.coupons.retrieve('BLACKFRIDAY', { expand: ['applies_to'] })
    expect(expanded.applies_to).toEqual({ products: [product.id] })

    const fixed = await h.stripe.coupons.create({ amount_off: 500, currency: 'usd', duration: 'once' })
    expect(fixed.id).toMatch(/^[A-Z0-9]{8}$/)
    expect(fixed).toMatchObject({
      amount_off: 500,
      currency: 'usd',
      duration: 'once',
      duration_in_months: null,
    })

    const renamed = await h.stripe.coupons.update('BLACKFRIDAY', {
      name: 'BF 2031',
      metadata: { campaign: '' },
    })
    expect(renamed).toMatchObject({ name: 'BF 2031', metadata: {} })
    expect((await h.stripe.coupons.list()).data.map((c) => c.id)).toEqual([fixed.id, 'BLACKFRIDAY'])

    expect(await h.stripe.coupons.del(fixed.id)).toMatchObject({ id: fixed.id, deleted: true })
    expect(await h.stripe.coupons.retrieve(fixed.id).catch((e: unknown) => e)).toMatchObject({
      statusCode: 404,
    })
    expect(h.emulator.stripe.events().map((e) => e.type)).toEqual(
      expect.arrayContaining(['coupon.created', 'coupon.updated', 'coupon.deleted']),
    )
  })

  it('refuses coupons Stripe refuses', async () => {
    const cases: Array<[Stripe.CouponCreateParams, string]> = [
      [{ duration: 'once' }, 'percent_off'],
      [{ percent_off: 10, amount_off: 100, currency: 'usd' }, 'amount_off'],
      [{ amount_off: 100 }, 'currency'],
      [{ percent_off: 120 }, 'percent_off'],
      [{ percent_off: 10, duration: 'repeating' }, 'duration_in_months'],
      [{ percent_off: 10, duration: 'forever', duration_in_months: 2 }, 'duration_in_months'],
      [{ percent_off: 10, redeem_by: h.emulator.stripe.now() - 10 }, 'redeem_by'],
    ]
    for (const [params, param] of cases) {
      const error = await h.stripe.coupons.create(params).catch((e: unknown) => e)
      expect(error).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
      expect(error).toMatchObject({ statusCode: 400, param })
    }
    await h.stripe.coupons.create({ id: 'TAKEN', percent_off: 5 })
    expect(
      await h.stripe.coupons.create({ id: 'TAKEN', percent_off: 5 }).catch((e: unknown) => e),
    ).toMatchObject({
      code: 'resource_already_exists',
    })
    expect(h.emulator.stripe.state().counts.coupons).toBe(1)
  })
})

describe('promotion codes', () => {
  it('are created for a coupon with the pinned version shape, listed by code and deactivated', async () => {
    const code = await promotion(
      { percent_off: 20, duration: 'forever' },
      {
        code: 'Spring-20',
        max_redemptions: 50,
        expires_at: h.emulator.stripe.now() + 10 * DAY,
        restrictions: { first_time_transaction: true },
        metadata: { source: 'newsletter' },
      },
    )
    expect(code).toMatchObject({
      object: 'promotion_code',
      code: 'Spring-20',
      active: true,
      customer: null,
      max_redemptions: 50,
      times_redeemed: 0,
      promotion: { type: 'coupon' },
      restrictions: { first_time_transaction: true, minimum_amount: null },
    })
    expect(code.id).toMatch(/^promo_/)
    expectSdkShape(code, 'PromotionCodes.d.ts', 'PromotionCode')
    const withCoupon = await h.stripe.promotionCodes.retrieve(code.id, { expand: ['promotion.coupon'] })
    expect(withCoupon.promotion.coupon).toMatchObject({ object: 'coupon', percent_off: 20 })

    const byCode = await h.stripe.promotionCodes.list({ code: 'spring-20' })
    expect(byCode.data.map((p) => p.id)).toEqual([code.id])
    const clash = await h.stripe.promotionCodes
      .create({ promotion: { type: 'coupon', coupon: code.promotion.coupon as string }, code: 'SPRING-20' })
      .catch((e: unknown) => e)
    expect(clash).toMatchObject({ statusCode: 400, param: 'code' })

    const off = await h.stripe.promotionCodes.update(code.id, { active: false })
    expect(off.active).toBe(false)
    expect((await h.stripe.promotionCodes.list({ active: true })).data).toEqual([])
    expect(
      (await h.stripe.promotionCodes.list({ coupon: code.promotion.coupon as string })).data,
    ).toHaveLength(1)
    expect(h.emulator.stripe.events('promotion_code.updated')).toHaveLength(1)
  })

  it('refuse to redeem when inactive, expired, used up, for someone else, or not a first purchase', async () => {
    const price = await recurringPrice(h.stripe, 2900)
    const attempt = async (promotionCode: string, customerId?: string) => {
      const customer = customerId ?? (await customerWithCard(h.stripe)).customer.id
      return h.stripe.subscriptions
        .create({ customer, items: [{ price: price.id }], discounts: [{ promotion_code: promotionCode }] })
        .catch((e: unknown) => e)
    }
    const refusal = (reason: string) => ({
      statusCode: 400,
      type: 'StripeInvalidRequestError',
      param: 'discounts[0][promotion_code]',
      message: `This promotion code cannot be redeemed because ${reason}`,
    })

    const inactive = await promotion({ percent_off: 10 })
    await h.stripe.promotionCodes.update(inactive.id, { active: false })
    expect(await attempt(inactive.id)).toMatchObject(refusal('it is inactive.'))

    const expiring = await promotion({ percent_off: 10 }, { expires_at: h.emulator.stripe.now() + 3600 })
    h.emulator.stripe.advance(7200)
    expect(await attempt(expiring.id)).toMatchObject(refusal('it has expired.'))

    const once = await promotion({ percent_off: 10 }, { max_redemptions: 1 })
    expect(await attempt(once.id)).toMatchObject({ object: 'subscription' })
    expect((await h.stripe.promotionCodes.retrieve(once.id)).times_redeemed).toBe(1)
    expect(await attempt(once.id)).toMatchObject(refusal('it has been used the maximum number of times.'))

    const someone = await h.stripe.customers.create({})
    const personal = await promotion({ percent_off: 10 }, { customer: someone.id })
    expect(await attempt(personal.id)).toMatchObject(refusal('it is restricted to a different customer.'))

    const firstTime = await promotion({ percent_off: 10 }, { restrictions: { first_time_transaction: true } })
    const returning = await customerWithCard(h.stripe)
    await h.stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      customer: returning.customer.id,
      payment_method: returning.paymentMethod.id,
      confirm: true,
      allowed_payment_method_types: ['card'],
    })
    expect(await attempt(firstTime.id, returning.customer.id)).toMatchObject({
      ...refusal('the associated customer has prior transactions.'),
      code: 'promotion_code_customer_not_first_time',
    })
    expect(await attempt(firstTime.id)).toMatchObject({ object: 'subscription' })

    const coupon = await h.stripe.coupons.create({ percent_off: 10, redeem_by: h.emulator.stripe.now() + 60 })
    h.emulator.stripe.advance(120)
    const expiredCoupon = await h.stripe.subscriptions
      .create({
        customer: (await customerWithCard(h.stripe)).customer.id,
        items: [{ price: price.id }],
        discounts: [{ coupon: coupon.id }],
      })
      .catch((e: unknown) => e)
    expect(expiredCoupon).toMatchObject({ code: 'coupon_expired', message: `Coupon expired: ${coupon.id}` })
    // Refused redemptions create nothing.
    expect(h.emulator.stripe.state().counts.subscriptions).toBe(2)
  })
})

describe('discounts on subscription invoices', () => {
  it('takes 20% off every invoice for ever, per line and in the totals', async () => {
    const price = await recurringPrice(h.stripe, 2900)
    const code = await promotion({ percent_off: 20, duration: 'forever' }, { code: 'FOREVER20' })
    const { customer } = await customerWithCard(h.stripe)
    const sub = await h.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      discounts: [{ promotion_code: code.id }],
      expand: ['latest_invoice', 'discounts'],
    })
    expect(sub.status).toBe('active')
    const discount = sub.discounts[0] as Stripe.Discount
    expect(discount).toMatchObject({
      object: 'discount',
      promotion_code: code.id,
      source: { type: 'coupon', coupon: code.promotion.coupon },
      subscription: sub.id,
      customer: customer.id,
      end: null,
    })
    expectSdkShape(discount, 'Discounts.d.ts', 'Discount')
    const first = sub.latest_invoice as Stripe.Invoice
    expect(first).toMatchObject({
      subtotal: 2900,
      total: 2320,
      amount_due: 2320,
      amount_paid: 2320,
      discounts: [discount.id],
      total_discount_amounts: [{ amount: 580, discount: discount.id }],
    })
    expect(first.lines.data[0]).toMatchObject({
      amount: 2900,
      discount_amounts: [{ amount: 580, discount: discount.id }],
      pretax_credit_amounts: [{ amount: 580, discount: discount.id, type: 'discount' }],
    })
    expectSdkShape(first, 'Invoices.d.ts', 'Invoice')
    expectSdkShape(first.lines.data[0], 'InvoiceLineItems.d.ts', 'InvoiceLineItem')
    expect((await h.stripe.promotionCodes.retrieve(code.id)).times_redeemed).toBe(1)
    expect((await h.stripe.coupons.retrieve(code.promotion.coupon as string)).times_redeemed).toBe(1)
    expect(h.emulator.stripe.events('customer.discount.created')).toHaveLength(1)

    const invoices = await renew(sub, 3)
    expect(invoices.map((i) => i.amount_paid)).toEqual([2320, 2320, 2320, 2320])
  })

  it('applies a repeating coupon to N months of invoices, then ends it', async () => {
    const price = await recurringPrice(h.stripe, 2900)
    const coupon = await h.stripe.coupons.create({
      percent_off: 50,
      duration: 'repeating',
      duration_in_months: 3,
    })
    const { customer } = await customerWithCard(h.stripe)
    const sub = await h.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      discounts: [{ coupon: coupon.id }],
    })
    const withDiscount = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['discounts'] })
    const end = (withDiscount.discounts[0] as Stripe.Discount).end
    await renew(sub, 3)
    // The discount ends exactly three monthly periods after it started.
    expect(itemPeriod(await h.stripe.subscriptions.retrieve(sub.id)).start).toBe(end)
    const invoices = await renew(sub, 1)
    expect(invoices.map((i) => i.amount_paid)).toEqual([1450, 1450, 1450, 2900, 2900])
    expect((await h.stripe.subscriptions.retrieve(sub.id)).discounts).toEqual([])
    expect(h.emulator.stripe.events('customer.discount.deleted')).toHaveLength(1)
  })

  it('applies a once coupon to the first paid invoice only, after a trial too', async () => {
    const price = await recurringPrice(h.stripe, 2900)
    const coupon = await h.stripe.coupons.create({ amount_off: 1000, currency: 'usd', duration: 'once' })
    const plain = await customerWithCard(h.stripe)
    const now = await h.stripe.subscriptions.create({
      customer: plain.customer.id,
      items: [{ price: price.id }],
      discounts: [{ coupon: coupon.id }],
    })
    expect((await renew(now, 2)).map((i) => i.amount_paid)).toEqual([1900, 2900, 2900])

    const trialist = await customerWithCard(h.stripe)
    const trial = await h.stripe.subscriptions.create({
      customer: trialist.customer.id,
      items: [{ price: price.id }],
      trial_period_days: 7,
      discounts: [{ coupon: coupon.id }],
    })
    const invoices = await renew(trial, 2)
    expect(invoices.map((i) => [i.billing_reason, i.amount_paid])).toEqual([
      ['subscription_create', 0],
      ['subscription_cycle', 1900],
      ['subscription_cycle', 2900],
    ])
    expect((await h.stripe.coupons.retrieve(coupon.id)).times_redeemed).toBe(2)
  })

  it('limits a coupon to the products it applies to', async () => {
    const pro = await recurringPrice(h.stripe, 2900, 'month', 'Pro')
    const addOn = await recurringPrice(h.stripe, 1000, 'month', 'Add-on')
    const coupon = await h.stripe.coupons.create({
      percent_off: 50,
      duration: 'forever',
      applies_to: { products: [addOn.product as string] },
    })
    const { customer } = await customerWithCard(h.stripe)
    const sub = await h.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: pro.id }, { price: addOn.id }],
      discounts: [{ coupon: coupon.id }],
      expand: ['latest_invoice'],
    })
    const invoice = sub.latest_invoice as Stripe.Invoice
    expect(invoice).toMatchObject({ subtotal: 3900, total: 3400 })
    expect(invoice.lines.data.map((line) => (line.discount_amounts ?? []).map((d) => d.amount))).toEqual([
      [],
      [500],
    ])
  })

  it('previews the first invoice with a code exactly as the subscription then charges it', async () => {
    const price = await recurringPrice(h.stripe, 4900)
    const code = await promotion({ percent_off: 15, duration: 'once' }, { code: 'WELCOME15' })
    const { customer } = await customerWithCard(h.stripe)
    const preview = await h.stripe.invoices.createPreview({
      customer: customer.id,
      subscription_details: { items: [{ price: price.id }] },
      discounts: [{ promotion_code: code.id }],
      expand: ['discounts'],
    })
    expect(preview).toMatchObject({ billing_reason: 'subscription_create', subtotal: 4900, amount_due: 4165 })
    expect(preview.discounts[0]).toMatchObject({ object: 'discount', promotion_code: code.id })
    expect(preview.id).toMatch(/^upcoming_in_/)
    expect((await h.stripe.promotionCodes.retrieve(code.id)).times_redeemed).toBe(0)
    expect(h.emulator.stripe.state().counts.invoices).toBe(0)

    const sub = await h.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      discounts: [{ promotion_code: code.id }],
      expand: ['latest_invoice'],
    })
    expect((sub.latest_invoice as Stripe.Invoice).amount_due).toBe(preview.amount_due)

    const refused = await h.stripe.invoices
      .createPreview({
        customer: customer.id,
        subscription_details: { items: [{ price: price.id }] },
        discounts: [
          {
            promotion_code: (
              await promotion({ percent_off: 5 }, { customer: (await h.stripe.customers.create({})).id })
            ).id,
          },
        ],
      })
      .catch((e: unknown) => e)
    expect(refused).toMatchObject({ statusCode: 400, param: 'discounts[0][promotion_code]' })
  })
})
