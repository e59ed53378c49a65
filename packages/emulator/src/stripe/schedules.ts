import type Stripe from 'stripe'
import type { StripeApi } from './api'
import { changedFields, type Env, inCustomerTime } from './env'
import { invalidRequest, missingParam, noSuch } from './errors'
import type { Params } from './form'
import { newId } from './ids'
import { type Interval, periodBoundary } from './periods'
import { createdFilter } from './render'
import { type Due, intervalOf, type ProrationBehavior, type Subscriptions } from './subscriptions'

/**
 * Subscription schedules, for changes that wait for a date (a downgrade at renewal): created from
 * a subscription (one phase: the current period), updated with the phases to come, released or
 * canceled. At a phase boundary the subscription takes the next phase's prices; a boundary at the
 * end of a period is billed by that renewal at the new prices (and a new interval starts there).
 */

const PRORATION_BEHAVIORS = ['create_prorations', 'always_invoice', 'none'] as const

export class Schedules {
  constructor(
    private readonly env: Env,
    private readonly subscriptions: Subscriptions,
  ) {
    subscriptions.phaseItemsAt = (sub, at) => this.phaseItemsAt(sub, at)
    subscriptions.onEnded = (sub) => this.subscriptionEnded(sub)
  }

  schedule(id: string, param = 'id'): Stripe.SubscriptionSchedule {
    const schedule = this.env.store.subscriptionSchedules.get(id)
    if (!schedule) throw noSuch('subscription_schedule', id, param)
    return schedule
  }

  private subscriptionOf(schedule: Stripe.SubscriptionSchedule): Stripe.Subscription | undefined {
    return typeof schedule.subscription === 'string'
      ? this.env.store.subscriptions.get(schedule.subscription)
      : undefined
  }

  private phaseItem(price: Stripe.Price, quantity: number): Stripe.SubscriptionSchedule.Phase.Item {
    return {
      billing_thresholds: null,
      discounts: [],
      metadata: {},
      plan: price.id,
      price: price.id,
      quantity,
      tax_rates: [],
    }
  }

  private phase(input: {
    items: Stripe.SubscriptionSchedule.Phase.Item[]
    start: number
    end: number
    currency: string
    prorationBehavior: ProrationBehavior
    metadata: Record<string, string>
    trialEnd: number | null
  }): Stripe.SubscriptionSchedule.Phase {
    return {
      add_invoice_items: [],
      application_fee_percent: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: null,
      billing_thresholds: null,
      collection_method: null,
      currency: input.currency,
      default_payment_method: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      end_date: input.end,
      invoice_settings: null,
      items: input.items,
      metadata: input.metadata,
      on_behalf_of: null,
      proration_behavior: input.prorationBehavior,
      start_date: input.start,
      transfer_data: null,
      trial_end: input.trialEnd,
    }
  }

  create(params: Params): Stripe.SubscriptionSchedule {
    const from = params.str('from_subscription')
    if (!from) {
      throw invalidRequest(
        'The emulator creates subscription schedules from an existing subscription (`from_subscription`).',
        { param: 'from_subscription', code: 'parameter_missing' },
      )
    }
    const sub = this.subscriptions.subscription(from, 'from_subscription')
    const metadata = params.metadata() ?? {}
    params.rejectUnknown()
    if (sub.schedule) {
      throw invalidRequest(
        `You cannot migrate a subscription that is already attached to a schedule: \`${String(sub.schedule)}\`.`,
        { param: 'from_subscription' },
      )
    }
    if (!['active', 'past_due', 'trialing'].includes(sub.status)) {
      throw invalidRequest(`You cannot create a schedule for a subscription with status \`${sub.status}\`.`, {
        param: 'from_subscription',
      })
    }
    return inCustomerTime(this.env, sub.customer, () => {
      const now = this.env.clock.now()
      const start = this.subscriptions.periodStart(sub)
      const end = this.subscriptions.periodEnd(sub)
      const schedule: Stripe.SubscriptionSchedule = {
        id: newId('sub_sched'),
        object: 'subscription_schedule',
        application: null,
        billing_mode: structuredClone(sub.billing_mode) as Stripe.SubscriptionSchedule.BillingMode,
        canceled_at: null,
        completed_at: null,
        created: now,
        current_phase: { start_date: start, end_date: end },
        customer: sub.customer as string,
        customer_account: null,
        default_settings: {
          application_fee_percent: null,
          automatic_tax: { disabled_reason: null, enabled: false, liability: null },
          billing_cycle_anchor: 'automatic',
          billing_thresholds: null,
          collection_method: 'charge_automatically',
          default_payment_method: null,
          description: null,
          invoice_settings: {
            account_tax_ids: null,
            custom_fields: null,
            days_until_due: null,
            description: null,
            footer: null,
            issuer: { type: 'self' },
          },
          on_behalf_of: null,
          transfer_data: null,
        },
        end_behavior: 'release',
        livemode: false,
        metadata,
        pause_schedules: [],
        phases: [
          this.phase({
            items: sub.items.data.map((item) => this.phaseItem(item.price, item.quantity ?? 1)),
            start,
            end,
            currency: sub.currency,
            prorationBehavior: 'create_prorations',
            metadata: {},
            trialEnd: sub.status === 'trialing' ? sub.trial_end : null,
          }),
        ],
        released_at: null,
        released_subscription: null,
        status: 'active',
        subscription: sub.id,
        test_clock: sub.test_clock,
      }
      this.env.store.subscriptionSchedules.set(schedule.id, schedule)
      const before = structuredClone(sub)
      sub.schedule = schedule.id
      this.env.events.emit('subscription_schedule.created', schedule)
      this.subscriptions.emitUpdated(before, sub)
      return schedule
    })
  }

  private currentIndex(schedule: Stripe.SubscriptionSchedule): number {
    const start = schedule.current_phase?.start_date
    return schedule.phases.findIndex((phase) => phase.start_date === start)
  }

  private checkOpen(schedule: Stripe.SubscriptionSchedule, action: string): void {
    if (schedule.status !== 'active' && schedule.status !== 'not_started') {
      throw invalidRequest(
        `You cannot ${action} a subscription schedule that is currently in the \`${schedule.status}\` status. It must be in \`not_started\` or \`active\` status.`,
      )
    }
  }

  update(schedule: Stripe.SubscriptionSchedule, params: Params): Stripe.SubscriptionSchedule {
    this.checkOpen(schedule, 'update')
    const sub = this.subscriptionOf(schedule)
    if (!sub) throw invalidRequest('This schedule has no subscription to manage.')
    const now = this.env.clock.now()
    const endBehavior = params.oneOf('end_behavior', ['release', 'cancel'] as const)
    const prorationBehavior = params.oneOf('proration_behavior', PRORATION_BEHAVIORS) ?? 'create_prorations'
    const metadata = params.metadata(schedule.metadata ?? {})
    const phaseParams = params.objList('phases')
    params.obj('default_settings')?.rejectUnknown()
    params.rejectUnknown()
    const current = schedule.current_phase as Stripe.SubscriptionSchedule.CurrentPhase
    let phases = schedule.phases
    if (phaseParams) {
      phases = []
      let previousEnd: number | undefined
      phaseParams.forEach((entry, index) => {
        const name = (key: string) => `phases[${index}][${key}]`
        const itemParams = entry.objList('items')
        if (!itemParams || itemParams.length === 0) throw missingParam(name('items'))
        const items = itemParams.map((item) => {
          const priceId = item.str('price')
          if (!priceId) throw missingParam(item.name('price'))
          const price = this.subscriptions.recurringPrice(priceId, item.name('price'))
          const quantity = item.int('quantity') ?? 1
          item.metadata()
          item.rejectUnknown()
          return { price, quantity }
        })
        const startRaw = entry.str('start_date')
        let start: number
        if (startRaw === 'now') {
          if (index !== 0)
            throw invalidRequest('Only the first phase can start `now`.', { param: name('start_date') })
          start = now
        } else if (startRaw !== undefined) start = entry.int('start_date') as number
        else start = previousEnd ?? current.start_date
        if (index === 0 && start !== current.start_date) {
          throw invalidRequest('You can not modify the start date of the current phase.', {
            param: name('start_date'),
          })
        }
        if (previousEnd !== undefined && start !== previousEnd) {
          throw invalidRequest('The start date of a phase must be the end date of the phase before it.', {
            param: name('start_date'),
          })
        }
        const endRaw = entry.str('end_date')
        const duration = entry.obj('duration')
        let end: number
        const { interval, count } = intervalOf(items[0]?.price as Stripe.Price)
        if (endRaw !== undefined && duration) {
          throw invalidRequest('You may only specify one of these parameters: end_date, duration.', {
            param: name('end_date'),
            code: 'parameters_exclusive',
          })
        }
        if (endRaw === 'now') end = now
        else if (endRaw !== undefined) end = entry.int('end_date') as number
        else if (duration) {
          const unit = duration.oneOf('interval', ['day', 'week', 'month', 'year'] as const)
          if (!unit) throw missingParam(duration.name('interval'))
          const units = duration.int('interval_count') ?? 1
          duration.rejectUnknown()
          end = periodBoundary(start, unit as Interval, 1, units)
        } else end = periodBoundary(start, interval, count, 1)
        if (end <= start) {
          throw invalidRequest('The end date of a phase must be after its start date.', {
            param: name('end_date'),
          })
        }
        if (index === 0 && end <= now) {
          throw invalidRequest('The current phase must end in the future.', { param: name('end_date') })
        }
        const phaseProration = entry.oneOf('proration_behavior', PRORATION_BEHAVIORS) ?? 'create_prorations'
        const phaseMetadata = entry.metadata() ?? {}
        entry.str('currency')
        entry.rejectUnknown()
        phases.push(
          this.phase({
            items: items.map((item) => this.phaseItem(item.price, item.quantity)),
            start,
            end,
            currency: items[0]?.price.currency ?? sub.currency,
            prorationBehavior: phaseProration,
            metadata: phaseMetadata,
            trialEnd: null,
          }),
        )
        previousEnd = end
      })
    }
    return inCustomerTime(this.env, sub.customer, () => {
      const before = structuredClone(schedule)
      const subBefore = structuredClone(sub)
      schedule.phases = phases
      if (metadata) schedule.metadata = metadata
      if (endBehavior) schedule.end_behavior = endBehavior
      const first = phases[0] as Stripe.SubscriptionSchedule.Phase
      schedule.current_phase = { start_date: first.start_date, end_date: first.end_date }
      const last = phases.at(-1) as Stripe.SubscriptionSchedule.Phase
      // The subscription shows when the schedule will cancel it.
      if (schedule.end_behavior === 'cancel') {
        sub.cancel_at = last.end_date
        sub.cancel_at_period_end = false
        sub.canceled_at = sub.canceled_at ?? this.env.clock.now()
      } else if (before.end_behavior === 'cancel') {
        sub.cancel_at = null
        sub.canceled_at = null
      }
      const wanted = this.itemsOf(first)
      if (!this.matches(sub, wanted)) this.subscriptions.applyPhase(sub, wanted, prorationBehavior)
      else this.subscriptions.emitUpdated(subBefore, sub)
      this.env.events.emit(
        'subscription_schedule.updated',
        schedule,
        changedFields(before, schedule, ['phases', 'metadata', 'end_behavior', 'current_phase']),
      )
      return schedule
    })
  }

  private itemsOf(
    phase: Stripe.SubscriptionSchedule.Phase,
  ): Array<{ price: Stripe.Price; quantity: number }> {
    return phase.items.map((item) => ({
      price: this.env.store.prices.get(item.price as string) as Stripe.Price,
      quantity: item.quantity ?? 1,
    }))
  }

  private matches(
    sub: Stripe.Subscription,
    items: Array<{ price: Stripe.Price; quantity: number }>,
  ): boolean {
    return (
      sub.items.data.length === items.length &&
      items.every(
        (item, index) =>
          sub.items.data[index]?.price.id === item.price.id &&
          (sub.items.data[index]?.quantity ?? 1) === item.quantity,
      )
    )
  }

  release(schedule: Stripe.SubscriptionSchedule, params: Params): Stripe.SubscriptionSchedule {
    const preserveCancelDate = params.bool('preserve_cancel_date') ?? false
    params.rejectUnknown()
    this.checkOpen(schedule, 'release')
    return inCustomerTime(this.env, schedule.customer, () => {
      this.releaseNow(schedule, preserveCancelDate)
      return schedule
    })
  }

  private releaseNow(schedule: Stripe.SubscriptionSchedule, preserveCancelDate: boolean): void {
    const now = this.env.clock.now()
    const sub = this.subscriptionOf(schedule)
    const before = structuredClone(schedule)
    schedule.status = 'released'
    schedule.released_at = now
    schedule.released_subscription = sub?.id ?? null
    schedule.subscription = null
    schedule.current_phase = null
    this.env.events.emit(
      'subscription_schedule.released',
      schedule,
      changedFields(before, schedule, [
        'status',
        'released_at',
        'released_subscription',
        'subscription',
        'current_phase',
      ]),
    )
    if (!sub) return
    const subBefore = structuredClone(sub)
    sub.schedule = null
    if (before.end_behavior === 'cancel' && !preserveCancelDate) {
      sub.cancel_at = null
      sub.canceled_at = null
    }
    this.subscriptions.emitUpdated(subBefore, sub)
  }

  cancel(schedule: Stripe.SubscriptionSchedule, params: Params): Stripe.SubscriptionSchedule {
    params.bool('invoice_now')
    params.bool('prorate')
    params.rejectUnknown()
    this.checkOpen(schedule, 'cancel')
    return inCustomerTime(this.env, schedule.customer, () => {
      const sub = this.subscriptionOf(schedule)
      this.finish(schedule, 'canceled')
      if (sub && sub.status !== 'canceled' && sub.status !== 'incomplete_expired') {
        this.subscriptions.end(sub, this.env.clock.now(), 'canceled', {
          comment: null,
          feedback: null,
          reason: 'cancellation_requested',
        })
      }
      return schedule
    })
  }

  private finish(schedule: Stripe.SubscriptionSchedule, status: 'canceled' | 'completed'): void {
    const before = structuredClone(schedule)
    const now = this.env.clock.now()
    schedule.status = status
    if (status === 'canceled') schedule.canceled_at = now
    else schedule.completed_at = now
    schedule.current_phase = null
    this.env.events.emit(
      status === 'canceled' ? 'subscription_schedule.canceled' : 'subscription_schedule.completed',
      schedule,
      changedFields(before, schedule, ['status', 'canceled_at', 'completed_at', 'current_phase']),
    )
  }

  /** A subscription that ends takes its schedule with it: completed when that was the plan, else canceled. */
  private subscriptionEnded(sub: Stripe.Subscription): void {
    const id = sub.schedule
    const schedule = typeof id === 'string' ? this.env.store.subscriptionSchedules.get(id) : undefined
    if (!schedule || (schedule.status !== 'active' && schedule.status !== 'not_started')) return
    const last = schedule.phases.at(-1)
    const planned =
      schedule.end_behavior === 'cancel' && last !== undefined && this.env.clock.now() >= last.end_date
    this.finish(schedule, planned ? 'completed' : 'canceled')
  }

  /** The next phase's items when a phase starts exactly at `at` (asked by the renewal at that moment). */
  private phaseItemsAt(sub: Stripe.Subscription, at: number) {
    const schedule =
      typeof sub.schedule === 'string' ? this.env.store.subscriptionSchedules.get(sub.schedule) : undefined
    if (schedule?.status !== 'active') return undefined
    const index = this.currentIndex(schedule)
    const current = schedule.phases[index]
    const next = schedule.phases[index + 1]
    if (!current || !next || current.end_date !== at) return undefined
    return this.itemsOf(next)
  }

  /** Phase boundaries and the schedule's end, for the scheduler. */
  due(inScope: (customerId: string) => boolean): Due[] {
    const list: Due[] = []
    for (const schedule of this.env.store.subscriptionSchedules.values()) {
      if (schedule.status !== 'active' || !inScope(schedule.customer as string)) continue
      const sub = this.subscriptionOf(schedule)
      if (!sub) continue
      const index = this.currentIndex(schedule)
      const current = schedule.phases[index]
      if (!current) continue
      const next = schedule.phases[index + 1]
      list.push({
        at: current.end_date,
        // After the renewal at the same moment, which already billed the new phase's prices.
        rank: 7,
        id: schedule.id,
        kind: next ? 'phase_started' : 'schedule_ended',
        run: () => (next ? this.startPhase(schedule, sub, next) : this.endSchedule(schedule)),
      })
    }
    return list
  }

  private startPhase(
    schedule: Stripe.SubscriptionSchedule,
    sub: Stripe.Subscription,
    next: Stripe.SubscriptionSchedule.Phase,
  ): void {
    const before = structuredClone(schedule)
    schedule.current_phase = { start_date: next.start_date, end_date: next.end_date }
    const wanted = this.itemsOf(next)
    if (!this.matches(sub, wanted) && sub.status !== 'canceled' && sub.status !== 'incomplete_expired') {
      this.subscriptions.applyPhase(sub, wanted, next.proration_behavior as ProrationBehavior)
    }
    this.env.events.emit(
      'subscription_schedule.updated',
      schedule,
      changedFields(before, schedule, ['current_phase']),
    )
  }

  private endSchedule(schedule: Stripe.SubscriptionSchedule): void {
    if (schedule.end_behavior === 'cancel') {
      const sub = this.subscriptionOf(schedule)
      if (sub && sub.status !== 'canceled' && sub.status !== 'incomplete_expired') {
        this.subscriptions.end(sub, this.env.clock.now(), 'canceled', {
          comment: null,
          feedback: null,
          reason: 'cancellation_requested',
        })
      } else this.finish(schedule, 'completed')
      return
    }
    this.releaseNow(schedule, false)
  }

  routes(api: StripeApi): void {
    const render = this.env.renderer
    api.post('/v1/subscription_schedules', (r) => r.render(this.create(r.params)))
    api.get('/v1/subscription_schedules', (r) => {
      const customer = r.params.str('customer')
      const created = createdFilter(r.params)
      const list = [...this.env.store.subscriptionSchedules.values()]
        .reverse()
        .filter((s) => (!customer || s.customer === customer) && created(s.created))
      return render.list(list, r.params, '/v1/subscription_schedules', r.expand)
    })
    api.get('/v1/subscription_schedules/:id', (r) => r.render(this.schedule(r.path.id ?? '')))
    api.post('/v1/subscription_schedules/:id', (r) =>
      r.render(this.update(this.schedule(r.path.id ?? ''), r.params)),
    )
    api.post('/v1/subscription_schedules/:id/release', (r) =>
      r.render(this.release(this.schedule(r.path.id ?? ''), r.params)),
    )
    api.post('/v1/subscription_schedules/:id/cancel', (r) =>
      r.render(this.cancel(this.schedule(r.path.id ?? ''), r.params)),
    )
  }
}
