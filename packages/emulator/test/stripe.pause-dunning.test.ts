import type Stripe from 'stripe'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  customerWithCard,
  DAY,
  expectEventsAsDeclared,
  type Harness,
  itemPeriod,
  recurringPrice,
  resetHarness,
  startHarness,
} from './stripe-harness'

/**
 * Pausing collection (renewal invoices voided, kept as drafts or written off, nothing charged, then
 * collection resumes by itself), recovering a failed renewal with a newly saved card, and the
 * `invoice.upcoming` reminder a configurable number of days before a renewal.
 */

let h: Harness
let price: Stripe.Price

beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => h?.close())
afterEach(() => expectEventsAsDeclared(h))
beforeEach(async () => {
  await resetHarness(h)
  h.emulator.stripe.setUpcomingInvoiceDays(7)
  price = await recurringPrice(h.stripe, 2900)
})

const FROZEN = Date.UTC(2031, 6, 1, 6, 0, 0) / 1000

async function subscribed(options: { card?: string; price?: Stripe.Price } = {}) {
  const clock = await h.stripe.testHelpers.testClocks.create({ frozen_time: FROZEN })
  const { customer, paymentMethod } = await customerWithCard(h.stripe, {
    testClock: clock.id,
    ...(options.card ? { card: options.card } : {}),
  })
  const sub = await h.stripe.subscriptions.create({
    customer: customer.id,
    items: [{ price: (options.price ?? price).id }],
  })
  return { clock, customer, paymentMethod, sub, period: itemPeriod(sub) }
}

describe('pause_collection', () => {
  it('voids renewal invoices while paused and resumes collecting at resumes_at', async () => {
    const { clock, sub, period } = await subscribed()
    // Two periods without charge: resume at the end of the third period's start.
    const resumesAt = Date.UTC(2031, 8, 1, 6, 0, 0) / 1000
    const paused = await h.stripe.subscriptions.update(sub.id, {
      pause_collection: { behavior: 'void', resumes_at: resumesAt },
    })
    expect(paused).toMatchObject({
      status: 'active',
      pause_collection: { behavior: 'void', resumes_at: resumesAt },
    })

    h.emulator.stripe.advanceTestClock(clock.id, resumesAt - 60)
    const during = await h.stripe.invoices.list({ subscription: sub.id })
    expect(during.data.map((i) => [i.billing_reason, i.status])).toEqual([
      ['subscription_cycle', 'void'],
      ['subscription_create', 'paid'],
    ])
    expect((await h.stripe.subscriptions.retrieve(sub.id)).status).toBe('active')
    expect(h.emulator.stripe.state().counts.charges).toBe(1)

    h.emulator.stripe.advanceTestClock(clock.id, resumesAt + 60)
    const resumed = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] })
    expect(resumed.pause_collection).toBeNull()
    const update = h.emulator.stripe
      .events('customer.subscription.updated')
      .find((e) => (e.data.previous_attributes as Record<string, unknown> | undefined)?.pause_collection)
    expect(update?.created).toBe(resumesAt)
    // The renewal at the same moment as the resumption is charged.
    expect(resumed.latest_invoice).toMatchObject({ status: 'paid', amount_paid: 2900, created: resumesAt })
    expect(h.emulator.stripe.events('customer.subscription.paused')).toEqual([])
    void period
  })

  it('keeps renewal invoices as drafts or marks them uncollectible, and stops pausing on ""', async () => {
    const draft = await subscribed()
    await h.stripe.subscriptions.update(draft.sub.id, { pause_collection: { behavior: 'keep_as_draft' } })
    h.emulator.stripe.advanceTestClock(draft.clock.id, draft.period.end + 60)
    expect((await h.stripe.invoices.list({ subscription: draft.sub.id })).data[0]).toMatchObject({
      status: 'draft',
      amount_paid: 0,
    })
    const cleared = await h.stripe.subscriptions.update(draft.sub.id, { pause_collection: '' })
    expect(cleared.pause_collection).toBeNull()

    const written = await subscribed()
    await h.stripe.subscriptions.update(written.sub.id, {
      pause_collection: { behavior: 'mark_uncollectible' },
    })
    h.emulator.stripe.advanceTestClock(written.clock.id, written.period.end + 60)
    expect((await h.stripe.invoices.list({ subscription: written.sub.id })).data[0]).toMatchObject({
      status: 'uncollectible',
    })
    expect(h.emulator.stripe.events('invoice.marked_uncollectible')).toHaveLength(1)

    const wrong = await h.stripe.subscriptions
      .update(written.sub.id, { pause_collection: { behavior: 'void', resumes_at: FROZEN - 10 } })
      .catch((e: unknown) => e)
    expect(wrong).toMatchObject({ statusCode: 400, param: 'pause_collection[resumes_at]' })
  })
})

describe('dunning', () => {
  it('recovers a failed renewal with a card saved through a SetupIntent', async () => {
    const { clock, customer, sub, period } = await subscribed()
    // The card on file starts declining (Stripe's 0341 card attaches but fails every charge).
    const failing = await h.stripe.paymentMethods.attach('pm_card_chargeCustomerFail', {
      customer: customer.id,
    })
    await h.stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: failing.id } })
    const report = h.emulator.stripe.advanceTestClock(clock.id, period.end + 60)
    expect(report.failed).toEqual([sub.id])
    const pastDue = await h.stripe.subscriptions.retrieve(sub.id)
    expect(pastDue.status).toBe('past_due')

    // "Update card": a SetupIntent confirmed by the card form, then made the renewal card.
    const si = await h.stripe.setupIntents.create({ customer: customer.id, usage: 'off_session' })
    const saved = await h.stripe.setupIntents.confirm(si.id, { payment_method: 'pm_card_mastercard' })
    const card = saved.payment_method as string
    await h.stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: card } })
    await h.stripe.subscriptions.update(sub.id, { default_payment_method: card })
    const paid = await h.stripe.invoices.pay(pastDue.latest_invoice as string, { payment_method: card })
    expect(paid).toMatchObject({ status: 'paid', amount_paid: 2900 })
    expect(await h.stripe.subscriptions.retrieve(sub.id)).toMatchObject({
      status: 'active',
      default_payment_method: card,
    })

    // And the next renewal goes on the new card.
    h.emulator.stripe.advanceTestClock(clock.id, Date.UTC(2031, 8, 1, 6, 1, 0) / 1000)
    const next = await h.stripe.subscriptions.retrieve(sub.id, {
      expand: ['latest_invoice.payments.data.payment.payment_intent'],
    })
    const pi = (next.latest_invoice as Stripe.Invoice).payments?.data[0]?.payment
      .payment_intent as Stripe.PaymentIntent
    expect(pi).toMatchObject({ status: 'succeeded', payment_method: card })
  })
})

describe('invoice.upcoming', () => {
  it('goes out 7 days before a yearly renewal with the invoice to come, and never twice', async () => {
    const yearly = await recurringPrice(h.stripe, 29000, 'year', 'Pro yearly')
    const { clock, sub, period } = await subscribed({ price: yearly })
    h.emulator.stripe.advanceTestClock(clock.id, period.end - 8 * DAY)
    expect(h.emulator.stripe.events('invoice.upcoming')).toEqual([])
    h.emulator.stripe.advanceTestClock(clock.id, period.end - 6 * DAY)
    const [event] = h.emulator.stripe.events('invoice.upcoming')
    expect(event?.created).toBe(period.end - 7 * DAY)
    const invoice = event?.data.object as Partial<Stripe.Invoice>
    expect(invoice.id).toBeUndefined()
    expect(invoice).toMatchObject({
      object: 'invoice',
      amount_due: 29000,
      billing_reason: 'upcoming',
      customer: sub.customer,
      parent: { subscription_details: { subscription: sub.id } },
    })
    expect(invoice.lines?.data[0]?.period).toMatchObject({ start: period.end })
    h.emulator.stripe.advanceTestClock(clock.id, period.end - DAY)
    expect(h.emulator.stripe.events('invoice.upcoming')).toHaveLength(1)
    expect(h.emulator.stripe.state().counts.invoices).toBe(1)
  })

  it('takes its number of days from the control, and skips subscriptions that will not renew', async () => {
    const response = await fetch(`${h.emulator.url}/_control/stripe/upcoming-invoice-days`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ days: 3 }),
    })
    expect(await response.json()).toEqual({ days: 3 })
    const renewing = await subscribed()
    h.emulator.stripe.advanceTestClock(renewing.clock.id, renewing.period.end - 2 * DAY)
    expect(h.emulator.stripe.events('invoice.upcoming').map((e) => e.created)).toEqual([
      renewing.period.end - 3 * DAY,
    ])

    const ending = await subscribed()
    await h.stripe.subscriptions.update(ending.sub.id, { cancel_at_period_end: true })
    h.emulator.stripe.advanceTestClock(ending.clock.id, ending.period.end - DAY)
    expect(h.emulator.stripe.events('invoice.upcoming')).toHaveLength(1)

    h.emulator.stripe.setUpcomingInvoiceDays(null)
    const silent = await subscribed()
    h.emulator.stripe.advanceTestClock(silent.clock.id, silent.period.end - DAY)
    expect(h.emulator.stripe.events('invoice.upcoming')).toHaveLength(1)
    expect(() => h.emulator.stripe.setUpcomingInvoiceDays(0)).toThrow()
  })
})
