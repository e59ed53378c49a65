import type Stripe from 'stripe'
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
 * Trials on a test clock: the $0 first invoice and the pending SetupIntent of a default_incomplete
 * checkout, `trial_will_end` three days before, the first real charge at the end (or what
 * `trial_settings[end_behavior][missing_payment_method]` says without a card), and cancelling.
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
  price = await recurringPrice(h.stripe, 2900)
})

const FROZEN = Date.UTC(2031, 0, 10, 12, 0, 0) / 1000

async function clocked(card?: string) {
  const clock = await h.stripe.testHelpers.testClocks.create({ frozen_time: FROZEN })
  if (card) return { clock, ...(await customerWithCard(h.stripe, { testClock: clock.id, card })) }
  const customer = await h.stripe.customers.create({ email: 'trial@example.com', test_clock: clock.id })
  return { clock, customer }
}

function types(): string[] {
  return h.emulator.stripe.events().map((event) => event.type)
}

describe('trials', () => {
  it('runs a card-up-front trial: $0 invoice, pending SetupIntent, reminder, then the first charge', async () => {
    const { clock, customer } = await clocked()
    const sub = await h.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      trial_period_days: 14,
      payment_behavior: 'default_incomplete',
      payment_settings: { save_default_payment_method: 'on_subscription' },
      expand: ['latest_invoice', 'pending_setup_intent'],
    })
    const trialEnd = FROZEN + 14 * DAY
    expect(sub).toMatchObject({
      status: 'trialing',
      trial_start: FROZEN,
      trial_end: trialEnd,
      billing_cycle_anchor: trialEnd,
      test_clock: clock.id,
    })
    expect(itemPeriod(sub)).toEqual({ start: FROZEN, end: trialEnd })
    expectSdkShape(sub, 'Subscriptions.d.ts', 'Subscription')
    const invoice = sub.latest_invoice as Stripe.Invoice
    expect(invoice).toMatchObject({
      billing_reason: 'subscription_create',
      status: 'paid',
      amount_due: 0,
      total: 0,
    })
    expect(invoice.lines.data[0]).toMatchObject({
      amount: 0,
      description: 'Trial period for EdgeClub Pro',
      period: { start: FROZEN, end: trialEnd },
    })
    const setup = sub.pending_setup_intent as Stripe.SetupIntent
    expect(setup).toMatchObject({
      object: 'setup_intent',
      customer: customer.id,
      usage: 'off_session',
      status: 'requires_payment_method',
    })

    const confirmed = await h.stripe.setupIntents.confirm(setup.id, { payment_method: 'pm_card_visa' })
    expect(confirmed.status).toBe('succeeded')
    const withCard = await h.stripe.subscriptions.retrieve(sub.id)
    expect(withCard).toMatchObject({
      pending_setup_intent: null,
      default_payment_method: confirmed.payment_method,
    })

    h.emulator.stripe.advanceTestClock(clock.id, trialEnd - 3 * DAY + 10)
    const reminders = h.emulator.stripe.events('customer.subscription.trial_will_end')
    expect(reminders.map((e) => e.created)).toEqual([trialEnd - 3 * DAY])
    expect((await h.stripe.subscriptions.retrieve(sub.id)).status).toBe('trialing')

    const report = h.emulator.stripe.advanceTestClock(clock.id, trialEnd + 3600)
    expect(report.trialsEnded).toEqual([sub.id])
    const active = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] })
    expect(active).toMatchObject({ status: 'active', billing_cycle_anchor: trialEnd })
    expect(itemPeriod(active)).toEqual({ start: trialEnd, end: Date.UTC(2031, 1, 24, 12, 0, 0) / 1000 })
    expect(active.latest_invoice).toMatchObject({
      billing_reason: 'subscription_cycle',
      status: 'paid',
      amount_paid: 2900,
      created: trialEnd,
    })
    const updated = h.emulator.stripe
      .events('customer.subscription.updated')
      .find((e) => (e.data.previous_attributes as { status?: string } | undefined)?.status === 'trialing')
    expect(updated?.created).toBe(trialEnd)
    expect(h.emulator.stripe.events('customer.subscription.trial_will_end')).toHaveLength(1)
  })

  it('announces a trial shorter than three days at once', async () => {
    const { customer } = await clocked('pm_card_visa')
    await h.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      trial_end: FROZEN + 2 * DAY,
    })
    expect(h.emulator.stripe.events('customer.subscription.trial_will_end').map((e) => e.created)).toEqual([
      FROZEN,
    ])
  })

  it('goes past_due at the end when the first charge fails, with or without a card', async () => {
    const noCard = await clocked()
    const sub = await h.stripe.subscriptions.create({
      customer: noCard.customer.id,
      items: [{ price: price.id }],
      trial_period_days: 7,
    })
    h.emulator.stripe.advanceTestClock(noCard.clock.id, FROZEN + 7 * DAY + 60)
    const pastDue = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] })
    expect(pastDue.status).toBe('past_due')
    expect(pastDue.latest_invoice).toMatchObject({ status: 'open', amount_due: 2900, attempt_count: 1 })

    const failing = await clocked('pm_card_chargeCustomerFail')
    const other = await h.stripe.subscriptions.create({
      customer: failing.customer.id,
      items: [{ price: price.id }],
      trial_period_days: 7,
    })
    const report = h.emulator.stripe.advanceTestClock(failing.clock.id, FROZEN + 7 * DAY + 60)
    expect(report.failed).toEqual([other.id])
    expect((await h.stripe.subscriptions.retrieve(other.id)).status).toBe('past_due')
    expect(h.emulator.stripe.events('invoice.payment_failed')).toHaveLength(2)
  })

  it('cancels or pauses at the end without a card when trial_settings say so, and resumes', async () => {
    const canceling = await clocked()
    const canceled = await h.stripe.subscriptions.create({
      customer: canceling.customer.id,
      items: [{ price: price.id }],
      trial_period_days: 7,
      trial_settings: { end_behavior: { missing_payment_method: 'cancel' } },
    })
    h.emulator.stripe.advanceTestClock(canceling.clock.id, FROZEN + 8 * DAY)
    expect(await h.stripe.subscriptions.retrieve(canceled.id)).toMatchObject({
      status: 'canceled',
      ended_at: FROZEN + 7 * DAY,
    })
    expect((await h.stripe.invoices.list({ subscription: canceled.id })).data).toHaveLength(1)

    const pausing = await clocked()
    const paused = await h.stripe.subscriptions.create({
      customer: pausing.customer.id,
      items: [{ price: price.id }],
      trial_period_days: 7,
      trial_settings: { end_behavior: { missing_payment_method: 'pause' } },
    })
    h.emulator.stripe.advanceTestClock(pausing.clock.id, FROZEN + 9 * DAY)
    expect(await h.stripe.subscriptions.retrieve(paused.id)).toMatchObject({
      status: 'paused',
      status_details: {
        paused: { type: 'subscription', subscription: { type: 'trial_end_without_payment_method' } },
      },
    })
    expect(types()).toContain('customer.subscription.paused')

    const card = await h.stripe.paymentMethods.attach('pm_card_visa', { customer: pausing.customer.id })
    await h.stripe.subscriptions.update(paused.id, { default_payment_method: card.id })
    const resumed = await h.stripe.subscriptions.resume(paused.id, {
      billing_cycle_anchor: { type: 'now' },
      payment_behavior: 'resume_on_payment_success',
      expand: ['latest_invoice'],
    })
    expect(resumed).toMatchObject({ status: 'active', billing_cycle_anchor: FROZEN + 9 * DAY })
    expect(resumed.latest_invoice).toMatchObject({ status: 'paid', amount_paid: 2900 })
    expect(types()).toContain('customer.subscription.resumed')
  })

  it('ends a trial canceled at period end at the trial end with no charge; DELETE ends it at once', async () => {
    const { clock, customer } = await clocked('pm_card_visa')
    const sub = await h.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      trial_period_days: 10,
    })
    const scheduled = await h.stripe.subscriptions.update(sub.id, { cancel_at_period_end: true })
    expect(scheduled).toMatchObject({ status: 'trialing', cancel_at: FROZEN + 10 * DAY })
    h.emulator.stripe.advanceTestClock(clock.id, FROZEN + 40 * DAY)
    expect(await h.stripe.subscriptions.retrieve(sub.id)).toMatchObject({
      status: 'canceled',
      ended_at: FROZEN + 10 * DAY,
    })
    const invoices = await h.stripe.invoices.list({ customer: customer.id })
    expect(invoices.data.map((i) => i.amount_paid)).toEqual([0])
    expect(h.emulator.stripe.state().counts.charges).toBe(0)

    const other = await h.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      trial_period_days: 10,
    })
    const deleted = await h.stripe.subscriptions.cancel(other.id)
    expect(deleted).toMatchObject({ status: 'canceled', ended_at: FROZEN + 40 * DAY })
  })

  it('gives free days to a paying subscription with a future trial_end, crediting the unused time', async () => {
    const { clock, customer } = await clocked('pm_card_visa')
    const sub = await h.stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] })
    const period = itemPeriod(sub)
    h.emulator.stripe.advanceTestClock(clock.id, FROZEN + 10 * DAY)
    const until = period.end + 14 * DAY
    const extended = await h.stripe.subscriptions.update(sub.id, {
      trial_end: until,
      proration_behavior: 'create_prorations',
    })
    expect(extended).toMatchObject({ status: 'trialing', trial_start: FROZEN + 10 * DAY, trial_end: until })
    expect(itemPeriod(extended)).toEqual({ start: FROZEN + 10 * DAY, end: until })
    const credit = -Math.round((2900 * (period.end - (FROZEN + 10 * DAY))) / (period.end - period.start))
    const pending = await h.stripe.invoiceItems.list({ customer: customer.id, pending: true })
    expect(pending.data.map((ii) => ii.amount)).toEqual([credit])

    h.emulator.stripe.advanceTestClock(clock.id, until + 60)
    const charged = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] })
    expect(charged).toMatchObject({ status: 'active', billing_cycle_anchor: until })
    expect(charged.latest_invoice).toMatchObject({ amount_paid: 2900 + credit, created: until })
  })

  it('resumes on the payment attempt by default, past_due when the card declines', async () => {
    const { clock, customer } = await clocked()
    const sub = await h.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      trial_period_days: 3,
      trial_settings: { end_behavior: { missing_payment_method: 'pause' } },
    })
    h.emulator.stripe.advanceTestClock(clock.id, FROZEN + 4 * DAY)
    const card = await h.stripe.paymentMethods.attach('pm_card_chargeCustomerFail', { customer: customer.id })
    await h.stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: card.id } })
    const resumed = await h.stripe.subscriptions.resume(sub.id)
    expect(resumed.status).toBe('past_due')
    expect(h.emulator.stripe.events('customer.subscription.resumed')).toHaveLength(1)
    const again = await h.stripe.subscriptions.resume(sub.id).catch((e: unknown) => e)
    expect(again).toMatchObject({ statusCode: 400 })
  })

  it('ends a trial now with trial_end=now and charges the first period', async () => {
    const { clock, customer } = await clocked('pm_card_visa')
    const sub = await h.stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      trial_period_days: 30,
    })
    h.emulator.stripe.advanceTestClock(clock.id, FROZEN + 5 * DAY)
    const ended = await h.stripe.subscriptions.update(sub.id, {
      trial_end: 'now',
      expand: ['latest_invoice'],
    })
    expect(ended).toMatchObject({
      status: 'active',
      trial_end: FROZEN + 5 * DAY,
      billing_cycle_anchor: FROZEN + 5 * DAY,
    })
    expect(itemPeriod(ended).start).toBe(FROZEN + 5 * DAY)
    expect(ended.latest_invoice).toMatchObject({ billing_reason: 'subscription_update', amount_paid: 2900 })
  })
})
