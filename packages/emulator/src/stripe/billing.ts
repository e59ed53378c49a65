import type { StripeApi } from './api'
import type { Catalog } from './catalog'
import { Discounts } from './discounts'
import { clockScope, type Env } from './env'
import { Invoices } from './invoices'
import type { Payments } from './payments'
import { Schedules } from './schedules'
import { SetupIntents } from './setup-intents'
import { type Due, Subscriptions } from './subscriptions'
import { TestClocks } from './test-clocks'

/**
 * Billing: subscriptions, invoices, discounts, schedules, SetupIntents and test clocks wired
 * together, and the scheduler that moves time. Everything time-driven (renewals, trial ends, the
 * end of a pause, schedule phases, reminders) is done at its own moment, in time order, when the
 * global clock or a test clock is advanced.
 */

export interface AdvanceReport {
  now: number
  renewed: string[]
  failed: string[]
  canceled: string[]
  expired: string[]
  trialsEnded: string[]
  /** Everything done, in order: `{at, kind, id}`. */
  log: Array<{ at: number; kind: string; id: string }>
}

/** More steps than any test needs; a loop that does not move forward is a bug, not a long run. */
const MAX_STEPS = 100_000

export class Billing {
  readonly discounts: Discounts
  readonly invoices: Invoices
  readonly setupIntents: SetupIntents
  readonly subscriptions: Subscriptions
  readonly schedules: Schedules
  readonly testClocks: TestClocks

  constructor(
    private readonly env: Env,
    catalog: Catalog,
    payments: Payments,
  ) {
    this.discounts = new Discounts(env, catalog)
    this.invoices = new Invoices(env, catalog, payments, this.discounts)
    this.setupIntents = new SetupIntents(env, catalog, payments)
    this.subscriptions = new Subscriptions(
      env,
      catalog,
      payments,
      this.invoices,
      this.discounts,
      this.setupIntents,
    )
    this.schedules = new Schedules(env, this.subscriptions)
    this.testClocks = new TestClocks(env)
    this.testClocks.processor = { process: (scope, target) => this.run(scope, target) }
  }

  failNextRenewal(subId: string): void {
    this.subscriptions.failNextRenewal(subId)
  }

  /** Moves the global clock forward, doing what falls due for customers without a test clock. */
  advance(seconds: number): AdvanceReport {
    if (!Number.isFinite(seconds) || seconds < 0)
      throw new Error('advance() takes a non-negative number of seconds')
    const target = this.env.clock.globalNow() + Math.floor(seconds)
    const report = this.run(null, target)
    this.env.clock.advance(seconds)
    report.now = this.env.clock.globalNow()
    return report
  }

  /** Moves a test clock to `frozenTime` at once (no two-interval limit), doing what falls due. */
  advanceTestClock(id: string, frozenTime: number): AdvanceReport {
    return this.testClocks.advanceNow(id, frozenTime) as AdvanceReport
  }

  private run(scope: string | null, target: number): AdvanceReport {
    const report: AdvanceReport = {
      now: target,
      renewed: [],
      failed: [],
      canceled: [],
      expired: [],
      trialsEnded: [],
      log: [],
    }
    const inScope = (customerId: string) => clockScope(this.env, customerId) === scope
    const start = this.env.clock.timeOf(scope)
    for (let step = 0; ; step++) {
      if (step > MAX_STEPS) throw new Error('the Stripe emulator scheduler is not moving forward')
      const next = this.nextDue(inScope, target)
      if (!next) break
      // Work that fell due before the clock's current time (set up late) happens now.
      const at = Math.max(next.at, start)
      this.env.clock.at(at, () => next.run(), scope)
      report.log.push({ at, kind: next.kind, id: next.id })
      if (next.kind === 'renewed' || next.kind === 'trial_ended') {
        const sub = this.env.store.subscriptions.get(next.id)
        const invoice =
          sub && typeof sub.latest_invoice === 'string'
            ? this.env.store.invoices.get(sub.latest_invoice)
            : undefined
        if (next.kind === 'trial_ended') report.trialsEnded.push(next.id)
        if (invoice && invoice.status === 'open') report.failed.push(next.id)
        else if (next.kind === 'renewed') report.renewed.push(next.id)
      } else if (next.kind === 'canceled') report.canceled.push(next.id)
      else if (next.kind === 'expired') report.expired.push(next.id)
    }
    return report
  }

  private nextDue(inScope: (customerId: string) => boolean, target: number): Due | undefined {
    let best: Due | undefined
    for (const due of [...this.subscriptions.due(inScope), ...this.schedules.due(inScope)]) {
      if (due.at > target) continue
      if (!best || due.at < best.at || (due.at === best.at && due.rank < best.rank)) best = due
    }
    return best
  }

  routes(api: StripeApi): void {
    this.discounts.routes(api)
    this.invoices.routes(api)
    this.setupIntents.routes(api)
    this.subscriptions.routes(api)
    this.schedules.routes(api)
    this.testClocks.routes(api)
  }
}
