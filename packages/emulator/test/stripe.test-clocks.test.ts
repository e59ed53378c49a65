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
  waitUntilReady,
} from './stripe-harness'

/**
 * Stripe test clocks through the SDK: customers created on a clock live on its frozen time, their
 * subscriptions renew only when that clock is advanced (asynchronously, advancing → ready), and the
 * global clock and its control keep working for everything else.
 */

let h: Harness

beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => h?.close())
afterEach(() => expectEventsAsDeclared(h))
beforeEach(async () => resetHarness(h))

/** 1 March 2031, 09:00 UTC: far from "now", so clock time cannot be mistaken for wall time. */
const FROZEN = Date.UTC(2031, 2, 1, 9, 0, 0) / 1000

describe('test clocks', () => {
  it('creates, lists, retrieves and deletes clocks with their events and shape', async () => {
    const clock = await h.stripe.testHelpers.testClocks.create({ frozen_time: FROZEN, name: 'Trial walk' })
    expect(clock).toMatchObject({
      object: 'test_helpers.test_clock',
      frozen_time: FROZEN,
      name: 'Trial walk',
      status: 'ready',
      status_details: {},
      livemode: false,
    })
    expect(clock.id).toMatch(/^clock_[A-Za-z0-9]{24}$/)
    expect(clock.deletes_after).toBeGreaterThan(clock.created)
    expectSdkShape(clock, 'TestHelpers/TestClocks.d.ts', 'TestClock')

    const other = await h.stripe.testHelpers.testClocks.create({ frozen_time: FROZEN })
    const listed = await h.stripe.testHelpers.testClocks.list()
    expect(listed.data.map((c) => c.id)).toEqual([other.id, clock.id])
    expect((await h.stripe.testHelpers.testClocks.retrieve(clock.id)).name).toBe('Trial walk')
    expect(h.emulator.stripe.testClocks().map((c) => c.id)).toEqual([other.id, clock.id])

    const customer = await h.stripe.customers.create({ email: 'clocked@example.com', test_clock: clock.id })
    const deleted = await h.stripe.testHelpers.testClocks.del(clock.id)
    expect(deleted).toMatchObject({ id: clock.id, deleted: true })
    const gone = await h.stripe.customers.retrieve(customer.id).catch((e: unknown) => e)
    expect(gone).toMatchObject({ statusCode: 404, code: 'resource_missing' })
    const missing = await h.stripe.testHelpers.testClocks.retrieve(clock.id).catch((e: unknown) => e)
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)

    const types = h.emulator.stripe.events().map((e) => e.type)
    expect(types.filter((t) => t === 'test_helpers.test_clock.created')).toHaveLength(2)
    expect(types).toContain('test_helpers.test_clock.deleted')
  })

  it('runs a customer and their subscription on the clock: created at frozen time, renewed only when it advances', async () => {
    const clock = await h.stripe.testHelpers.testClocks.create({ frozen_time: FROZEN })
    const { customer } = await customerWithCard(h.stripe, { testClock: clock.id })
    expect(customer).toMatchObject({ test_clock: clock.id, created: FROZEN })
    const price = await recurringPrice(h.stripe, 2900)
    const sub = await h.stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] })
    expect(sub).toMatchObject({ status: 'active', created: FROZEN, start_date: FROZEN, test_clock: clock.id })
    const period = itemPeriod(sub)
    expect(period).toEqual({ start: FROZEN, end: Date.UTC(2031, 3, 1, 9, 0, 0) / 1000 })
    const first = await h.stripe.invoices.retrieve(sub.latest_invoice as string)
    expect(first).toMatchObject({ test_clock: clock.id, created: FROZEN, status: 'paid' })

    // The global clock does not move clocked objects.
    h.emulator.stripe.advance(400 * DAY)
    expect(itemPeriod(await h.stripe.subscriptions.retrieve(sub.id))).toEqual(period)

    const advancing = await h.stripe.testHelpers.testClocks.advance(clock.id, {
      frozen_time: period.end + 3600,
    })
    expect(advancing.status).toBe('advancing')
    expect(advancing.status_details.advancing?.target_frozen_time).toBe(period.end + 3600)
    const ready = await waitUntilReady(h.stripe, clock.id)
    expect(ready).toMatchObject({ status: 'ready', frozen_time: period.end + 3600, status_details: {} })

    const renewed = await h.stripe.subscriptions.retrieve(sub.id, { expand: ['latest_invoice'] })
    expect(itemPeriod(renewed)).toEqual({ start: period.end, end: Date.UTC(2031, 4, 1, 9, 0, 0) / 1000 })
    expect(renewed.latest_invoice).toMatchObject({
      billing_reason: 'subscription_cycle',
      status: 'paid',
      created: period.end,
      test_clock: clock.id,
      amount_paid: 2900,
    })
    const events = h.emulator.stripe.events()
    const clockEvents = events.filter((e) => e.type.startsWith('test_helpers.test_clock.')).map((e) => e.type)
    expect(clockEvents).toEqual([
      'test_helpers.test_clock.created',
      'test_helpers.test_clock.advancing',
      'test_helpers.test_clock.ready',
    ])
    const paid = events.filter((e) => e.type === 'invoice.paid').at(-1)
    expect(paid?.created).toBe(period.end)
    // The renewal happened before the clock said it was ready.
    const readyIndex = events.findIndex((e) => e.type === 'test_helpers.test_clock.ready')
    expect(events.indexOf(paid as Stripe.Event)).toBeLessThan(readyIndex)
  })

  it('refuses to go backwards or further than two intervals of the shortest subscription', async () => {
    const clock = await h.stripe.testHelpers.testClocks.create({ frozen_time: FROZEN })
    const backwards = await h.stripe.testHelpers.testClocks
      .advance(clock.id, { frozen_time: FROZEN - 1 })
      .catch((e: unknown) => e)
    expect(backwards).toMatchObject({ statusCode: 400, param: 'frozen_time' })

    const { customer } = await customerWithCard(h.stripe, { testClock: clock.id })
    const price = await recurringPrice(h.stripe, 900, 'week')
    await h.stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] })
    const tooFar = await h.stripe.testHelpers.testClocks
      .advance(clock.id, { frozen_time: FROZEN + 15 * DAY })
      .catch((e: unknown) => e)
    expect(tooFar).toMatchObject({ statusCode: 400, param: 'frozen_time' })
    const fine = await h.stripe.testHelpers.testClocks.advance(clock.id, { frozen_time: FROZEN + 14 * DAY })
    expect(fine.status).toBe('advancing')
    await waitUntilReady(h.stripe, clock.id)
  })

  it('advances a clock a whole year at once through the control, renewal by renewal', async () => {
    const clock = await h.stripe.testHelpers.testClocks.create({ frozen_time: FROZEN })
    const { customer } = await customerWithCard(h.stripe, { testClock: clock.id })
    const price = await recurringPrice(h.stripe, 2900)
    const sub = await h.stripe.subscriptions.create({ customer: customer.id, items: [{ price: price.id }] })
    const target = Date.UTC(2032, 2, 1, 10, 0, 0) / 1000
    const report = h.emulator.stripe.advanceTestClock(clock.id, target)
    expect(report.renewed).toHaveLength(12)
    expect((await h.stripe.testHelpers.testClocks.retrieve(clock.id)).frozen_time).toBe(target)
    const invoices = await h.stripe.invoices.list({ subscription: sub.id, limit: 100 })
    expect(invoices.data.map((i) => i.created).reverse()).toEqual(
      Array.from({ length: 13 }, (_, month) => Date.UTC(2031, 2 + month, 1, 9, 0, 0) / 1000),
    )

    // The same through the control route another process would use.
    const response = await fetch(`${h.emulator.url}/_control/stripe/test-clocks/${clock.id}/advance`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ frozenTime: target + 31 * DAY }),
    })
    expect(response.status).toBe(200)
    expect(((await response.json()) as { renewed: string[] }).renewed).toEqual([sub.id])
    const listed = (await (await fetch(`${h.emulator.url}/_control/stripe/test-clocks`)).json()) as {
      testClocks: Array<{ id: string; frozen_time: number }>
    }
    expect(listed.testClocks).toEqual([
      expect.objectContaining({ id: clock.id, frozen_time: target + 31 * DAY }),
    ])
  })

  it('keeps the global clock for customers without a test clock', async () => {
    const clock = await h.stripe.testHelpers.testClocks.create({ frozen_time: FROZEN })
    const clocked = await customerWithCard(h.stripe, { testClock: clock.id })
    const plain = await customerWithCard(h.stripe)
    const price = await recurringPrice(h.stripe, 2900)
    const onClock = await h.stripe.subscriptions.create({
      customer: clocked.customer.id,
      items: [{ price: price.id }],
    })
    const global = await h.stripe.subscriptions.create({
      customer: plain.customer.id,
      items: [{ price: price.id }],
    })
    expect(Math.abs(global.created - h.emulator.stripe.now())).toBeLessThan(5)

    const report = h.emulator.stripe.advance(itemPeriod(global).end - h.emulator.stripe.now() + 1)
    expect(report.renewed).toEqual([global.id])
    h.emulator.stripe.advanceTestClock(clock.id, itemPeriod(onClock).end + 1)
    const listed = await h.stripe.subscriptions.list({
      test_clock: clock.id,
    } as Stripe.SubscriptionListParams)
    expect(listed.data.map((s) => s.id)).toEqual([onClock.id])
    expect((await h.stripe.invoices.list({ subscription: onClock.id })).data).toHaveLength(2)
    expect((await h.stripe.invoices.list({ subscription: global.id })).data).toHaveLength(2)
  })
})
