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
 * Subscription schedules for downgrades at renewal: created from a subscription, given the next
 * phase, and then at the boundary the renewal bills the new price (a new interval starting there);
 * released (undo), canceled, or ended by their end behaviour.
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

const FROZEN = Date.UTC(2031, 4, 5, 8, 0, 0) / 1000

async function subscribed(price: Stripe.Price) {
  const clock = await h.stripe.testHelpers.testClocks.create({ frozen_time: FROZEN })
  const { customer } = await customerWithCard(h.stripe, { testClock: clock.id })
  const sub = await h.stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] })
  h.emulator.stripe.advanceTestClock(clock.id, FROZEN + 3 * DAY)
  return { clock, customer, sub, period: itemPeriod(sub) }
}

/** The app's downgrade: keep the current phase, then the cheaper price from the renewal on. */
async function scheduleDowngrade(
  sub: Stripe.Subscription,
  to: Stripe.Price,
  endBehavior: 'release' | 'cancel' = 'release',
) {
  const schedule = await h.stripe.subscriptionSchedules.create({ from_subscription: sub.id })
  const current = schedule.phases[0] as Stripe.SubscriptionSchedule.Phase
  return h.stripe.subscriptionSchedules.update(schedule.id, {
    end_behavior: endBehavior,
    phases: [
      {
        items: [
          {
            price: (current.items[0] as Stripe.SubscriptionSchedule.Phase.Item).price as string,
            quantity: 1,
          },
        ],
        start_date: current.start_date,
        end_date: current.end_date,
      },
      { items: [{ price: to.id, quantity: 1 }] },
    ],
  })
}

describe('subscription schedules', () => {
  it('starts from the subscription with one phase: its current period', async () => {
    const { sub, period } = await subscribed(premium)
    const schedule = await h.stripe.subscriptionSchedules.create({ from_subscription: sub.id })
    expect(schedule).toMatchObject({
      object: 'subscription_schedule',
      status: 'active',
      subscription: sub.id,
      customer: sub.customer,
      end_behavior: 'release',
      current_phase: { start_date: period.start, end_date: period.end },
      test_clock: sub.test_clock,
    })
    expect(schedule.id).toMatch(/^sub_sched_/)
    expect(schedule.phases).toHaveLength(1)
    expect(schedule.phases[0]).toMatchObject({
      start_date: period.start,
      end_date: period.end,
      items: [{ price: premium.id, quantity: 1 }],
      proration_behavior: 'create_prorations',
    })
    expectSdkShape(schedule, 'SubscriptionSchedules.d.ts', 'SubscriptionSchedule')
    const withSchedule = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['schedule'] })
    expect((withSchedule.schedule as Stripe.SubscriptionSchedule).id).toBe(schedule.id)
    expect(h.emulator.stripe.events('subscription_schedule.created')).toHaveLength(1)

    const twice = await h.stripe.subscriptionSchedules
      .create({ from_subscription: sub.id })
      .catch((e: unknown) => e)
    expect(twice).toMatchObject({ statusCode: 400, param: 'from_subscription' })
    const direct = await h.stripe.subscriptions
      .update(sub.id, { cancel_at_period_end: true })
      .catch((e: unknown) => e)
    expect(direct).toMatchObject({ statusCode: 400 })
  })

  it('downgrades at renewal: the renewal bills the new price, then the schedule is released', async () => {
    const { clock, sub, period } = await subscribed(premium)
    const schedule = await scheduleDowngrade(sub, pro)
    expect(schedule.phases.map((p) => [p.start_date, p.end_date])).toEqual([
      [period.start, period.end],
      [period.end, Date.UTC(2031, 6, 5, 8, 0, 0) / 1000],
    ])
    // Nothing changes before the boundary.
    expect((await h.stripe.subscriptions.retrieve(sub.id)).items.data[0]?.price.id).toBe(premium.id)
    expect((await h.stripe.invoices.list({ subscription: sub.id })).data).toHaveLength(1)

    h.emulator.stripe.advanceTestClock(clock.id, period.end + 60)
    const renewed = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] })
    expect(renewed.items.data[0]?.price.id).toBe(pro.id)
    expect(itemPeriod(renewed).start).toBe(period.end)
    expect(renewed.latest_invoice).toMatchObject({ billing_reason: 'subscription_cycle', amount_paid: 2900 })
    expect((renewed.latest_invoice as Stripe.Invoice).lines.data).toHaveLength(1)
    const moved = await h.stripe.subscriptionSchedules.retrieve(schedule.id)
    expect(moved.current_phase).toEqual({ start_date: period.end, end_date: schedule.phases[1]?.end_date })

    h.emulator.stripe.advanceTestClock(clock.id, (schedule.phases[1]?.end_date as number) + 60)
    const released = await h.stripe.subscriptionSchedules.retrieve(schedule.id)
    expect(released).toMatchObject({ status: 'released', subscription: null, released_subscription: sub.id })
    const after = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] })
    expect(after).toMatchObject({ schedule: null, status: 'active' })
    expect(after.latest_invoice).toMatchObject({ amount_paid: 2900 })
    const types = h.emulator.stripe.events().map((e) => e.type)
    expect(types).toEqual(
      expect.arrayContaining(['subscription_schedule.updated', 'subscription_schedule.released']),
    )
  })

  it('switches yearly to monthly at the end of the year: a monthly period starts at the renewal', async () => {
    const { clock, sub, period } = await subscribed(yearly)
    await scheduleDowngrade(sub, pro)
    h.emulator.stripe.advanceTestClock(clock.id, period.end + 60)
    const renewed = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] })
    expect(renewed.items.data[0]?.price.id).toBe(pro.id)
    expect(itemPeriod(renewed)).toEqual({ start: period.end, end: Date.UTC(2032, 5, 5, 8, 0, 0) / 1000 })
    expect(renewed).toMatchObject({ billing_cycle_anchor: period.end })
    expect(renewed.latest_invoice).toMatchObject({ billing_reason: 'subscription_cycle', amount_paid: 2900 })
  })

  it('undoes a scheduled downgrade by releasing the schedule', async () => {
    const { clock, sub, period } = await subscribed(premium)
    const schedule = await scheduleDowngrade(sub, pro)
    const released = await h.stripe.subscriptionSchedules.release(schedule.id)
    expect(released).toMatchObject({
      status: 'released',
      released_subscription: sub.id,
      subscription: null,
      current_phase: null,
      released_at: FROZEN + 3 * DAY,
    })
    expect((await h.stripe.subscriptions.retrieve(sub.id)).schedule).toBeNull()
    h.emulator.stripe.advanceTestClock(clock.id, period.end + 60)
    const renewed = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] })
    expect(renewed.items.data[0]?.price.id).toBe(premium.id)
    expect(renewed.latest_invoice).toMatchObject({ amount_paid: 4900 })
    const again = await h.stripe.subscriptionSchedules.release(schedule.id).catch((e: unknown) => e)
    expect(again).toMatchObject({ statusCode: 400 })
  })

  it('cancels the subscription with the schedule, or at its end with end_behavior=cancel', async () => {
    const first = await subscribed(premium)
    const schedule = await h.stripe.subscriptionSchedules.create({ from_subscription: first.sub.id })
    const canceled = await h.stripe.subscriptionSchedules.cancel(schedule.id)
    expect(canceled).toMatchObject({ status: 'canceled', canceled_at: FROZEN + 3 * DAY })
    expect((await h.stripe.subscriptions.retrieve(first.sub.id)).status).toBe('canceled')
    expect(h.emulator.stripe.events('subscription_schedule.canceled')).toHaveLength(1)

    const second = await subscribed(premium)
    const ending = await scheduleDowngrade(second.sub, pro, 'cancel')
    const end = ending.phases[1]?.end_date as number
    expect(await h.stripe.subscriptions.retrieve(second.sub.id)).toMatchObject({ cancel_at: end })
    h.emulator.stripe.advanceTestClock(second.clock.id, end + 60)
    expect(await h.stripe.subscriptions.retrieve(second.sub.id)).toMatchObject({
      status: 'canceled',
      ended_at: end,
    })
    expect(await h.stripe.subscriptionSchedules.retrieve(ending.id)).toMatchObject({
      status: 'completed',
      completed_at: end,
    })
    expect(h.emulator.stripe.events('subscription_schedule.completed')).toHaveLength(1)
    const invoices = await h.stripe.invoices.list({ subscription: second.sub.id })
    expect(invoices.data.map((i) => i.amount_paid)).toEqual([2900, 4900])
  })

  it('refuses to rewrite the start of the current phase', async () => {
    const { sub, period } = await subscribed(premium)
    const schedule = await h.stripe.subscriptionSchedules.create({ from_subscription: sub.id })
    const error = await h.stripe.subscriptionSchedules
      .update(schedule.id, {
        phases: [{ items: [{ price: pro.id }], start_date: period.start + DAY, end_date: period.end }],
      })
      .catch((e: unknown) => e)
    expect(error).toMatchObject({ statusCode: 400, param: 'phases[0][start_date]' })
  })
})
