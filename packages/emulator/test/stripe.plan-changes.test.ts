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
 * Plan changes with prorations on a test clock, as flexible billing mode computes them: the unused
 * time of what was debited is credited and the remaining time of the new price debited, by the
 * second; `always_invoice` bills that at once, `create_prorations` on the next invoice; a new
 * interval (or `billing_cycle_anchor=now`) starts a new period now. The invoice preview with the
 * same parameters shows exactly what the update then invoices. Payment behaviours decide what
 * happens when that invoice cannot be paid.
 */

let h: Harness
let pro: Stripe.Price
let premium: Stripe.Price
let yearly: Stripe.Price

beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => h?.close())
afterEach(() => expectEventsAsDeclared(h))
beforeEach(async () => {
  await resetHarness(h)
  pro = await recurringPrice(h.stripe, 2900, 'month', 'Pro')
  premium = await recurringPrice(h.stripe, 4900, 'month', 'Premium')
  yearly = await recurringPrice(h.stripe, 29000, 'year', 'Pro yearly')
})

/** 10 January 2031, 12:00 UTC; the change happens 10 days and 3 hours later. */
const FROZEN = Date.UTC(2031, 0, 10, 12, 0, 0) / 1000
const CHANGE_AT = FROZEN + 10 * DAY + 3 * 3600

/**
 * A paid monthly Pro subscription on a test clock, moved to CHANGE_AT. `card` then becomes the
 * subscription's default payment method (the card the change will be charged to).
 */
async function subscribed(card = 'pm_card_visa', options: Partial<Stripe.SubscriptionCreateParams> = {}) {
  const clock = await h.stripe.testHelpers.testClocks.create({ frozen_time: FROZEN })
  const { customer } = await customerWithCard(h.stripe, { testClock: clock.id })
  const sub = await h.stripe.subscriptions.create({
    customer: customer.id,
    items: [{ price: pro.id }],
    ...options,
  })
  expect(sub.status).toBe('active')
  if (card !== 'pm_card_visa') {
    const pm = await h.stripe.paymentMethods.attach(card, { customer: customer.id })
    await h.stripe.subscriptions.update(sub.id, { default_payment_method: pm.id })
  }
  h.emulator.stripe.advanceTestClock(clock.id, CHANGE_AT)
  return { clock, customer, sub, item: sub.items.data[0] as Stripe.SubscriptionItem, period: itemPeriod(sub) }
}

/** What Stripe prorates: the amount for the part of the period from `at` to its end. */
function prorated(amount: number, period: { start: number; end: number }, at = CHANGE_AT): number {
  return Math.round((amount * (period.end - at)) / (period.end - period.start))
}

function lineAmounts(invoice: Stripe.Invoice): number[] {
  return invoice.lines.data.map((line) => line.amount)
}

describe('plan changes', () => {
  it('previews and then invoices an upgrade at once with always_invoice, to the cent', async () => {
    const { customer, sub, item, period } = await subscribed()
    const change = {
      items: [{ id: item.id, price: premium.id }],
      proration_behavior: 'always_invoice' as const,
      proration_date: CHANGE_AT,
    }
    const preview = await h.stripe.invoices.createPreview({
      customer: customer.id,
      subscription: sub.id,
      subscription_details: change,
    })
    const credit = -prorated(2900, period)
    const debit = prorated(4900, period)
    expect(lineAmounts(preview)).toEqual([credit, debit])
    expect(preview).toMatchObject({
      amount_due: credit + debit,
      subtotal: credit + debit,
      billing_reason: 'subscription_update',
    })
    expect(preview.lines.data.map((line) => line.description)).toEqual([
      'Unused time on 1 × Pro after 20 Jan 2031',
      'Remaining time on 1 × Premium after 20 Jan 2031',
    ])
    for (const line of preview.lines.data) {
      expect(line).toMatchObject({
        discountable: false,
        period: { start: CHANGE_AT, end: period.end },
        parent: { subscription_item_details: { proration: true, subscription_item: item.id } },
      })
    }
    expectSdkShape(preview, 'Invoices.d.ts', 'Invoice')
    expect((await h.stripe.subscriptions.retrieve(sub.id)).items.data[0]?.price.id).toBe(pro.id)

    const updated = await h.stripe.subscriptions.update(sub.id, {
      ...change,
      payment_behavior: 'pending_if_incomplete',
      expand: ['latest_invoice'],
    })
    expect(updated.items.data[0]).toMatchObject({ id: item.id, price: { id: premium.id } })
    expect(itemPeriod(updated)).toEqual(period)
    expect(updated.pending_update).toBeNull()
    const invoice = updated.latest_invoice as Stripe.Invoice
    expect(invoice).toMatchObject({
      billing_reason: 'subscription_update',
      status: 'paid',
      amount_paid: preview.amount_due,
      created: CHANGE_AT,
    })
    expect(lineAmounts(invoice)).toEqual(lineAmounts(preview))

    // The next renewal bills the new price in full, nothing pending.
    h.emulator.stripe.advanceTestClock(
      (await h.stripe.testHelpers.testClocks.list()).data[0]?.id as string,
      period.end + 60,
    )
    const renewed = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] })
    expect(lineAmounts(renewed.latest_invoice as Stripe.Invoice)).toEqual([4900])
  })

  it('puts create_prorations on the next invoice, credits from what was debited, and previews that invoice', async () => {
    const { clock, customer, sub, item, period } = await subscribed()
    await h.stripe.subscriptions.update(sub.id, {
      items: [{ id: item.id, price: premium.id }],
      proration_behavior: 'create_prorations',
      proration_date: CHANGE_AT,
    })
    const pending = await h.stripe.invoiceItems.list({ customer: customer.id, pending: true })
    expect(pending.data.map((ii) => ii.amount).reverse()).toEqual([
      -prorated(2900, period),
      prorated(4900, period),
    ])
    expectSdkShape(pending.data[0], 'InvoiceItems.d.ts', 'InvoiceItem')
    expect((await h.stripe.invoices.list({ subscription: sub.id })).data).toHaveLength(1)

    // Back down five days later: the credit is for the unused part of the Premium debit.
    const later = CHANGE_AT + 5 * DAY
    h.emulator.stripe.advanceTestClock(clock.id, later)
    await h.stripe.subscriptions.update(sub.id, {
      items: [{ id: item.id, price: pro.id }],
      proration_date: later,
    })
    const premiumDebit = prorated(4900, period)
    const secondCredit = -Math.round((premiumDebit * (period.end - later)) / (period.end - CHANGE_AT))
    const upcoming = await h.stripe.invoices.createPreview({ customer: customer.id, subscription: sub.id })
    expect(upcoming.billing_reason).toBe('upcoming')
    expect(lineAmounts(upcoming)).toEqual([
      -prorated(2900, period),
      premiumDebit,
      secondCredit,
      prorated(2900, period, later),
      2900,
    ])

    h.emulator.stripe.advanceTestClock(clock.id, period.end + 60)
    const renewal = (await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] }))
      .latest_invoice as Stripe.Invoice
    expect(renewal).toMatchObject({ billing_reason: 'subscription_cycle', status: 'paid' })
    expect(lineAmounts(renewal)).toEqual(lineAmounts(upcoming))
    expect(renewal.amount_paid).toBe(upcoming.amount_due)
    expect((await h.stripe.invoiceItems.list({ customer: customer.id, pending: true })).data).toEqual([])
  })

  it('moves monthly to yearly now: unused time credited against a full year from today', async () => {
    const { customer, sub, item, period } = await subscribed()
    const details = {
      items: [{ id: item.id, price: yearly.id }],
      proration_date: CHANGE_AT,
      billing_cycle_anchor: { type: 'now' as const },
    }
    const preview = await h.stripe.invoices.createPreview({
      customer: customer.id,
      subscription: sub.id,
      subscription_details: details,
    })
    const credit = -prorated(2900, period)
    expect(lineAmounts(preview)).toEqual([credit, 29000])
    expect(preview.amount_due).toBe(29000 + credit)

    const updated = await h.stripe.subscriptions.update(sub.id, {
      ...details,
      payment_behavior: 'pending_if_incomplete',
      expand: ['latest_invoice'],
    })
    expect(updated).toMatchObject({ billing_cycle_anchor: CHANGE_AT, status: 'active' })
    expect(itemPeriod(updated)).toEqual({ start: CHANGE_AT, end: Date.UTC(2032, 0, 20, 15, 0, 0) / 1000 })
    expect(updated.latest_invoice).toMatchObject({ amount_paid: preview.amount_due, status: 'paid' })
    expect(lineAmounts(updated.latest_invoice as Stripe.Invoice)).toEqual(lineAmounts(preview))
  })

  it('holds a change that needs 3-D Secure in pending_update until the invoice is paid', async () => {
    const { sub, item } = await subscribed('pm_card_authenticationRequired')
    const held = await h.stripe.subscriptions.update(sub.id, {
      items: [{ id: item.id, price: premium.id }],
      proration_behavior: 'always_invoice',
      payment_behavior: 'pending_if_incomplete',
      expand: ['latest_invoice.payments', 'latest_invoice.confirmation_secret'],
    })
    expect(held.items.data[0]?.price.id).toBe(pro.id)
    expect(held.pending_update).toMatchObject({ expires_at: CHANGE_AT + 23 * 3600 })
    expect(held.pending_update?.subscription_items?.[0]?.price.id).toBe(premium.id)
    const invoice = held.latest_invoice as Stripe.Invoice
    expect(invoice.status).toBe('open')
    const piId = invoice.payments?.data[0]?.payment.payment_intent as string
    const pi = await h.stripe.paymentIntents.retrieve(piId)
    expect(pi.status).toBe('requires_action')
    expect(invoice.confirmation_secret?.client_secret).toBe(pi.client_secret)

    const second = await h.stripe.subscriptions
      .update(sub.id, {
        items: [{ id: item.id, price: yearly.id }],
        payment_behavior: 'pending_if_incomplete',
      })
      .catch((e: unknown) => e)
    expect(second).toMatchObject({ statusCode: 400 })

    h.emulator.stripe.authenticate(piId)
    // Paid on the customer's test clock, not the wall clock.
    const paid = await h.stripe.invoices.retrieve(invoice.id)
    expect(paid).toMatchObject({ status: 'paid', status_transitions: { paid_at: CHANGE_AT } })
    const applied = await h.stripe.subscriptions.retrieve(sub.id)
    expect(applied).toMatchObject({ pending_update: null, status: 'active' })
    expect(applied.items.data[0]?.price.id).toBe(premium.id)
    expect(h.emulator.stripe.events('customer.subscription.pending_update_applied')).toHaveLength(1)
  })

  it('drops a pending update whose invoice is not paid within 23 hours', async () => {
    const { clock, sub, item } = await subscribed('pm_card_chargeCustomerFail')
    const held = await h.stripe.subscriptions.update(sub.id, {
      items: [{ id: item.id, price: premium.id }],
      proration_behavior: 'always_invoice',
      payment_behavior: 'pending_if_incomplete',
    })
    expect(held.pending_update).not.toBeNull()
    expect(held.status).toBe('active')
    h.emulator.stripe.advanceTestClock(clock.id, CHANGE_AT + DAY)
    const expired = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] })
    expect(expired).toMatchObject({ pending_update: null, status: 'active' })
    expect(expired.items.data[0]?.price.id).toBe(pro.id)
    expect(expired.latest_invoice).toMatchObject({ status: 'void' })
    expect(h.emulator.stripe.events('customer.subscription.pending_update_expired')).toHaveLength(1)
  })

  it('refuses with error_if_incomplete and changes nothing; default_incomplete waits for the page', async () => {
    const { customer, sub, item } = await subscribed()
    const failing = await h.stripe.paymentMethods.attach('pm_card_chargeCustomerFail', {
      customer: customer.id,
    })
    await h.stripe.subscriptions.update(sub.id, { default_payment_method: failing.id })
    const error = await h.stripe.subscriptions
      .update(sub.id, {
        items: [{ id: item.id, price: premium.id }],
        proration_behavior: 'always_invoice',
        payment_behavior: 'error_if_incomplete',
      })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError)
    expect(error).toMatchObject({ statusCode: 402, code: 'card_declined' })
    const unchanged = await h.stripe.subscriptions.retrieve(sub.id)
    expect(unchanged).toMatchObject({ status: 'active', latest_invoice: sub.latest_invoice })
    const statuses = h.emulator.stripe
      .events('customer.subscription.updated')
      .map((e) => (e.data.object as Stripe.Subscription).status)
    expect(statuses).not.toContain('past_due')
    expect(unchanged.items.data[0]?.price.id).toBe(pro.id)

    const visa = await h.stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id })
    await h.stripe.subscriptions.update(sub.id, { default_payment_method: visa.id })
    const waiting = await h.stripe.subscriptions.update(sub.id, {
      items: [{ id: item.id, price: premium.id }],
      proration_behavior: 'always_invoice',
      payment_behavior: 'default_incomplete',
      expand: ['latest_invoice.payments'],
    })
    expect(waiting.status).toBe('past_due')
    expect(waiting.items.data[0]?.price.id).toBe(premium.id)
    const piId = (waiting.latest_invoice as Stripe.Invoice).payments?.data[0]?.payment
      .payment_intent as string
    expect((await h.stripe.paymentIntents.retrieve(piId)).status).toBe('requires_payment_method')
    await h.stripe.paymentIntents.confirm(piId, { payment_method: visa.id })
    expect((await h.stripe.subscriptions.retrieve(sub.id)).status).toBe('active')
  })

  it('folds the subscription discount into the prorations (flexible mode, proration_discounts=included)', async () => {
    const coupon = await h.stripe.coupons.create({ percent_off: 20, duration: 'forever' })
    const { customer, sub, item, period } = await subscribed('pm_card_visa', {
      discounts: [{ coupon: coupon.id }],
    })
    const details = {
      items: [{ id: item.id, price: premium.id }],
      proration_behavior: 'always_invoice' as const,
      proration_date: CHANGE_AT,
    }
    const preview = await h.stripe.invoices.createPreview({
      customer: customer.id,
      subscription: sub.id,
      subscription_details: details,
    })
    // Credited: the unused part of the 2320 actually debited; debited: the new price less 20%.
    const credit = -prorated(2320, period)
    const debit = prorated(4900, period) - prorated(980, period)
    expect(lineAmounts(preview)).toEqual([credit, debit])
    expect(preview.total_discount_amounts).toEqual([])
    const updated = await h.stripe.subscriptions.update(sub.id, { ...details, expand: ['latest_invoice'] })
    expect((updated.latest_invoice as Stripe.Invoice).amount_paid).toBe(preview.amount_due)
  })

  it('credits a downgrade billed at once to the customer balance, used by the next invoice', async () => {
    const basic = await recurringPrice(h.stripe, 900, 'month', 'Basic')
    const { clock, customer, sub, item, period } = await subscribed()
    const updated = await h.stripe.subscriptions.update(sub.id, {
      items: [{ id: item.id, price: basic.id }],
      proration_behavior: 'always_invoice',
      proration_date: CHANGE_AT,
      expand: ['latest_invoice'],
    })
    const total = -prorated(2900, period) + prorated(900, period)
    expect(updated.latest_invoice).toMatchObject({
      total,
      amount_due: 0,
      status: 'paid',
      starting_balance: 0,
      ending_balance: total,
    })
    expect((await h.stripe.customers.retrieve(customer.id)) as Stripe.Customer).toMatchObject({
      balance: total,
    })

    h.emulator.stripe.advanceTestClock(clock.id, period.end + 60)
    const renewal = (await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] }))
      .latest_invoice as Stripe.Invoice
    expect(renewal).toMatchObject({
      total: 900,
      starting_balance: total,
      amount_due: Math.max(0, 900 + total),
      ending_balance: Math.min(0, 900 + total),
    })
  })

  it('refuses a proration date outside the period and parameters pending updates do not take', async () => {
    const { sub, item, period } = await subscribed()
    const outside = await h.stripe.subscriptions
      .update(sub.id, { items: [{ id: item.id, price: premium.id }], proration_date: period.end + 10 })
      .catch((e: unknown) => e)
    expect(outside).toMatchObject({ statusCode: 400, param: 'proration_date' })
    const unsupported = await h.stripe.subscriptions
      .update(sub.id, {
        items: [{ id: item.id, price: premium.id }],
        payment_behavior: 'pending_if_incomplete',
        metadata: { plan: 'premium' },
      })
      .catch((e: unknown) => e)
    expect(unsupported).toMatchObject({ statusCode: 400, param: 'metadata' })
    expect((await h.stripe.subscriptions.retrieve(sub.id)).items.data[0]?.price.id).toBe(pro.id)
  })
})
