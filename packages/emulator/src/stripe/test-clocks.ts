import type Stripe from 'stripe'
import type { StripeApi } from './api'
import type { Env } from './env'
import { invalidRequest, noSuch } from './errors'
import type { Params } from './form'
import { newId } from './ids'
import { periodBoundary } from './periods'
import { createdFilter } from './render'
import { intervalOf } from './subscriptions'

/**
 * Stripe's test clocks (`/v1/test_helpers/test_clocks`): a frozen time that customers are attached
 * to, so their subscriptions, invoices, trials and schedules run on it. Advancing is asynchronous as
 * on Stripe: the clock answers `advancing`, works through what fell due in time order, then turns
 * `ready` (with `test_helpers.test_clock.advancing` and `.ready` events).
 */

const DAY = 86_400
const DELETES_AFTER_SECONDS = 30 * DAY
const MAX_ADVANCE_WITHOUT_SUBSCRIPTIONS = 2 * 365 * DAY

export interface ClockProcessor {
  /** Works through what falls due on the clock up to `target`; returns what it did. */
  process(scope: string, target: number): unknown
}

export class TestClocks {
  processor: ClockProcessor | undefined

  constructor(private readonly env: Env) {}

  testClock(id: string, param = 'id'): Stripe.TestHelpers.TestClock {
    const clock = this.env.store.testClocks.get(id)
    if (!clock) throw noSuch('test_helpers.test_clock', id, param)
    return clock
  }

  create(params: Params): Stripe.TestHelpers.TestClock {
    const frozenTime = params.requireInt('frozen_time')
    const name = params.nullableStr('name') ?? null
    const customerId = params.str('customer')
    params.rejectUnknown()
    const customer = customerId ? this.env.store.customers.get(customerId) : undefined
    if (customerId && !customer) throw noSuch('customer', customerId, 'customer')
    if (customer?.test_clock) {
      throw invalidRequest('This customer is already attached to a test clock.', { param: 'customer' })
    }
    const created = this.env.clock.globalNow()
    const clock: Stripe.TestHelpers.TestClock = {
      id: newId('clock'),
      object: 'test_helpers.test_clock',
      created,
      deletes_after: created + DELETES_AFTER_SECONDS,
      frozen_time: frozenTime,
      livemode: false,
      name,
      status: 'ready',
      status_details: {},
    }
    this.env.store.testClocks.set(clock.id, clock)
    this.env.clock.frozen.set(clock.id, frozenTime)
    if (customer) customer.test_clock = clock.id
    this.env.clock.within(clock.id, () => this.env.events.emit('test_helpers.test_clock.created', clock))
    return clock
  }

  /**
   * Stripe refuses to move a clock more than two intervals of its shortest subscription at once
   * (two years when it has none), so a test cannot skip renewals it did not mean to skip.
   */
  private limit(clock: Stripe.TestHelpers.TestClock): number {
    let limit = clock.frozen_time + MAX_ADVANCE_WITHOUT_SUBSCRIPTIONS
    let any = false
    for (const sub of this.env.store.subscriptions.values()) {
      if (sub.test_clock !== clock.id || sub.status === 'canceled' || sub.status === 'incomplete_expired')
        continue
      const price = sub.items.data[0]?.price
      if (!price?.recurring) continue
      const { interval, count } = intervalOf(price)
      const end = periodBoundary(clock.frozen_time, interval, count, 2)
      limit = any ? Math.min(limit, end) : end
      any = true
    }
    return limit
  }

  advance(clock: Stripe.TestHelpers.TestClock, params: Params): Stripe.TestHelpers.TestClock {
    const target = params.requireInt('frozen_time')
    params.rejectUnknown()
    this.checkAdvance(clock, target)
    const limit = this.limit(clock)
    if (target > limit) {
      throw invalidRequest(
        `Cannot advance the test clock to ${target}: a test clock can move at most two intervals of its shortest subscription at a time (here until ${limit}).`,
        { param: 'frozen_time' },
      )
    }
    this.startAdvancing(clock, target)
    // Stripe advances in the background; the caller polls until the clock is `ready`.
    setImmediate(() => {
      try {
        this.finishAdvancing(clock, target)
      } catch (error) {
        console.error('stripe emulator: advancing a test clock failed', error)
      }
    })
    return clock
  }

  /** The control API's synchronous advance: no two-interval limit, done when it returns. */
  advanceNow(id: string, target: number): unknown {
    const clock = this.testClock(id)
    this.checkAdvance(clock, target)
    this.startAdvancing(clock, target)
    return this.finishAdvancing(clock, target)
  }

  private checkAdvance(clock: Stripe.TestHelpers.TestClock, target: number): void {
    if (clock.status === 'advancing') {
      throw invalidRequest(
        'The test clock is already advancing. Wait for it to be ready before advancing it again.',
        {
          param: 'frozen_time',
        },
      )
    }
    if (target <= clock.frozen_time) {
      throw invalidRequest('The frozen time must be after the current frozen time of the test clock.', {
        param: 'frozen_time',
      })
    }
  }

  private startAdvancing(clock: Stripe.TestHelpers.TestClock, target: number): void {
    clock.status = 'advancing'
    clock.status_details = { advancing: { target_frozen_time: target } }
    this.env.clock.within(clock.id, () => this.env.events.emit('test_helpers.test_clock.advancing', clock))
  }

  private finishAdvancing(clock: Stripe.TestHelpers.TestClock, target: number): unknown {
    if (!this.env.store.testClocks.has(clock.id)) return undefined
    let report: unknown
    try {
      report = this.processor?.process(clock.id, target)
    } catch (error) {
      clock.status = 'internal_failure'
      clock.status_details = {}
      this.env.clock.within(clock.id, () =>
        this.env.events.emit('test_helpers.test_clock.internal_failure', clock),
      )
      throw error
    }
    clock.frozen_time = target
    this.env.clock.frozen.set(clock.id, target)
    clock.status = 'ready'
    clock.status_details = {}
    this.env.clock.within(clock.id, () => this.env.events.emit('test_helpers.test_clock.ready', clock))
    return report
  }

  /** Deleting a clock deletes the customers on it with their subscriptions, as Stripe does. */
  delete(clock: Stripe.TestHelpers.TestClock): Stripe.TestHelpers.DeletedTestClock {
    const store = this.env.store
    for (const [id, customer] of store.customers) {
      if (customer.test_clock !== clock.id) continue
      store.customers.delete(id)
      for (const [subId, sub] of store.subscriptions) {
        if (sub.customer !== id) continue
        store.subscriptions.delete(subId)
        store.subscriptionState.delete(subId)
      }
      for (const [scheduleId, schedule] of store.subscriptionSchedules) {
        if (schedule.customer === id) store.subscriptionSchedules.delete(scheduleId)
      }
      for (const [invoiceId, invoice] of store.invoices)
        if (invoice.customer === id) store.invoices.delete(invoiceId)
      for (const [itemId, item] of store.invoiceItems)
        if (item.customer === id) store.invoiceItems.delete(itemId)
    }
    store.testClocks.delete(clock.id)
    this.env.clock.frozen.delete(clock.id)
    this.env.events.emit('test_helpers.test_clock.deleted', clock)
    return { id: clock.id, object: 'test_helpers.test_clock', deleted: true }
  }

  routes(api: StripeApi): void {
    const base = '/v1/test_helpers/test_clocks'
    api.post(base, (r) => r.render(this.create(r.params)))
    api.get(base, (r) => {
      const created = createdFilter(r.params)
      const list = [...this.env.store.testClocks.values()].reverse().filter((clock) => created(clock.created))
      return this.env.renderer.list(list, r.params, base, r.expand)
    })
    api.get(`${base}/:id`, (r) => r.render(this.testClock(r.path.id ?? '')))
    api.delete(`${base}/:id`, (r) => this.delete(this.testClock(r.path.id ?? '')))
    api.post(`${base}/:id/advance`, (r) => r.render(this.advance(this.testClock(r.path.id ?? ''), r.params)))
  }
}
