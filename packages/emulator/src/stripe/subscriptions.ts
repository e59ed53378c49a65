import type Stripe from 'stripe'
import type { ApiRequest, StripeApi } from './api'
import type { Catalog } from './catalog'
import { decimal } from './catalog'
import type { Discounts, Redeemable } from './discounts'
import { changedFields, type Env, inCustomerTime } from './env'
import { invalidRequest, missingParam, noSuch, StripeApiError } from './errors'
import type { Params } from './form'
import { newId } from './ids'
import type { CollectOutcome, InvoiceReason, Invoices, LineDraft } from './invoices'
import type { Payments } from './payments'
import { formatDate, type Interval, periodBoundary } from './periods'
import { createdFilter } from './render'
import type { SetupIntents } from './setup-intents'
import type { ItemDebit, SubscriptionState } from './store'

/**
 * Subscriptions in the shapes of the pinned API version (periods on the items, flexible billing
 * mode): checkout, trials, discounts, plan changes with prorations, pending updates, pausing
 * collection, renewals and cancellation. Time-driven work (renewals, trial ends, resumptions) is
 * offered to the scheduler through `due()`.
 */

const DAY = 86_400
const INCOMPLETE_EXPIRY_SECONDS = 23 * 3600
const PENDING_UPDATE_SECONDS = 23 * 3600
const TRIAL_WILL_END_SECONDS = 3 * DAY
const MAX_TRIAL_SECONDS = 730 * DAY

export type ProrationBehavior = 'create_prorations' | 'always_invoice' | 'none'
export type PaymentBehavior =
  | 'allow_incomplete'
  | 'default_incomplete'
  | 'pending_if_incomplete'
  | 'error_if_incomplete'

const PRORATION_BEHAVIORS = ['create_prorations', 'always_invoice', 'none'] as const
const PAYMENT_BEHAVIORS = [
  'allow_incomplete',
  'default_incomplete',
  'pending_if_incomplete',
  'error_if_incomplete',
] as const
/** What Stripe accepts alongside `payment_behavior=pending_if_incomplete`. */
const PENDING_UPDATE_PARAMS = [
  'expand',
  'payment_behavior',
  'proration_behavior',
  'proration_date',
  'billing_cycle_anchor',
  'items',
  'trial_end',
  'trial_from_plan',
  'off_session',
]

export interface ItemChange {
  id?: string
  price?: Stripe.Price
  quantity?: number
  deleted?: boolean
  metadata?: Record<string, string>
}

export interface ChangeRequest {
  items: ItemChange[]
  prorationBehavior: ProrationBehavior
  prorationDate: number
  anchorNow: boolean
  trialEnd?: 'now' | number
}

/** What a change does, computed before anything is applied (updates and previews share it). */
interface Plan {
  items: Stripe.SubscriptionItem[]
  /** The new billing cycle anchor when the cycle restarts (now, or when a new trial ends). */
  anchor: number | null
  /** undefined: unchanged; null: the trial ends now; else a (new) trial. */
  trial: { start: number; end: number } | null | undefined
  prorations: LineDraft[]
  /** Whether the change is invoiced at once (new cycle now, or always_invoice with prorations). */
  invoiceNow: boolean
  debits: Record<string, ItemDebit>
  prorationBehavior: ProrationBehavior
}

/** One piece of time-driven work for the scheduler. */
export interface Due {
  at: number
  /** Order among things due at the same moment. */
  rank: number
  id: string
  kind: string
  run(): void
}

export class Subscriptions {
  /** Asked at each renewal for the items of the period that starts (subscription schedules). */
  phaseItemsAt: (
    sub: Stripe.Subscription,
    at: number,
  ) => Array<{ price: Stripe.Price; quantity: number }> | undefined = () => undefined
  /** Told when a subscription ends (its schedule ends with it). */
  onEnded: (sub: Stripe.Subscription) => void = () => {}
  /** Days before a renewal that `invoice.upcoming` goes out (null: never). */
  upcomingDays: number | null = 7
  /** Subscriptions whose update is being tried with error_if_incomplete: a failure changes nothing. */
  private readonly tentative = new Set<string>()

  constructor(
    private readonly env: Env,
    private readonly catalog: Catalog,
    private readonly payments: Payments,
    private readonly invoices: Invoices,
    private readonly discounts: Discounts,
    private readonly setupIntents: SetupIntents,
  ) {
    invoices.hooks = {
      paid: (invoice, pm) => this.invoicePaid(invoice, pm),
      paymentFailed: (invoice) => this.invoicePaymentFailed(invoice),
      actionRequired: (invoice) => this.invoiceActionRequired(invoice),
      voided: (invoice) => this.invoiceVoided(invoice),
    }
    setupIntents.hooks = { succeeded: (si, pm) => this.setupIntentSucceeded(si, pm) }
  }

  subscription(id: string, param = 'id'): Stripe.Subscription {
    const sub = this.env.store.subscriptions.get(id)
    if (!sub) throw noSuch('subscription', id, param)
    return sub
  }

  state(sub: Stripe.Subscription): SubscriptionState {
    const state = this.env.store.subscriptionState.get(sub.id)
    if (!state) throw new Error(`no billing state for ${sub.id}`)
    return state
  }

  // ---- Items and periods ----

  recurringPrice(id: string, param: string): Stripe.Price {
    const price = this.catalog.price(id, param)
    if (!price.recurring) {
      throw invalidRequest(
        'The price specified is set to `type=one_time` but this field only accepts prices with `type=recurring`.',
        { param },
      )
    }
    if (!price.active) {
      throw invalidRequest('The price specified is inactive. This field only accepts active prices.', {
        param,
      })
    }
    return price
  }

  planOf(price: Stripe.Price): Stripe.Plan {
    const recurring = price.recurring as Stripe.Price.Recurring
    return {
      id: price.id,
      object: 'plan',
      active: price.active,
      amount: price.unit_amount,
      amount_decimal: decimal(price.unit_amount),
      billing_scheme: 'per_unit',
      created: price.created,
      currency: price.currency,
      interval: recurring.interval,
      interval_count: recurring.interval_count,
      livemode: false,
      metadata: { ...price.metadata },
      meter: null,
      nickname: price.nickname,
      product: price.product as string,
      tiers_mode: null,
      transform_usage: null,
      trial_period_days: null,
      usage_type: 'licensed',
    }
  }

  newItem(
    subId: string,
    price: Stripe.Price,
    quantity: number,
    metadata: Record<string, string>,
  ): Stripe.SubscriptionItem {
    return {
      id: newId('si'),
      object: 'subscription_item',
      billing_thresholds: null,
      created: this.env.clock.now(),
      current_period_end: 0,
      current_period_start: 0,
      current_trial: null,
      discounts: [],
      metadata,
      plan: this.planOf(price),
      price: structuredClone(price),
      quantity,
      subscription: subId,
      tax_rates: [],
    }
  }

  /** Sets every item's period: the trial while trialing, else counted from the anchor. */
  applyPeriod(sub: Stripe.Subscription): void {
    const state = this.state(sub)
    for (const item of sub.items.data) {
      if (sub.status === 'trialing' && sub.trial_start !== null && sub.trial_end !== null) {
        item.current_period_start = sub.trial_start
        item.current_period_end = sub.trial_end
        continue
      }
      const { interval, count } = intervalOf(item.price)
      item.current_period_start = periodBoundary(state.anchor, interval, count, state.cycle)
      item.current_period_end = periodBoundary(state.anchor, interval, count, state.cycle + 1)
    }
  }

  periodEnd(sub: Stripe.Subscription): number {
    return Math.min(...sub.items.data.map((item) => item.current_period_end))
  }

  periodStart(sub: Stripe.Subscription): number {
    return Math.min(...sub.items.data.map((item) => item.current_period_start))
  }

  private setItems(sub: Stripe.Subscription, items: Stripe.SubscriptionItem[]): void {
    sub.items.data = items
    ;(sub.items as unknown as { total_count: number }).total_count = items.length
  }

  private checkItemsCompatible(items: Array<{ price: Stripe.Price }>, param: string): void {
    const first = items[0]?.price
    if (!first) throw invalidRequest('A subscription must have at least one active item.', { param })
    for (const { price } of items) {
      if (price.currency !== first.currency) {
        throw invalidRequest('All prices on a subscription must have the same `currency`.', { param })
      }
      const a = intervalOf(price)
      const b = intervalOf(first)
      if (a.interval !== b.interval || a.count !== b.count) {
        throw invalidRequest(
          'All prices on a subscription must have the same `recurring.interval` and `recurring.interval_count`.',
          { param },
        )
      }
    }
  }

  // ---- Discounts on a subscription ----

  private discountsOf(sub: Stripe.Subscription): Stripe.Discount[] {
    return sub.discounts
      .map((id) => this.discounts.discount(typeof id === 'string' ? id : id.id))
      .filter((d): d is Stripe.Discount => d !== undefined)
  }

  /** The subscription's discounts that apply to an invoice created at `at`. */
  applicableDiscounts(sub: Stripe.Subscription, at: number): Stripe.Discount[] {
    const used = new Set(this.state(sub).usedOnce)
    return this.discountsOf(sub).filter((d) => this.discounts.activeAt(d, at) && !used.has(d.id))
  }

  /** Removes discounts that ran out (`repeating`) or were used (`once`), as Stripe does at renewal. */
  private pruneDiscounts(sub: Stripe.Subscription, at: number): void {
    const used = new Set(this.state(sub).usedOnce)
    const keep: string[] = []
    for (const discount of this.discountsOf(sub)) {
      if (used.has(discount.id) || (discount.end !== null && at >= discount.end))
        this.discounts.retire(discount)
      else keep.push(discount.id)
    }
    sub.discounts = keep
  }

  /** A `once` discount is spent by the first invoice with something to discount. */
  private spendOnceDiscounts(sub: Stripe.Subscription, invoice: Stripe.Invoice): void {
    if (invoice.subtotal <= 0) return
    const state = this.state(sub)
    for (const id of invoice.discounts) {
      const discount = this.discounts.discount(id as string)
      if (
        discount &&
        this.discounts.couponOf(discount).duration === 'once' &&
        !state.usedOnce.includes(discount.id)
      ) {
        state.usedOnce.push(discount.id)
      }
    }
  }

  // ---- Create ----

  private parseItems(
    list: Params[],
  ): Array<{ price: Stripe.Price; quantity: number; metadata: Record<string, string> }> {
    return list.map((item) => {
      const priceId = item.str('price')
      if (!priceId) throw missingParam(item.name('price'))
      const price = this.recurringPrice(priceId, item.name('price'))
      const quantity = item.int('quantity') ?? 1
      if (quantity < 1) throw invalidRequest('Invalid positive integer', { param: item.name('quantity') })
      const metadata = item.metadata() ?? {}
      item.rejectUnknown()
      return { price, quantity, metadata }
    })
  }

  /** `trial_end` (timestamp or `now`), `trial_period_days` or `trial_from_plan`: when the trial ends, if any. */
  private trialEndFrom(params: Params, prices: Stripe.Price[], now: number): number | null {
    const raw = params.str('trial_end')
    const days = params.int('trial_period_days')
    const fromPlan = params.bool('trial_from_plan') ?? false
    if (raw !== undefined && days !== undefined) {
      throw invalidRequest('You may only specify one of these parameters: trial_end, trial_period_days.', {
        param: 'trial_end',
        code: 'parameters_exclusive',
      })
    }
    let end: number | null = null
    if (raw === 'now') end = null
    else if (raw !== undefined) end = params.int('trial_end') ?? null
    else if (days !== undefined) {
      if (days < 0) throw invalidRequest('Invalid non-negative integer', { param: 'trial_period_days' })
      end = days === 0 ? null : now + days * DAY
    } else if (fromPlan) {
      const planDays = prices[0]?.recurring?.trial_period_days
      end = planDays ? now + planDays * DAY : null
    }
    if (end !== null) {
      if (end <= now) {
        throw invalidRequest('Invalid timestamp: must be an integer Unix timestamp in the future.', {
          param: 'trial_end',
        })
      }
      if (end > now + MAX_TRIAL_SECONDS) {
        throw invalidRequest('Invalid timestamp: can be no more than two years in the future.', {
          param: 'trial_end',
        })
      }
    }
    return end
  }

  private trialSettingsFrom(params: Params): Stripe.Subscription.TrialSettings | undefined {
    const settings = params.obj('trial_settings')
    if (!settings) return undefined
    const endBehavior = settings.obj('end_behavior')
    const missing = endBehavior?.oneOf('missing_payment_method', [
      'cancel',
      'create_invoice',
      'pause',
    ] as const)
    endBehavior?.rejectUnknown()
    settings.rejectUnknown()
    return {
      end_behavior: { billing_cycle_anchor: null, missing_payment_method: missing ?? 'create_invoice' },
    }
  }

  createSubscription(params: Params, request: ApiRequest): Stripe.Subscription {
    const customer = this.catalog.customer(params.requireStr('customer'), 'customer')
    const itemParams = params.objList('items')
    if (!itemParams || itemParams.length === 0) throw missingParam('items')
    const id = newId('sub')
    const items = this.parseItems(itemParams)
    this.checkItemsCompatible(items, 'items')
    const first = items[0]?.price as Stripe.Price
    const behaviour = params.str('payment_behavior') ?? 'allow_incomplete'
    if (behaviour !== 'allow_incomplete' && behaviour !== 'default_incomplete') {
      throw invalidRequest(
        `The emulator creates subscriptions with payment_behavior=allow_incomplete or default_incomplete, not ${behaviour}.`,
        { param: 'payment_behavior' },
      )
    }
    const paymentSettings = params.obj('payment_settings')
    const saveDefault =
      paymentSettings?.oneOf('save_default_payment_method', ['on_subscription', 'off'] as const) ?? 'off'
    const pmTypes = paymentSettings?.strList('payment_method_types')
    if (pmTypes?.some((type) => type !== 'card')) {
      throw invalidRequest('The emulator only supports the card payment method type.', {
        param: 'payment_settings[payment_method_types]',
      })
    }
    paymentSettings?.rejectUnknown()
    const defaultPm = params.str('default_payment_method')
    if (defaultPm) this.payments.attachedPaymentMethod(customer.id, defaultPm, 'default_payment_method')
    const collection =
      params.oneOf('collection_method', ['charge_automatically'] as const) ?? 'charge_automatically'
    const metadata = params.metadata() ?? {}
    const description = params.nullableStr('description') ?? null
    const cancelAtPeriodEnd = params.bool('cancel_at_period_end') ?? false
    const offSession = params.bool('off_session') ?? false
    const now = this.env.clock.now()
    const trialEnd = this.trialEndFrom(
      params,
      items.map((i) => i.price),
      now,
    )
    const trialSettings = this.trialSettingsFrom(params)
    const subtotal = items.reduce((sum, i) => sum + (i.price.unit_amount ?? 0) * i.quantity, 0)
    const redeemables = this.discounts.resolve(params.objList('discounts'), {
      customerId: customer.id,
      subtotal,
      currency: first.currency,
    })
    params.rejectUnknown(['proration_behavior'])

    const sub: Stripe.Subscription = {
      id,
      object: 'subscription',
      application: null,
      application_fee_percent: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: trialEnd ?? now,
      billing_cycle_anchor_config: null,
      billing_mode: { flexible: { proration_discounts: 'included' }, type: 'flexible', updated_at: now },
      billing_schedules: [],
      billing_thresholds: null,
      cancel_at: null,
      cancel_at_period_end: false,
      canceled_at: null,
      cancellation_details: { comment: null, feedback: null, feedback_option: null, reason: null },
      collection_method: collection,
      created: now,
      currency: first.currency,
      customer: customer.id,
      customer_account: null,
      days_until_due: null,
      default_payment_method: defaultPm ?? null,
      default_source: null,
      default_tax_rates: [],
      description,
      discounts: [],
      ended_at: null,
      invoice_settings: {
        account_tax_ids: null,
        custom_fields: null,
        description: null,
        footer: null,
        issuer: { type: 'self' },
      },
      items: {
        object: 'list',
        data: items.map((item) => this.newItem(id, item.price, item.quantity, item.metadata)),
        has_more: false,
        url: `/v1/subscription_items?subscription=${id}`,
      },
      latest_invoice: null,
      livemode: false,
      managed_payments: null,
      metadata,
      next_pending_invoice_item_invoice: null,
      on_behalf_of: null,
      pause_collection: null,
      payment_settings: {
        payment_method_options: null,
        payment_method_types:
          (pmTypes as Stripe.Subscription.PaymentSettings.PaymentMethodType[] | undefined) ?? null,
        save_default_payment_method: saveDefault,
      },
      pending_invoice_item_interval: null,
      pending_setup_intent: null,
      pending_update: null,
      schedule: null,
      start_date: now,
      status: trialEnd !== null ? 'trialing' : 'incomplete',
      test_clock: customer.test_clock ?? null,
      transfer_data: null,
      trial_end: trialEnd,
      trial_settings: trialSettings ?? {
        end_behavior: { billing_cycle_anchor: null, missing_payment_method: 'create_invoice' },
      },
      trial_start: trialEnd !== null ? now : null,
    }
    ;(sub.items as unknown as { total_count: number }).total_count = sub.items.data.length
    this.env.store.subscriptions.set(id, sub)
    this.env.store.subscriptionState.set(id, newState(trialEnd ?? now))
    this.applyPeriod(sub)
    if (cancelAtPeriodEnd) this.setCancelAtPeriodEnd(sub, true)
    sub.discounts = this.discounts
      .grant(redeemables, { customer: customer.id, subscription: id })
      .map((d) => d.id)

    const period = { start: now, end: this.periodEnd(sub) }
    const lines = sub.items.data.map((item) =>
      trialEnd !== null ? this.invoices.trialLine(item, period) : this.invoices.periodLine(item, period),
    )
    const invoice = this.invoices.build({
      sub,
      reason: 'subscription_create',
      periodStart: now,
      periodEnd: now,
      lines,
      discounts: this.applicableDiscounts(sub, now),
    })
    this.recordDebits(sub, invoice, period)
    this.spendOnceDiscounts(sub, invoice)
    sub.latest_invoice = invoice.id
    this.env.events.emit('customer.subscription.created', sub)
    this.env.events.emit('invoice.created', invoice)
    if (trialEnd !== null) this.maybeTrialWillEnd(sub)
    const pi = this.invoices.finalize(invoice, sub)
    if (!pi && behaviour === 'default_incomplete') {
      // Nothing to pay now (a trial, a 100% discount): Stripe hands out a SetupIntent instead, so the
      // page can still collect the card for later charges.
      const si = this.setupIntents.createForSubscription(customer.id)
      sub.pending_setup_intent = si.id
    }
    if (pi && behaviour === 'allow_incomplete') {
      const pm = this.invoices.defaultPaymentMethod(sub)
      if (pm) {
        pi.payment_method = pm.id
        this.payments.confirmResolved(pi, {
          offSession,
          origin: request.origin,
          auth: 'secret',
          useStripeSdk: false,
        })
      }
    }
    return sub
  }

  private recordDebits(
    sub: Stripe.Subscription,
    invoice: Stripe.Invoice,
    period: { start: number; end: number },
  ) {
    const state = this.state(sub)
    for (const [itemId, amount] of this.invoices.netByItem(invoice)) {
      state.debits[itemId] = { amount, start: period.start, end: period.end }
    }
  }

  private maybeTrialWillEnd(sub: Stripe.Subscription): void {
    const state = this.state(sub)
    if (sub.status !== 'trialing' || sub.trial_end === null || state.trialWillEndFor === sub.trial_end) return
    // A trial shorter than three days announces its end at once, as Stripe does.
    if (sub.trial_end - TRIAL_WILL_END_SECONDS <= this.env.clock.now()) {
      state.trialWillEndFor = sub.trial_end
      this.env.events.emit('customer.subscription.trial_will_end', sub)
    }
  }

  // ---- Update ----

  private setCancelAtPeriodEnd(sub: Stripe.Subscription, cancel: boolean): void {
    sub.cancel_at_period_end = cancel
    sub.cancel_at = cancel ? this.periodEnd(sub) : null
    sub.canceled_at = cancel ? this.env.clock.now() : null
    sub.cancellation_details = {
      comment: sub.cancellation_details?.comment ?? null,
      feedback: sub.cancellation_details?.feedback ?? null,
      feedback_option: null,
      reason: cancel ? 'cancellation_requested' : null,
    }
  }

  /** The item changes of `items[]` in an update (swap a price, change a quantity, add or delete an item). */
  private parseItemChanges(list: Params[] | undefined): ItemChange[] {
    if (!list) return []
    return list.map((entry) => {
      const id = entry.str('id')
      const deleted = entry.bool('deleted') ?? false
      const priceId = entry.str('price')
      const quantity = entry.int('quantity')
      const metadata = entry.obj('metadata') ? entry.metadata() : undefined
      entry.rejectUnknown(['clear_usage', 'discounts', 'tax_rates'])
      if (!id && !priceId) throw missingParam(entry.name('price'))
      if (quantity !== undefined && quantity < 1 && !deleted) {
        throw invalidRequest('Invalid positive integer', { param: entry.name('quantity') })
      }
      const change: ItemChange = { deleted }
      if (id) change.id = id
      if (priceId) change.price = this.recurringPrice(priceId, entry.name('price'))
      if (quantity !== undefined) change.quantity = quantity
      if (metadata) change.metadata = metadata
      return change
    })
  }

  /** Reads the plan-change parameters shared by updates and previews. */
  changeRequestFrom(
    sub: Stripe.Subscription,
    params: Params,
    now: number,
  ): { request: ChangeRequest; touched: boolean } {
    const items = this.parseItemChanges(params.objList('items'))
    const prorationBehavior = params.oneOf('proration_behavior', PRORATION_BEHAVIORS) ?? 'create_prorations'
    const prorationDate = params.int('proration_date')
    const anchor = anchorFrom(params)
    const trialRaw = params.str('trial_end')
    let trialEnd: 'now' | number | undefined
    if (trialRaw === 'now') trialEnd = 'now'
    else if (trialRaw !== undefined) {
      trialEnd = params.int('trial_end') as number
      if (trialEnd <= now) {
        throw invalidRequest('Invalid timestamp: must be an integer Unix timestamp in the future.', {
          param: 'trial_end',
        })
      }
    }
    if (prorationDate !== undefined) {
      const start = this.periodStart(sub)
      const end = this.periodEnd(sub)
      if (prorationDate < start || prorationDate > end) {
        throw invalidRequest(
          'The proration_date must be within the current billing period of the subscription.',
          {
            param: 'proration_date',
          },
        )
      }
    }
    const request: ChangeRequest = {
      items,
      prorationBehavior,
      prorationDate: prorationDate ?? now,
      anchorNow: anchor === 'now',
      ...(trialEnd !== undefined ? { trialEnd } : {}),
    }
    return { request, touched: items.length > 0 || anchor === 'now' || trialEnd !== undefined }
  }

  /**
   * What a change does, by Stripe's rules for flexible billing mode: an item that changes is
   * credited for its unused time from what was debited for it (prorated by the second), the new
   * price is debited for the remaining time (with the subscription's discounts folded in), unless
   * the billing cycle restarts (new interval, `billing_cycle_anchor=now`, a trial starting or
   * ending), in which case the new period is billed in full from now.
   */
  computePlan(sub: Stripe.Subscription, request: ChangeRequest, at: number): Plan {
    const state = this.state(sub)
    const items = structuredClone(sub.items.data)
    for (const change of request.items) {
      if (change.id) {
        const item = items.find((candidate) => candidate.id === change.id)
        if (!item) throw noSuch('subscription_item', change.id, 'items')
        if (change.deleted) {
          items.splice(items.indexOf(item), 1)
          continue
        }
        if (change.price && change.price.id !== item.price.id) {
          item.price = structuredClone(change.price)
          item.plan = this.planOf(change.price)
        }
        if (change.quantity !== undefined) item.quantity = change.quantity
        if (change.metadata) item.metadata = change.metadata
      } else if (change.price) {
        const item = this.newItem(sub.id, change.price, change.quantity ?? 1, change.metadata ?? {})
        item.current_period_start = this.periodStart(sub)
        item.current_period_end = this.periodEnd(sub)
        items.push(item)
      }
    }
    this.checkItemsCompatible(items, 'items')

    const trialing = sub.status === 'trialing'
    const intervalChanged =
      JSON.stringify(intervalOf(items[0]?.price as Stripe.Price)) !==
      JSON.stringify(intervalOf((sub.items.data[0] as Stripe.SubscriptionItem).price))
    let anchor: number | null = null
    let trial: Plan['trial']
    if (request.trialEnd === 'now') {
      if (trialing) {
        trial = null
        anchor = at
      }
    } else if (typeof request.trialEnd === 'number') {
      trial = { start: trialing ? (sub.trial_start ?? at) : at, end: request.trialEnd }
      anchor = request.trialEnd
    }
    if (anchor === null && !trialing && (request.anchorNow || intervalChanged)) anchor = at

    const prorations: LineDraft[] = []
    const debits = { ...state.debits }
    const periodStart = this.periodStart(sub)
    const periodEnd = this.periodEnd(sub)
    const t = Math.min(Math.max(request.prorationDate, periodStart), periodEnd)
    const unchanged = (item: Stripe.SubscriptionItem) => {
      const old = sub.items.data.find((candidate) => candidate.id === item.id)
      return (
        old !== undefined && old.price.id === item.price.id && (old.quantity ?? 1) === (item.quantity ?? 1)
      )
    }
    if (!trialing && request.prorationBehavior !== 'none') {
      for (const old of sub.items.data) {
        const next = items.find((candidate) => candidate.id === old.id)
        if (next && unchanged(next) && anchor === null) continue
        const debit = state.debits[old.id] ?? {
          amount: (old.price.unit_amount ?? 0) * (old.quantity ?? 1),
          start: periodStart,
          end: periodEnd,
        }
        if (t >= debit.end || debit.end <= debit.start) continue
        const credit = -Math.round((debit.amount * (debit.end - t)) / (debit.end - debit.start))
        if (credit === 0) continue
        prorations.push({
          item: structuredClone(old),
          amount: credit,
          description: `Unused time on ${old.quantity ?? 1} × ${this.invoices.productName(old)} after ${formatDate(t)}`,
          period: { start: t, end: debit.end },
          proration: true,
          includedDiscounts: [],
          invoiceItem: null,
        })
      }
      if (anchor === null && periodEnd > periodStart) {
        const fraction = (periodEnd - t) / (periodEnd - periodStart)
        const discounts = this.applicableDiscounts(sub, at)
        for (const item of items) {
          if (unchanged(item)) continue
          const full = (item.price.unit_amount ?? 0) * (item.quantity ?? 1)
          const gross = Math.round(full * fraction)
          const [fullDiscounts = []] = this.discounts.amounts(
            [{ amount: full, product: item.price.product as string, discountable: true }],
            discounts,
          )
          const included = fullDiscounts
            .map((d) => ({ amount: Math.round(d.amount * fraction), discount: d.discount }))
            .filter((d) => d.amount > 0)
          const net = gross - included.reduce((sum, d) => sum + d.amount, 0)
          debits[item.id] = { amount: net, start: t, end: periodEnd }
          if (net === 0) continue
          prorations.push({
            item: structuredClone(item),
            amount: net,
            description: `Remaining time on ${item.quantity ?? 1} × ${this.invoices.productName(item)} after ${formatDate(t)}`,
            period: { start: t, end: periodEnd },
            proration: true,
            includedDiscounts: included,
            invoiceItem: null,
          })
        }
      }
    }
    for (const id of Object.keys(debits)) {
      if (!items.some((item) => item.id === id)) delete debits[id]
    }
    const restartsNow = anchor !== null && anchor <= at
    return {
      items,
      anchor,
      trial,
      prorations,
      invoiceNow: restartsNow || (request.prorationBehavior === 'always_invoice' && prorations.length > 0),
      debits,
      prorationBehavior: request.prorationBehavior,
    }
  }

  /** The lines of the invoice a plan creates at once. */
  private planLines(
    sub: Stripe.Subscription,
    plan: Plan,
    at: number,
  ): { lines: LineDraft[]; period: { start: number; end: number } } {
    const lines = [
      ...plan.prorations,
      ...this.invoices.pendingItems(sub.id).map((ii) => this.invoices.lineFromPendingItem(ii, sub)),
    ]
    let period = { start: at, end: at }
    if (plan.anchor !== null && plan.anchor <= at) {
      const { interval, count } = intervalOf((plan.items[0] as Stripe.SubscriptionItem).price)
      period = { start: at, end: periodBoundary(at, interval, count, 1) }
      for (const item of plan.items) lines.push(this.invoices.periodLine(item, period))
    }
    return { lines, period }
  }

  /** Puts a plan into effect on the subscription (items, cycle, trial, what each item was debited). */
  private applyPlan(sub: Stripe.Subscription, plan: Plan, at: number): void {
    const state = this.state(sub)
    this.setItems(sub, plan.items)
    if (plan.trial === null) {
      sub.status = 'active'
      sub.trial_end = at
    } else if (plan.trial) {
      sub.status = 'trialing'
      sub.trial_start = plan.trial.start
      sub.trial_end = plan.trial.end
      state.trialWillEndFor = null
    }
    if (plan.anchor !== null) {
      state.anchor = plan.anchor
      state.cycle = 0
      sub.billing_cycle_anchor = plan.anchor
    }
    this.applyPeriod(sub)
    if (sub.cancel_at_period_end) sub.cancel_at = this.periodEnd(sub)
    state.debits = plan.debits
  }

  /** Invoices a plan at once (or turns its prorations into pending items) and applies it. */
  private carryOut(
    sub: Stripe.Subscription,
    plan: Plan,
    options: {
      paymentBehavior: PaymentBehavior
      offSession: boolean
      origin: string
      before: Stripe.Subscription
    },
  ): void {
    const at = this.env.clock.now()
    const state = this.state(sub)
    if (!plan.invoiceNow) {
      this.applyPlan(sub, plan, at)
      if (plan.prorationBehavior === 'create_prorations') {
        for (const line of plan.prorations) this.invoices.addPendingItem(sub, line)
      }
      this.emitUpdated(options.before, sub)
      this.maybeTrialWillEnd(sub)
      return
    }
    const { lines, period } = this.planLines(sub, plan, at)
    const draftFor = (s: Stripe.Subscription) =>
      this.invoices.build({
        sub: s,
        reason: 'subscription_update',
        periodStart: at,
        periodEnd: at,
        lines,
        discounts: this.applicableDiscounts(s, at),
      })

    if (options.paymentBehavior === 'pending_if_incomplete') {
      // The change waits for its invoice: applied when paid (now or later), dropped if it expires.
      const invoice = draftFor(sub)
      const debits = { ...plan.debits }
      for (const [itemId, amount] of this.invoices.netByItem(invoice)) debits[itemId] = { amount, ...period }
      state.pending = { invoiceId: invoice.id, items: plan.items, anchor: plan.anchor, debits, inline: true }
      sub.latest_invoice = invoice.id
      this.env.events.emit('invoice.created', invoice)
      this.spendOnceDiscounts(sub, invoice)
      const outcome = this.invoices.collect(invoice, sub, {
        offSession: options.offSession,
        origin: options.origin,
      })
      if (outcome === 'paid') {
        this.emitUpdated(options.before, sub)
        return
      }
      state.pending.inline = false
      sub.pending_update = {
        billing_cycle_anchor: plan.anchor,
        cancel_at_period_end: null,
        discount: null,
        discounts: null,
        expires_at: at + PENDING_UPDATE_SECONDS,
        metadata: null,
        subscription_items: structuredClone(plan.items),
        trial_end: plan.trial === undefined ? null : (plan.trial?.end ?? at),
        trial_from_plan: null,
      }
      this.emitUpdated(options.before, sub)
      return
    }

    const rollback = { sub: structuredClone(sub), state: structuredClone(state) }
    this.applyPlan(sub, plan, at)
    const invoice = draftFor(sub)
    this.recordDebits(sub, invoice, period)
    this.spendOnceDiscounts(sub, invoice)
    sub.latest_invoice = invoice.id
    if (options.paymentBehavior !== 'error_if_incomplete') this.emitUpdated(options.before, sub)
    this.env.events.emit('invoice.created', invoice)

    if (options.paymentBehavior === 'default_incomplete') {
      // Finalised, not charged: the page confirms the invoice's PaymentIntent.
      const pi = this.invoices.finalize(invoice, sub)
      if (pi && sub.status === 'active') this.setStatus(sub, 'past_due')
      return
    }
    if (options.paymentBehavior === 'error_if_incomplete') this.tentative.add(sub.id)
    let outcome: CollectOutcome
    try {
      outcome = this.invoices.collect(invoice, sub, {
        offSession: options.offSession,
        origin: options.origin,
      })
    } finally {
      this.tentative.delete(sub.id)
    }
    if (options.paymentBehavior === 'allow_incomplete' || outcome === 'paid') {
      if (options.paymentBehavior === 'error_if_incomplete') this.emitUpdated(options.before, sub)
      return
    }
    // error_if_incomplete: nothing changes when the invoice cannot be paid now.
    const pi = this.invoices.paymentIntentOf(invoice)
    const lastError = pi?.last_payment_error
    const failed =
      lastError && pi
        ? { decline: declineOf(lastError), chargeId: String(pi.latest_charge ?? '') }
        : undefined
    this.invoices.voidInvoice(invoice)
    for (const ii of this.env.store.invoiceItems.values()) if (ii.invoice === invoice.id) ii.invoice = null
    Object.assign(sub, rollback.sub)
    Object.assign(state, rollback.state)
    if (failed && pi) throw this.payments.declineError(pi, failed, 'secret')
    throw new StripeApiError(402, {
      type: 'card_error',
      code:
        outcome === 'requires_action'
          ? 'invoice_payment_intent_requires_action'
          : 'invoice_no_customer_payment_method',
      message:
        outcome === 'requires_action'
          ? 'This payment requires additional user action before it can be completed successfully.'
          : 'This customer has no attached payment source or default payment method.',
    })
  }

  updateSubscription(sub: Stripe.Subscription, params: Params, request: ApiRequest): Stripe.Subscription {
    const before = structuredClone(sub)
    const ended = sub.status === 'canceled' || sub.status === 'incomplete_expired'
    if (
      ended &&
      Object.keys(params.raw).some((key) => !['metadata', 'cancellation_details', 'expand'].includes(key))
    ) {
      throw invalidRequest('A canceled subscription can only update its cancellation_details and metadata.')
    }
    const paymentBehavior = params.oneOf('payment_behavior', PAYMENT_BEHAVIORS) ?? 'allow_incomplete'
    if (paymentBehavior === 'pending_if_incomplete') {
      const extra = Object.keys(params.raw).find((key) => !PENDING_UPDATE_PARAMS.includes(key))
      if (extra) {
        throw invalidRequest(
          `When \`payment_behavior\` is \`pending_if_incomplete\`, you can only pass the parameters supported by pending updates. \`${extra}\` is not supported.`,
          { param: extra },
        )
      }
    }
    if (sub.schedule && (params.has('cancel_at_period_end') || params.has('cancel_at'))) {
      throw invalidRequest(
        `The subscription is managed by the subscription schedule \`${String(sub.schedule)}\`, and updating any cancelation behavior directly is not allowed. Please update the schedule instead.`,
      )
    }
    const metadata = params.metadata(sub.metadata)
    const details = params.obj('cancellation_details')
    const comment = details?.nullableStr('comment')
    const feedback = details?.str('feedback')
    details?.rejectUnknown()
    const cancelAtPeriodEnd = params.bool('cancel_at_period_end')
    const cancelAtGiven = params.has('cancel_at')
    const cancelAt = params.int('cancel_at')
    const defaultPm = params.nullableStr('default_payment_method')
    const description = params.nullableStr('description')
    const paymentSettings = params.obj('payment_settings')
    const saveDefault = paymentSettings?.oneOf('save_default_payment_method', [
      'on_subscription',
      'off',
    ] as const)
    paymentSettings?.rejectUnknown(['payment_method_types'])
    const pause = this.pauseFrom(params)
    const trialSettings = this.trialSettingsFrom(params)
    const offSession = params.bool('off_session') ?? false
    const now = this.env.clock.now()
    const { request: change, touched } = ended
      ? { request: undefined, touched: false }
      : this.changeRequestFrom(sub, params, now)
    const discountParams = params.has('discounts') ? params.objList('discounts') : undefined
    const replaceDiscounts = params.has('discounts')
    const redeemables: Redeemable[] = replaceDiscounts
      ? this.discounts.resolve(discountParams, { customerId: sub.customer as string, currency: sub.currency })
      : []
    params.rejectUnknown(['payment_behavior'])

    if (metadata) sub.metadata = metadata
    if (cancelAtPeriodEnd !== undefined) this.setCancelAtPeriodEnd(sub, cancelAtPeriodEnd)
    if (cancelAtGiven) {
      sub.cancel_at = cancelAt ?? null
      sub.cancel_at_period_end = false
      sub.canceled_at = cancelAt ? now : null
    }
    if (comment !== undefined || feedback !== undefined) {
      sub.cancellation_details = {
        comment: comment !== undefined ? comment : (sub.cancellation_details?.comment ?? null),
        feedback:
          (feedback as Stripe.Subscription.CancellationDetails.Feedback | undefined) ??
          sub.cancellation_details?.feedback ??
          null,
        feedback_option: null,
        reason: sub.cancellation_details?.reason ?? null,
      }
    }
    if (defaultPm !== undefined) {
      sub.default_payment_method =
        defaultPm === null
          ? null
          : this.payments.attachedPaymentMethod(sub.customer as string, defaultPm, 'default_payment_method')
              .id
    }
    if (description !== undefined) sub.description = description
    if (saveDefault && sub.payment_settings) sub.payment_settings.save_default_payment_method = saveDefault
    if (pause !== undefined) sub.pause_collection = pause
    if (trialSettings) sub.trial_settings = trialSettings
    if (replaceDiscounts) {
      for (const discount of this.discountsOf(sub)) this.discounts.retire(discount)
      sub.discounts = this.discounts
        .grant(redeemables, { customer: sub.customer as string, subscription: sub.id })
        .map((d) => d.id)
    }

    if (change && touched) {
      if (sub.pending_update) {
        throw invalidRequest(
          'This subscription has a pending update. Pay or void its latest invoice before making another change.',
        )
      }
      const plan = this.computePlan(sub, change, now)
      this.carryOut(sub, plan, { paymentBehavior, offSession, origin: request.origin, before })
      return sub
    }
    this.emitUpdated(before, sub)
    return sub
  }

  private pauseFrom(params: Params): Stripe.Subscription.PauseCollection | null | undefined {
    if (!params.has('pause_collection')) return undefined
    if (params.raw.pause_collection === '') return null
    const pause = params.obj('pause_collection')
    if (!pause) return undefined
    const behavior = pause.oneOf('behavior', ['keep_as_draft', 'mark_uncollectible', 'void'] as const)
    if (!behavior) throw missingParam('pause_collection[behavior]')
    const resumesAt = pause.int('resumes_at')
    pause.rejectUnknown()
    if (resumesAt !== undefined && resumesAt <= this.env.clock.now()) {
      throw invalidRequest('Invalid timestamp: must be an integer Unix timestamp in the future.', {
        param: 'pause_collection[resumes_at]',
      })
    }
    return { behavior, resumes_at: resumesAt ?? null }
  }

  emitUpdated(before: Stripe.Subscription, sub: Stripe.Subscription): void {
    const previous = changedFields(before, sub, Object.keys(sub))
    if (Object.keys(previous).length > 0) this.env.events.emit('customer.subscription.updated', sub, previous)
  }

  private setStatus(sub: Stripe.Subscription, status: Stripe.Subscription.Status): void {
    if (sub.status === status) return
    const before = structuredClone(sub)
    sub.status = status
    this.env.events.emit('customer.subscription.updated', sub, changedFields(before, sub, ['status']))
  }

  /**
   * Switches the items at a schedule phase boundary in the middle of a period, with the phase's
   * proration behaviour (a boundary at the period end is taken by the renewal instead).
   */
  applyPhase(
    sub: Stripe.Subscription,
    items: Array<{ price: Stripe.Price; quantity: number }>,
    prorationBehavior: ProrationBehavior,
  ): void {
    const current = sub.items.data
    const changes: ItemChange[] = items.map((item, index) => {
      const existing = current[index]
      return existing ? { id: existing.id, price: item.price, quantity: item.quantity } : item
    })
    for (const extra of current.slice(items.length)) changes.push({ id: extra.id, deleted: true })
    const now = this.env.clock.now()
    const before = structuredClone(sub)
    const plan = this.computePlan(
      sub,
      { items: changes, prorationBehavior, prorationDate: now, anchorNow: false },
      now,
    )
    this.carryOut(sub, plan, { paymentBehavior: 'allow_incomplete', offSession: true, origin: '', before })
  }

  // ---- Cancel and end ----

  cancelSubscription(sub: Stripe.Subscription, params: Params): Stripe.Subscription {
    const details = params.obj('cancellation_details')
    const comment = details?.nullableStr('comment')
    const feedback = details?.str('feedback')
    details?.rejectUnknown()
    params.rejectUnknown(['invoice_now', 'prorate'])
    if (sub.status === 'canceled' || sub.status === 'incomplete_expired') {
      throw invalidRequest(`No such subscription: '${sub.id}'`, {
        code: 'resource_missing',
        status: 404,
        param: 'id',
      })
    }
    this.end(sub, this.env.clock.now(), 'canceled', {
      comment: comment ?? null,
      feedback: (feedback as Stripe.Subscription.CancellationDetails.Feedback | undefined) ?? null,
      reason: 'cancellation_requested',
    })
    return sub
  }

  end(
    sub: Stripe.Subscription,
    at: number,
    status: 'canceled' | 'incomplete_expired',
    details: {
      comment: string | null
      feedback: Stripe.Subscription.CancellationDetails.Feedback | null
      reason: Stripe.Subscription.CancellationDetails.Reason | null
    },
  ): void {
    const before = structuredClone(sub)
    const state = this.state(sub)
    sub.status = status
    sub.ended_at = at
    sub.canceled_at = sub.canceled_at ?? at
    sub.cancellation_details = { ...details, feedback_option: null }
    sub.pending_update = null
    state.pending = null
    // An unfinished first invoice is voided with its PaymentIntent, so nobody can still pay it.
    for (const invoice of this.env.store.invoices.values()) {
      if (invoice.status !== 'open' || invoice.parent?.subscription_details?.subscription !== sub.id) continue
      if (invoice.billing_reason !== 'subscription_create') continue
      this.invoices.voidInvoice(invoice)
    }
    this.env.events.emit(
      'customer.subscription.deleted',
      sub,
      changedFields(before, sub, [
        'status',
        'ended_at',
        'canceled_at',
        'cancellation_details',
        'pending_update',
      ]),
    )
    this.onEnded(sub)
  }

  failNextRenewal(subId: string): void {
    this.state(this.subscription(subId)).failNextRenewal = true
  }

  // ---- Resume (status=paused) ----

  resume(sub: Stripe.Subscription, params: Params, request: ApiRequest): Stripe.Subscription {
    const anchor = anchorFrom(params) ?? 'now'
    const paymentBehavior =
      params.oneOf('payment_behavior', ['resume_on_payment_attempt', 'resume_on_payment_success'] as const) ??
      'resume_on_payment_attempt'
    params.oneOf('proration_behavior', PRORATION_BEHAVIORS)
    params.int('proration_date')
    params.rejectUnknown()
    if (sub.status !== 'paused') {
      throw invalidRequest('Only a subscription with status `paused` can be resumed.')
    }
    if (anchor !== 'now') {
      throw invalidRequest(
        'The emulator resumes paused subscriptions with billing_cycle_anchor[type]=now only.',
        {
          param: 'billing_cycle_anchor',
        },
      )
    }
    const now = this.env.clock.now()
    const state = this.state(sub)
    state.anchor = now
    state.cycle = 0
    const before = structuredClone(sub)
    sub.billing_cycle_anchor = now
    this.applyPeriod(sub)
    const period = { start: now, end: this.periodEnd(sub) }
    const invoice = this.invoices.build({
      sub,
      reason: 'subscription_update',
      periodStart: now,
      periodEnd: now,
      lines: sub.items.data.map((item) => this.invoices.periodLine(item, period)),
      discounts: this.applicableDiscounts(sub, now),
    })
    this.recordDebits(sub, invoice, period)
    this.spendOnceDiscounts(sub, invoice)
    sub.latest_invoice = invoice.id
    this.emitUpdated(before, sub)
    this.env.events.emit('invoice.created', invoice)
    const outcome = this.invoices.collect(invoice, sub, { offSession: false, origin: request.origin })
    // resume_on_payment_attempt: active after the attempt, past_due when it did not go through.
    if (paymentBehavior === 'resume_on_payment_attempt' && sub.status === 'paused') {
      this.markResumed(sub)
      if (outcome !== 'paid') this.setStatus(sub, 'past_due')
    }
    return sub
  }

  private markResumed(sub: Stripe.Subscription): void {
    const before = structuredClone(sub)
    sub.status = 'active'
    delete sub.status_details
    this.env.events.emit('customer.subscription.resumed', sub, changedFields(before, sub, ['status']))
  }

  // ---- Invoice and SetupIntent outcomes ----

  private invoicePaid(invoice: Stripe.Invoice, pm: Stripe.PaymentMethod | undefined): void {
    const sub = this.invoices.subscriptionOf(invoice)
    if (!sub) return
    const state = this.state(sub)
    const subBefore = structuredClone(sub)
    if (pm && sub.payment_settings?.save_default_payment_method === 'on_subscription') {
      sub.default_payment_method = pm.id
    }
    if (state.pending?.invoiceId === invoice.id) {
      const pending = state.pending
      this.setItems(sub, pending.items)
      if (pending.anchor !== null) {
        state.anchor = pending.anchor
        state.cycle = 0
        sub.billing_cycle_anchor = pending.anchor
      }
      this.applyPeriod(sub)
      if (sub.cancel_at_period_end) sub.cancel_at = this.periodEnd(sub)
      state.debits = pending.debits
      state.pending = null
      sub.pending_update = null
      if (!pending.inline) {
        this.emitUpdated(subBefore, sub)
        this.env.events.emit('customer.subscription.pending_update_applied', sub)
      }
      return
    }
    if (sub.status === 'paused' && invoice.id === sub.latest_invoice) {
      this.markResumed(sub)
      return
    }
    const stillOpen = [...this.env.store.invoices.values()].some(
      (other) => other.status === 'open' && other.parent?.subscription_details?.subscription === sub.id,
    )
    // Like Stripe, the subscription follows its latest invoice: paying it clears past_due.
    if (
      (sub.status === 'incomplete' || sub.status === 'past_due') &&
      (!stillOpen || sub.latest_invoice === invoice.id)
    ) {
      sub.status = 'active'
    }
    const subPrevious = changedFields(subBefore, sub, ['status', 'default_payment_method'])
    if (Object.keys(subPrevious).length > 0)
      this.env.events.emit('customer.subscription.updated', sub, subPrevious)
  }

  private invoicePaymentFailed(invoice: Stripe.Invoice): void {
    const sub = this.invoices.subscriptionOf(invoice)
    if (!sub || invoice.billing_reason === 'subscription_create' || this.tentative.has(sub.id)) return
    if (this.state(sub).pending?.invoiceId === invoice.id) return
    if (sub.status === 'active') this.setStatus(sub, 'past_due')
  }

  private invoiceActionRequired(invoice: Stripe.Invoice): void {
    const sub = this.invoices.subscriptionOf(invoice)
    if (!sub || invoice.billing_reason === 'subscription_create' || this.tentative.has(sub.id)) return
    if (this.state(sub).pending?.invoiceId === invoice.id) return
    if (sub.status === 'active') this.setStatus(sub, 'past_due')
  }

  private invoiceVoided(invoice: Stripe.Invoice): void {
    const sub = this.invoices.subscriptionOf(invoice)
    if (!sub) return
    const state = this.state(sub)
    if (state.pending?.invoiceId !== invoice.id || state.pending.inline) return
    const before = structuredClone(sub)
    state.pending = null
    sub.pending_update = null
    this.emitUpdated(before, sub)
  }

  private setupIntentSucceeded(si: Stripe.SetupIntent, pm: Stripe.PaymentMethod): void {
    for (const sub of this.env.store.subscriptions.values()) {
      if (sub.pending_setup_intent !== si.id) continue
      const before = structuredClone(sub)
      sub.pending_setup_intent = null
      if (sub.payment_settings?.save_default_payment_method === 'on_subscription')
        sub.default_payment_method = pm.id
      this.emitUpdated(before, sub)
    }
  }

  // ---- Time-driven work ----

  /** What falls due for the subscriptions of one clock scope. */
  due(inScope: (customerId: string) => boolean): Due[] {
    const list: Due[] = []
    for (const sub of this.env.store.subscriptions.values()) {
      if (!inScope(sub.customer as string)) continue
      const state = this.state(sub)
      const add = (at: number, rank: number, kind: string, run: () => void) =>
        list.push({ at, rank, id: sub.id, kind, run })
      if (sub.status === 'incomplete') {
        add(sub.created + INCOMPLETE_EXPIRY_SECONDS, 0, 'expired', () =>
          this.end(sub, this.env.clock.now(), 'incomplete_expired', {
            comment: null,
            feedback: null,
            reason: null,
          }),
        )
        continue
      }
      if (sub.status !== 'active' && sub.status !== 'past_due' && sub.status !== 'trialing') continue
      if (sub.pending_update)
        add(sub.pending_update.expires_at, 1, 'pending_update_expired', () => this.expirePending(sub))
      const resumesAt = sub.pause_collection?.resumes_at
      if (resumesAt) add(resumesAt, 3, 'collection_resumed', () => this.resumeCollection(sub))
      const end = this.periodEnd(sub)
      if (sub.cancel_at !== null && sub.cancel_at <= end) {
        add(sub.cancel_at, 4, 'canceled', () =>
          this.end(sub, this.env.clock.now(), 'canceled', {
            comment: sub.cancellation_details?.comment ?? null,
            feedback: sub.cancellation_details?.feedback ?? null,
            reason: 'cancellation_requested',
          }),
        )
        continue
      }
      if (sub.status === 'trialing') {
        add(end, 5, 'trial_ended', () => this.endTrial(sub))
        const warnAt = end - TRIAL_WILL_END_SECONDS
        if (state.trialWillEndFor !== end) {
          add(warnAt, 9, 'trial_will_end', () => {
            state.trialWillEndFor = end
            this.env.events.emit('customer.subscription.trial_will_end', sub)
          })
        }
      } else {
        add(end, 6, 'renewed', () => this.renew(sub))
      }
      if (this.upcomingDays !== null && state.upcomingFor !== end) {
        const at = end - this.upcomingDays * DAY
        if (at > this.periodStart(sub) && !this.pausedAt(sub, end)) {
          add(at, 8, 'upcoming', () => {
            state.upcomingFor = end
            this.announceUpcoming(sub)
          })
        }
      }
    }
    return list
  }

  private pausedAt(sub: Stripe.Subscription, at: number): boolean {
    const pause = sub.pause_collection
    return pause !== null && (pause.resumes_at === null || pause.resumes_at > at)
  }

  private expirePending(sub: Stripe.Subscription): void {
    const state = this.state(sub)
    const pending = state.pending
    const before = structuredClone(sub)
    state.pending = null
    sub.pending_update = null
    const invoice = pending ? this.env.store.invoices.get(pending.invoiceId) : undefined
    if (invoice?.status === 'open') this.invoices.voidInvoice(invoice)
    this.env.events.emit(
      'customer.subscription.pending_update_expired',
      sub,
      changedFields(before, sub, ['pending_update']),
    )
  }

  private resumeCollection(sub: Stripe.Subscription): void {
    const before = structuredClone(sub)
    sub.pause_collection = null
    this.emitUpdated(before, sub)
  }

  /** At the end of a trial: the first paid period starts and is charged, or the missing-card rule applies. */
  private endTrial(sub: Stripe.Subscription): void {
    const at = this.env.clock.now()
    const state = this.state(sub)
    const missing = sub.trial_settings?.end_behavior.missing_payment_method ?? 'create_invoice'
    const pm = this.invoices.defaultPaymentMethod(sub)
    if (!pm && missing === 'cancel') {
      this.end(sub, at, 'canceled', { comment: null, feedback: null, reason: 'cancellation_requested' })
      return
    }
    if (!pm && missing === 'pause') {
      const before = structuredClone(sub)
      sub.status = 'paused'
      sub.status_details = {
        paused: {
          subscription: { type: 'trial_end_without_payment_method' },
          transitioned_at: at,
          type: 'subscription',
        },
      }
      this.env.events.emit('customer.subscription.paused', sub, changedFields(before, sub, ['status']))
      return
    }
    const before = structuredClone(sub)
    const oldStart = this.periodStart(sub)
    this.enterPhase(sub, at)
    sub.status = 'active'
    state.anchor = at
    state.cycle = 0
    sub.billing_cycle_anchor = at
    this.applyPeriod(sub)
    if (sub.cancel_at_period_end) sub.cancel_at = this.periodEnd(sub)
    this.invoiceNewPeriod(sub, before, oldStart, at)
  }

  /** Starts the next period and charges for it. */
  private renew(sub: Stripe.Subscription): void {
    const at = this.env.clock.now()
    const state = this.state(sub)
    const before = structuredClone(sub)
    const oldStart = this.periodStart(sub)
    const oldEnd = this.periodEnd(sub)
    if (this.enterPhase(sub, at)) {
      // The new phase has another interval: its first period starts here.
      state.anchor = at
      state.cycle = -1
      sub.billing_cycle_anchor = at
    }
    state.cycle += 1
    this.applyPeriod(sub)
    if (sub.cancel_at_period_end) sub.cancel_at = this.periodEnd(sub)
    this.invoiceNewPeriod(sub, before, oldStart, oldEnd)
  }

  /**
   * When a schedule phase starts at this boundary, its prices are billed from here. Returns whether
   * the interval changed.
   */
  private enterPhase(sub: Stripe.Subscription, at: number): boolean {
    const phase = this.phaseItemsAt(sub, at)
    if (!phase) return false
    const oldInterval = JSON.stringify(intervalOf((sub.items.data[0] as Stripe.SubscriptionItem).price))
    const items = phase.map((entry, index) => {
      const existing = sub.items.data[index]
      if (!existing) return this.newItem(sub.id, entry.price, entry.quantity, {})
      const item = structuredClone(existing)
      item.price = structuredClone(entry.price)
      item.plan = this.planOf(entry.price)
      item.quantity = entry.quantity
      return item
    })
    this.setItems(sub, items)
    return JSON.stringify(intervalOf((items[0] as Stripe.SubscriptionItem).price)) !== oldInterval
  }

  /** The invoice of a new period: pending prorations, the period in advance, discounts; collected off-session. */
  private invoiceNewPeriod(
    sub: Stripe.Subscription,
    before: Stripe.Subscription,
    oldStart: number,
    oldEnd: number,
  ) {
    const at = this.env.clock.now()
    const state = this.state(sub)
    this.pruneDiscounts(sub, at)
    const period = { start: this.periodStart(sub), end: this.periodEnd(sub) }
    const lines = [
      ...this.invoices.pendingItems(sub.id).map((ii) => this.invoices.lineFromPendingItem(ii, sub)),
      ...sub.items.data.map((item) => this.invoices.periodLine(item, period)),
    ]
    const reason: InvoiceReason = 'subscription_cycle'
    const invoice = this.invoices.build({
      sub,
      reason,
      periodStart: oldStart,
      periodEnd: oldEnd,
      lines,
      discounts: this.applicableDiscounts(sub, at),
    })
    this.recordDebits(sub, invoice, period)
    this.spendOnceDiscounts(sub, invoice)
    sub.latest_invoice = invoice.id
    this.emitUpdated(before, sub)
    this.env.events.emit('invoice.created', invoice)
    if (this.pausedAt(sub, at)) {
      // Collection is paused: the invoice is voided, kept as a draft or written off, and nothing is charged.
      const behavior = sub.pause_collection?.behavior
      if (behavior === 'void') this.invoices.voidInvoice(invoice, { draftToo: true })
      else if (behavior === 'mark_uncollectible') this.invoices.markUncollectible(invoice)
      return
    }
    const forceDecline = state.failNextRenewal
    state.failNextRenewal = false
    this.invoices.collect(invoice, sub, { offSession: true, forceDecline })
  }

  // ---- Previews ----

  /** The renewal invoice as it stands (for `invoice.upcoming` and previews without changes). */
  upcomingInvoice(sub: Stripe.Subscription, plan?: Plan, redeemed?: Stripe.Discount[]): Stripe.Invoice {
    const trialing = sub.status === 'trialing' && plan?.trial !== null
    const trial =
      plan?.trial ?? (trialing ? { start: sub.trial_start ?? 0, end: sub.trial_end ?? 0 } : undefined)
    const items = plan?.items ?? sub.items.data
    const state = this.state(sub)
    let renewalAt: number
    let periodStart: number
    if (trial) {
      renewalAt = trial.end
      periodStart = trial.start
    } else if (plan?.anchor !== undefined && plan.anchor !== null && plan.anchor > this.env.clock.now()) {
      renewalAt = plan.anchor
      periodStart = this.periodStart(sub)
    } else {
      renewalAt = this.periodEnd(sub)
      periodStart = this.periodStart(sub)
    }
    if (sub.cancel_at !== null && sub.cancel_at <= renewalAt) {
      throw invalidRequest(`No upcoming invoices for customer: ${String(sub.customer)}`, {
        code: 'invoice_upcoming_none',
      })
    }
    const { interval, count } = intervalOf((items[0] as Stripe.SubscriptionItem).price)
    const nextAnchorIsRenewal = trial !== undefined || (plan?.anchor ?? null) !== null
    const period = nextAnchorIsRenewal
      ? { start: renewalAt, end: periodBoundary(renewalAt, interval, count, 1) }
      : {
          start: renewalAt,
          end: periodBoundary(state.anchor, interval, count, state.cycle + 2),
        }
    const lines = [
      ...this.invoices.pendingItems(sub.id).map((ii) => this.invoices.lineFromPendingItem(ii, sub)),
      ...(plan?.prorationBehavior === 'create_prorations' ? plan.prorations : []),
      ...items.map((item) => this.invoices.periodLine(item, period)),
    ]
    const discounts = redeemed ?? this.applicableDiscounts(sub, renewalAt)
    return this.env.clock.at(renewalAt, () =>
      this.invoices.build(
        { sub, reason: 'upcoming', periodStart, periodEnd: renewalAt, lines, discounts },
        { preview: true },
      ),
    )
  }

  private announceUpcoming(sub: Stripe.Subscription): void {
    let invoice: Stripe.Invoice
    try {
      invoice = this.upcomingInvoice(sub)
    } catch (error) {
      if (error instanceof StripeApiError) return
      throw error
    }
    // Stripe's `invoice.upcoming` carries an invoice that does not exist yet, so it has no id.
    const payload = structuredClone(invoice) as Partial<Stripe.Invoice>
    delete payload.id
    for (const line of payload.lines?.data ?? []) line.invoice = null
    this.env.events.emit('invoice.upcoming', payload as { id: string; object: string })
  }

  /** `POST /v1/invoices/create_preview`: what an update (or a new subscription) would invoice. */
  createPreview(params: Params): Stripe.Invoice {
    const customerId = params.str('customer')
    const subId = params.str('subscription')
    const details = params.obj('subscription_details')
    const hasDiscounts = params.has('discounts')
    const discountParams = params.objList('discounts')
    params.obj('automatic_tax')?.rejectUnknown(['enabled'])
    params.str('currency')
    params.rejectUnknown(['preview_mode'])
    if (!subId) {
      if (!customerId) throw missingParam('customer')
      return this.previewNewSubscription(
        this.catalog.customer(customerId, 'customer'),
        details,
        discountParams,
      )
    }
    const sub = this.subscription(subId, 'subscription')
    if (customerId && customerId !== sub.customer) {
      throw invalidRequest('The subscription does not belong to this customer.', { param: 'subscription' })
    }
    return inCustomerTime(this.env, sub.customer, () => {
      const now = this.env.clock.now()
      const redeemed = hasDiscounts
        ? this.discounts.previewDiscounts(
            this.discounts.resolve(discountParams, {
              customerId: sub.customer as string,
              currency: sub.currency,
            }),
            { customer: sub.customer as string, subscription: sub.id },
          )
        : undefined
      if (!details) return this.upcomingInvoice(sub, undefined, redeemed)
      const { request } = this.changeRequestFrom(sub, details, now)
      details.bool('cancel_at_period_end')
      details.rejectUnknown()
      const plan = this.computePlan(sub, request, now)
      if (!plan.invoiceNow) return this.upcomingInvoice(sub, plan, redeemed)
      const { lines } = this.planLines(sub, plan, now)
      const preview = structuredClone(sub)
      this.setItems(preview, plan.items)
      return this.invoices.build(
        {
          sub: preview,
          reason: 'subscription_update',
          periodStart: now,
          periodEnd: now,
          lines,
          discounts: redeemed ?? this.applicableDiscounts(sub, now),
        },
        { preview: true },
      )
    })
  }

  private previewNewSubscription(
    customer: Stripe.Customer,
    details: Params | undefined,
    discountParams: Params[] | undefined,
  ): Stripe.Invoice {
    const itemParams = details?.objList('items')
    if (!details || !itemParams || itemParams.length === 0) {
      throw invalidRequest(`No upcoming invoices for customer: ${customer.id}`, {
        code: 'invoice_upcoming_none',
      })
    }
    return inCustomerTime(this.env, customer.id, () => {
      const now = this.env.clock.now()
      const items = this.parseItems(itemParams)
      this.checkItemsCompatible(items, 'subscription_details[items]')
      const trialRaw = details.str('trial_end')
      details.rejectUnknown(['proration_behavior', 'proration_date', 'billing_cycle_anchor'])
      const trialEnd =
        trialRaw === undefined || trialRaw === 'now' ? null : (details.int('trial_end') ?? null)
      const first = items[0]?.price as Stripe.Price
      const subtotal = items.reduce((sum, i) => sum + (i.price.unit_amount ?? 0) * i.quantity, 0)
      const redeemables = this.discounts.resolve(discountParams, {
        customerId: customer.id,
        subtotal,
        currency: first.currency,
      })
      const id = newId('sub')
      const { interval, count } = intervalOf(first)
      const period = { start: now, end: trialEnd ?? periodBoundary(now, interval, count, 1) }
      const transient = {
        id,
        object: 'subscription',
        currency: first.currency,
        customer: customer.id,
        metadata: {},
        test_clock: customer.test_clock ?? null,
        items: { object: 'list', data: items.map((i) => this.newItem(id, i.price, i.quantity, i.metadata)) },
      } as unknown as Stripe.Subscription
      const lines = transient.items.data.map((item) =>
        trialEnd !== null ? this.invoices.trialLine(item, period) : this.invoices.periodLine(item, period),
      )
      return this.invoices.build(
        {
          sub: transient,
          reason: 'subscription_create',
          periodStart: now,
          periodEnd: now,
          lines,
          discounts: this.discounts.previewDiscounts(redeemables, {
            customer: customer.id,
            subscription: null,
          }),
        },
        { preview: true },
      )
    })
  }

  // ---- Routes ----

  routes(api: StripeApi): void {
    const render = this.env.renderer
    api.post('/v1/subscriptions', (r) =>
      inCustomerTime(this.env, r.params.raw.customer, () => r.render(this.createSubscription(r.params, r))),
    )
    api.get('/v1/subscriptions', (r) => {
      const customer = r.params.str('customer')
      const price = r.params.str('price')
      const status = r.params.str('status')
      const testClock = r.params.str('test_clock')
      const created = createdFilter(r.params)
      const list = [...this.env.store.subscriptions.values()]
        .reverse()
        .filter(
          (sub) =>
            (!customer || sub.customer === customer) &&
            (!price || sub.items.data.some((item) => item.price.id === price)) &&
            (!testClock || sub.test_clock === testClock) &&
            (status === 'all' ||
              (status === 'ended'
                ? sub.status === 'canceled' || sub.status === 'incomplete_expired'
                : status
                  ? sub.status === status
                  : sub.status !== 'canceled' && sub.status !== 'incomplete_expired')) &&
            created(sub.created),
        )
      return render.list(list, r.params, '/v1/subscriptions', r.expand)
    })
    api.get('/v1/subscriptions/:id', (r) => r.render(this.subscription(r.path.id ?? '')))
    api.post('/v1/subscriptions/:id', (r) => {
      const sub = this.subscription(r.path.id ?? '')
      return inCustomerTime(this.env, sub.customer, () => r.render(this.updateSubscription(sub, r.params, r)))
    })
    api.post('/v1/subscriptions/:id/resume', (r) => {
      const sub = this.subscription(r.path.id ?? '')
      return inCustomerTime(this.env, sub.customer, () => r.render(this.resume(sub, r.params, r)))
    })
    api.delete('/v1/subscriptions/:id', (r) => {
      const sub = this.subscription(r.path.id ?? '')
      return inCustomerTime(this.env, sub.customer, () => r.render(this.cancelSubscription(sub, r.params)))
    })
    api.post('/v1/invoices/create_preview', (r) => r.render(this.createPreview(r.params)))
  }
}

export function newState(anchor: number): SubscriptionState {
  return {
    anchor,
    cycle: 0,
    failNextRenewal: false,
    trialWillEndFor: null,
    upcomingFor: null,
    debits: {},
    pending: null,
    usedOnce: [],
  }
}

/** `billing_cycle_anchor[type]` in the pinned version, a plain `now`/`unchanged` in older ones. */
function anchorFrom(params: Params): 'now' | 'unchanged' | undefined {
  if (typeof params.raw.billing_cycle_anchor === 'string') {
    return params.oneOf('billing_cycle_anchor', ['now', 'unchanged'] as const)
  }
  const anchor = params.obj('billing_cycle_anchor')
  const type = anchor?.oneOf('type', ['now', 'unchanged'] as const)
  anchor?.rejectUnknown()
  return type
}

export function intervalOf(price: Stripe.Price): { interval: Interval; count: number } {
  const recurring = price.recurring as Stripe.Price.Recurring
  return { interval: recurring.interval as Interval, count: recurring.interval_count }
}

function declineOf(error: Stripe.PaymentIntent.LastPaymentError) {
  return {
    code: error.code ?? 'card_declined',
    declineCode: error.decline_code ?? '',
    message: error.message ?? 'Your card was declined.',
  }
}
