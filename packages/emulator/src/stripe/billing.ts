import type Stripe from 'stripe'
import type { ApiRequest, StripeApi } from './api'
import type { Catalog } from './catalog'
import { decimal } from './catalog'
import { changedFields, type Env } from './env'
import { invalidRequest, missingParam, noSuch } from './errors'
import type { Params } from './form'
import { newId } from './ids'
import type { Payments } from './payments'
import { type Interval, periodBoundary } from './periods'
import { createdFilter } from './render'

/**
 * Subscriptions and their invoices, in the shapes of the pinned API version: periods live on the
 * items, invoices point at their subscription through `parent.subscription_details`, and each
 * invoice is paid through a PaymentIntent listed in its `payments`. The clock drives renewals.
 */

const INCOMPLETE_EXPIRY_SECONDS = 23 * 3600

type InvoiceReason = 'subscription_create' | 'subscription_cycle' | 'subscription_update'

export interface AdvanceReport {
  now: number
  renewed: string[]
  failed: string[]
  canceled: string[]
  expired: string[]
}

export class Billing {
  constructor(
    private readonly env: Env,
    private readonly catalog: Catalog,
    private readonly payments: Payments,
  ) {
    payments.hooks = {
      succeeded: (pi, pm) => this.invoicePaid(pi, pm),
      failed: (pi) => this.invoicePaymentFailed(pi),
      requiresAction: (pi) => {
        const invoice = this.invoiceOf(pi)
        if (invoice) this.env.events.emit('invoice.payment_action_required', invoice)
      },
      canceled: () => {},
    }
  }

  subscription(id: string, param = 'id'): Stripe.Subscription {
    const sub = this.env.store.subscriptions.get(id)
    if (!sub) throw noSuch('subscription', id, param)
    return sub
  }

  invoice(id: string, param = 'id'): Stripe.Invoice {
    const invoice = this.env.store.invoices.get(id)
    if (!invoice) throw noSuch('invoice', id, param)
    return invoice
  }

  private state(sub: Stripe.Subscription) {
    const state = this.env.store.subscriptionState.get(sub.id)
    if (!state) throw new Error(`no billing state for ${sub.id}`)
    return state
  }

  private recurringPrice(id: string, param: string): Stripe.Price {
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

  private planOf(price: Stripe.Price): Stripe.Plan {
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

  private newItem(
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

  /** Sets every item's period from the anchor and cycle. */
  private applyPeriod(sub: Stripe.Subscription): void {
    const state = this.state(sub)
    for (const item of sub.items.data) {
      const recurring = item.price.recurring as Stripe.Price.Recurring
      const interval = recurring.interval as Interval
      item.current_period_start = periodBoundary(
        state.anchor,
        interval,
        recurring.interval_count,
        state.cycle,
      )
      item.current_period_end = periodBoundary(
        state.anchor,
        interval,
        recurring.interval_count,
        state.cycle + 1,
      )
    }
  }

  periodEnd(sub: Stripe.Subscription): number {
    return Math.min(...sub.items.data.map((item) => item.current_period_end))
  }

  private periodStart(sub: Stripe.Subscription): number {
    return Math.min(...sub.items.data.map((item) => item.current_period_start))
  }

  private defaultPaymentMethod(sub: Stripe.Subscription): Stripe.PaymentMethod | undefined {
    const customer = this.env.store.customers.get(sub.customer as string)
    const id =
      (sub.default_payment_method as string | null) ?? customer?.invoice_settings.default_payment_method
    return typeof id === 'string' ? this.env.store.paymentMethods.get(id) : undefined
  }

  private itemsFromParams(
    subId: string,
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
      void subId
      return { price, quantity, metadata }
    })
  }

  createSubscription(params: Params, request: ApiRequest): Stripe.Subscription {
    const customer = this.catalog.customer(params.requireStr('customer'), 'customer')
    const itemParams = params.objList('items')
    if (!itemParams || itemParams.length === 0) throw missingParam('items')
    const id = newId('sub')
    const items = this.itemsFromParams(id, itemParams)
    const first = items[0]?.price as Stripe.Price
    for (const item of items) {
      if (item.price.currency !== first.currency) {
        throw invalidRequest('All prices on a subscription must have the same `currency`.', {
          param: 'items',
        })
      }
      const a = item.price.recurring as Stripe.Price.Recurring
      const b = first.recurring as Stripe.Price.Recurring
      if (a.interval !== b.interval || a.interval_count !== b.interval_count) {
        throw invalidRequest(
          'All prices on a subscription must have the same `recurring.interval` and `recurring.interval_count`.',
          {
            param: 'items',
          },
        )
      }
    }
    const behaviour = params.str('payment_behavior') ?? 'allow_incomplete'
    if (behaviour !== 'allow_incomplete' && behaviour !== 'default_incomplete') {
      throw invalidRequest(
        `The emulator supports payment_behavior=allow_incomplete or default_incomplete, not ${behaviour}.`,
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
    params.rejectUnknown(['proration_behavior', 'off_session'])

    const now = this.env.clock.now()
    const sub: Stripe.Subscription = {
      id,
      object: 'subscription',
      application: null,
      application_fee_percent: null,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null },
      billing_cycle_anchor: now,
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
      status: 'incomplete',
      test_clock: null,
      transfer_data: null,
      trial_end: null,
      trial_settings: {
        end_behavior: { billing_cycle_anchor: null, missing_payment_method: 'create_invoice' },
      },
      trial_start: null,
    }
    ;(sub.items as unknown as { total_count: number }).total_count = sub.items.data.length
    this.env.store.subscriptions.set(id, sub)
    this.env.store.subscriptionState.set(id, { anchor: now, cycle: 0, failNextRenewal: false })
    this.applyPeriod(sub)
    if (cancelAtPeriodEnd) this.setCancelAtPeriodEnd(sub, true)

    const invoice = this.draftInvoice(sub, 'subscription_create', now, now)
    sub.latest_invoice = invoice.id
    this.env.events.emit('customer.subscription.created', sub)
    this.env.events.emit('invoice.created', invoice)
    const pi = this.finalize(invoice, sub)
    if (pi && behaviour === 'allow_incomplete') {
      const pm = this.defaultPaymentMethod(sub)
      if (pm) {
        pi.payment_method = pm.id
        this.payments.confirmResolved(pi, {
          offSession: false,
          origin: request.origin,
          auth: 'secret',
          useStripeSdk: false,
        })
      }
    }
    return sub
  }

  /** An invoice for the subscription's current items and period. */
  private draftInvoice(
    sub: Stripe.Subscription,
    reason: InvoiceReason,
    periodStart: number,
    periodEnd: number,
  ): Stripe.Invoice {
    const customer = this.catalog.customer(sub.customer as string)
    const now = this.env.clock.now()
    const id = newId('in')
    const lines: Stripe.InvoiceLineItem[] = sub.items.data.map((item) => {
      const amount = (item.price.unit_amount ?? 0) * (item.quantity ?? 1)
      const product = this.env.store.products.get(item.price.product as string)
      return {
        id: newId('il'),
        object: 'line_item',
        amount,
        currency: sub.currency,
        description: `${item.quantity ?? 1} × ${product?.name ?? 'Subscription'} (at $${((item.price.unit_amount ?? 0) / 100).toFixed(2)} / ${item.price.recurring?.interval})`,
        discount_amounts: [],
        discountable: true,
        discounts: [],
        invoice: id,
        livemode: false,
        metadata: { ...sub.metadata },
        parent: {
          type: 'subscription_item_details',
          invoice_item_details: null,
          subscription_item_details: {
            invoice_item: null,
            proration: false,
            proration_details: { credited_items: null },
            subscription: sub.id,
            subscription_item: item.id,
          },
        },
        period: { start: item.current_period_start, end: item.current_period_end },
        pretax_credit_amounts: [],
        pricing: {
          type: 'price_details',
          price_details: { price: item.price.id, product: item.price.product as string },
          unit_amount_decimal: decimal(item.price.unit_amount),
        },
        quantity: item.quantity ?? 1,
        quantity_decimal: decimal(item.quantity ?? 1),
        subscription: sub.id,
        subtotal: amount,
        taxes: [],
      }
    })
    const total = lines.reduce((sum, line) => sum + line.amount, 0)
    const invoice: Stripe.Invoice = {
      id,
      object: 'invoice',
      account_country: 'US',
      account_name: 'EdgeClub (emulated Stripe)',
      account_tax_ids: null,
      amount_due: total,
      amount_overpaid: 0,
      amount_paid: 0,
      amount_remaining: total,
      amount_shipping: 0,
      application: null,
      attempt_count: 0,
      attempted: false,
      auto_advance: true,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
      automatically_finalizes_at: null,
      billing_reason: reason,
      collection_method: 'charge_automatically',
      created: now,
      currency: sub.currency,
      custom_fields: null,
      customer: customer.id,
      customer_account: null,
      customer_address: customer.address ?? null,
      customer_email: customer.email,
      customer_name: customer.name ?? null,
      customer_phone: customer.phone ?? null,
      customer_shipping: null,
      customer_tax_exempt: 'none',
      customer_tax_ids: [],
      default_payment_method: null,
      default_source: null,
      default_tax_rates: [],
      description: null,
      discounts: [],
      due_date: null,
      effective_at: null,
      ending_balance: null,
      footer: null,
      from_invoice: null,
      hosted_invoice_url: null,
      invoice_pdf: null,
      issuer: { type: 'self' },
      last_finalization_error: null,
      latest_revision: null,
      lines: { object: 'list', data: lines, has_more: false, url: `/v1/invoices/${id}/lines` },
      livemode: false,
      metadata: {},
      next_payment_attempt: null,
      number: null,
      on_behalf_of: null,
      parent: {
        type: 'subscription_details',
        quote_details: null,
        subscription_details: { metadata: { ...sub.metadata }, subscription: sub.id },
      },
      payment_settings: { default_mandate: null, payment_method_options: null, payment_method_types: null },
      period_end: periodEnd,
      period_start: periodStart,
      post_payment_credit_notes_amount: 0,
      pre_payment_credit_notes_amount: 0,
      receipt_number: null,
      rendering: null,
      shipping_cost: null,
      shipping_details: null,
      starting_balance: 0,
      statement_descriptor: null,
      status: 'draft',
      status_transitions: {
        finalized_at: null,
        marked_uncollectible_at: null,
        paid_at: null,
        voided_at: null,
      },
      subtotal: total,
      subtotal_excluding_tax: total,
      test_clock: null,
      total,
      total_discount_amounts: [],
      total_excluding_tax: total,
      total_pretax_credit_amounts: [],
      total_taxes: [],
      webhooks_delivered_at: null,
    }
    ;(invoice.lines as unknown as { total_count: number }).total_count = lines.length
    this.env.store.invoices.set(id, invoice)
    return invoice
  }

  /** Finalises the invoice and creates the PaymentIntent that pays it (none for a zero total). */
  private finalize(invoice: Stripe.Invoice, sub: Stripe.Subscription): Stripe.PaymentIntent | undefined {
    const now = this.env.clock.now()
    const customerId = invoice.customer as string
    const numbering = this.env.store.invoicePrefixes.get(customerId) ?? {
      prefix: this.catalog.customer(customerId).invoice_prefix ?? 'EMU',
      next: 1,
    }
    invoice.number = `${numbering.prefix}-${String(numbering.next).padStart(4, '0')}`
    numbering.next += 1
    this.env.store.invoicePrefixes.set(customerId, numbering)
    invoice.status = 'open'
    invoice.status_transitions.finalized_at = now
    invoice.effective_at = now
    invoice.ending_balance = 0
    let pi: Stripe.PaymentIntent | undefined
    if (invoice.amount_due > 0) {
      pi = this.payments.newPaymentIntent({
        amount: invoice.amount_due,
        currency: invoice.currency,
        customer: customerId,
        description:
          invoice.billing_reason === 'subscription_create' ? 'Subscription creation' : 'Subscription update',
        metadata: {},
        automatic: null,
        setupFutureUsage:
          sub.payment_settings?.save_default_payment_method === 'on_subscription' ? 'off_session' : null,
      })
      this.env.store.paymentIntentState.set(pi.id, { invoiceId: invoice.id })
      const payment: Stripe.InvoicePayment = {
        id: newId('inpay'),
        object: 'invoice_payment',
        amount_paid: null,
        amount_requested: invoice.amount_due,
        created: now,
        currency: invoice.currency,
        invoice: invoice.id,
        is_default: true,
        livemode: false,
        payment: { type: 'payment_intent', payment_intent: pi.id },
        status: 'open',
        status_transitions: { canceled_at: null, paid_at: null },
      }
      this.env.store.invoicePayments.set(payment.id, payment)
      this.env.events.emit('payment_intent.created', pi)
    }
    this.env.events.emit('invoice.finalized', invoice)
    if (!pi) this.markPaid(invoice, undefined, undefined)
    return pi
  }

  private paymentsOf(invoiceId: string): Stripe.InvoicePayment[] {
    return [...this.env.store.invoicePayments.values()].filter((p) => p.invoice === invoiceId)
  }

  private paymentIntentOf(invoice: Stripe.Invoice): Stripe.PaymentIntent | undefined {
    const payment = this.paymentsOf(invoice.id).find((p) => p.is_default)
    const piId = payment?.payment.payment_intent
    return typeof piId === 'string' ? this.env.store.paymentIntents.get(piId) : undefined
  }

  private invoiceOf(pi: Stripe.PaymentIntent): Stripe.Invoice | undefined {
    const id = this.env.store.paymentIntentState.get(pi.id)?.invoiceId
    return id ? this.env.store.invoices.get(id) : undefined
  }

  private subscriptionOf(invoice: Stripe.Invoice): Stripe.Subscription | undefined {
    const id = invoice.parent?.subscription_details?.subscription
    return typeof id === 'string' ? this.env.store.subscriptions.get(id) : undefined
  }

  private invoicePaid(pi: Stripe.PaymentIntent, pm: Stripe.PaymentMethod): void {
    const invoice = this.invoiceOf(pi)
    if (invoice?.status !== 'open') return
    this.markPaid(invoice, pi, pm)
  }

  private markPaid(
    invoice: Stripe.Invoice,
    pi: Stripe.PaymentIntent | undefined,
    pm: Stripe.PaymentMethod | undefined,
  ) {
    const now = this.env.clock.now()
    const before = structuredClone(invoice)
    invoice.status = 'paid'
    invoice.amount_paid = invoice.amount_due
    invoice.amount_remaining = 0
    invoice.attempted = true
    if (pi) invoice.attempt_count += 1
    invoice.next_payment_attempt = null
    invoice.status_transitions.paid_at = now
    if (pi) {
      const payment = this.paymentsOf(invoice.id).find((p) => p.payment.payment_intent === pi.id)
      if (payment) {
        payment.status = 'paid'
        payment.amount_paid = pi.amount_received
        payment.status_transitions.paid_at = now
        this.env.events.emit('invoice_payment.paid', payment)
      }
    }
    const previous = changedFields(before, invoice, [
      'status',
      'amount_paid',
      'amount_remaining',
      'attempted',
      'attempt_count',
      'status_transitions',
    ])
    this.env.events.emit('invoice.paid', invoice, previous)
    this.env.events.emit('invoice.payment_succeeded', invoice, previous)

    const sub = this.subscriptionOf(invoice)
    if (!sub) return
    const subBefore = structuredClone(sub)
    if (pm && sub.payment_settings?.save_default_payment_method === 'on_subscription') {
      sub.default_payment_method = pm.id
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

  private invoicePaymentFailed(pi: Stripe.PaymentIntent): void {
    const invoice = this.invoiceOf(pi)
    if (invoice?.status !== 'open') return
    invoice.attempted = true
    invoice.attempt_count += 1
    this.env.events.emit('invoice.payment_failed', invoice)
    const sub = this.subscriptionOf(invoice)
    if (!sub || invoice.billing_reason === 'subscription_create') return
    if (sub.status === 'active') {
      const before = structuredClone(sub)
      sub.status = 'past_due'
      this.env.events.emit('customer.subscription.updated', sub, changedFields(before, sub, ['status']))
    }
  }

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

  updateSubscription(sub: Stripe.Subscription, params: Params): Stripe.Subscription {
    const before = structuredClone(sub)
    const ended = sub.status === 'canceled' || sub.status === 'incomplete_expired'
    const metadata = params.metadata(sub.metadata)
    const details = params.obj('cancellation_details')
    const comment = details?.nullableStr('comment')
    const feedback = details?.str('feedback')
    details?.rejectUnknown()
    if (
      ended &&
      Object.keys(params.raw).some((key) => !['metadata', 'cancellation_details', 'expand'].includes(key))
    ) {
      throw invalidRequest('A canceled subscription can only update its cancellation_details and metadata.')
    }
    if (metadata) sub.metadata = metadata
    const cancelAtPeriodEnd = params.bool('cancel_at_period_end')
    if (cancelAtPeriodEnd !== undefined) this.setCancelAtPeriodEnd(sub, cancelAtPeriodEnd)
    if (params.has('cancel_at')) {
      const at = params.int('cancel_at')
      sub.cancel_at = at ?? null
      sub.cancel_at_period_end = false
      sub.canceled_at = at ? this.env.clock.now() : null
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
    const defaultPm = params.nullableStr('default_payment_method')
    if (defaultPm !== undefined) {
      sub.default_payment_method =
        defaultPm === null
          ? null
          : this.payments.attachedPaymentMethod(sub.customer as string, defaultPm, 'default_payment_method')
              .id
    }
    const description = params.nullableStr('description')
    if (description !== undefined) sub.description = description
    const paymentSettings = params.obj('payment_settings')
    const saveDefault = paymentSettings?.oneOf('save_default_payment_method', [
      'on_subscription',
      'off',
    ] as const)
    paymentSettings?.rejectUnknown(['payment_method_types'])
    if (saveDefault && sub.payment_settings) sub.payment_settings.save_default_payment_method = saveDefault
    const prorationBehaviour = params.oneOf('proration_behavior', [
      'create_prorations',
      'none',
      'always_invoice',
    ] as const)
    void prorationBehaviour
    const itemParams = params.objList('items')
    params.rejectUnknown(['payment_behavior', 'off_session', 'proration_date', 'billing_cycle_anchor'])

    let intervalChanged = false
    if (itemParams) {
      const oldInterval = JSON.stringify(this.intervalOf(sub))
      for (const entry of itemParams) {
        const itemId = entry.str('id')
        const deleted = entry.bool('deleted') ?? false
        const priceId = entry.str('price')
        const quantity = entry.int('quantity')
        const itemMetadata = entry.obj('metadata') ? entry.metadata() : undefined
        entry.rejectUnknown(['clear_usage', 'discounts', 'tax_rates'])
        if (itemId) {
          const item = sub.items.data.find((candidate) => candidate.id === itemId)
          if (!item) throw noSuch('subscription_item', itemId, entry.name('id'))
          if (deleted) {
            sub.items.data = sub.items.data.filter((candidate) => candidate.id !== itemId)
            continue
          }
          if (priceId) {
            const price = this.recurringPrice(priceId, entry.name('price'))
            item.price = structuredClone(price)
            item.plan = this.planOf(price)
          }
          if (quantity !== undefined) item.quantity = quantity
          if (itemMetadata) item.metadata = itemMetadata
        } else {
          if (!priceId) throw missingParam(entry.name('price'))
          const price = this.recurringPrice(priceId, entry.name('price'))
          const item = this.newItem(sub.id, price, quantity ?? 1, itemMetadata ?? {})
          item.current_period_start = this.periodStart(sub)
          item.current_period_end = this.periodEnd(sub)
          sub.items.data.push(item)
        }
      }
      if (sub.items.data.length === 0)
        throw invalidRequest('A subscription must have at least one active item.', { param: 'items' })
      ;(sub.items as unknown as { total_count: number }).total_count = sub.items.data.length
      intervalChanged = JSON.stringify(this.intervalOf(sub)) !== oldInterval
    }

    if (intervalChanged) {
      // Stripe resets the billing cycle when the interval changes and invoices the new price at once.
      const now = this.env.clock.now()
      const state = this.state(sub)
      state.anchor = now
      state.cycle = 0
      sub.billing_cycle_anchor = now
      this.applyPeriod(sub)
      if (sub.cancel_at_period_end) sub.cancel_at = this.periodEnd(sub)
      const invoice = this.draftInvoice(sub, 'subscription_update', now, now)
      sub.latest_invoice = invoice.id
      this.emitSubscriptionUpdated(before, sub)
      this.env.events.emit('invoice.created', invoice)
      this.collect(invoice, sub)
      return sub
    }
    this.emitSubscriptionUpdated(before, sub)
    return sub
  }

  private intervalOf(sub: Stripe.Subscription) {
    const recurring = sub.items.data[0]?.price.recurring
    return recurring ? [recurring.interval, recurring.interval_count] : null
  }

  private emitSubscriptionUpdated(before: Stripe.Subscription, sub: Stripe.Subscription): void {
    const previous = changedFields(before, sub, Object.keys(sub))
    if (Object.keys(previous).length > 0) this.env.events.emit('customer.subscription.updated', sub, previous)
  }

  /** Finalises and charges an invoice off-session with the subscription's default payment method. */
  private collect(invoice: Stripe.Invoice, sub: Stripe.Subscription, forceDecline = false): boolean {
    const pi = this.finalize(invoice, sub)
    if (!pi) return true
    const pm = this.defaultPaymentMethod(sub)
    if (!pm) {
      // No card on file: the attempt fails without a charge, as Stripe's does.
      invoice.attempted = true
      invoice.attempt_count += 1
      this.env.events.emit('invoice.payment_failed', invoice)
      if (sub.status === 'active') {
        const before = structuredClone(sub)
        sub.status = 'past_due'
        this.env.events.emit('customer.subscription.updated', sub, changedFields(before, sub, ['status']))
      }
      return false
    }
    return this.payments.chargeOffSession(pi, pm, forceDecline).status === 'succeeded'
  }

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

  private end(
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
    sub.status = status
    sub.ended_at = at
    sub.canceled_at = sub.canceled_at ?? at
    sub.cancellation_details = { ...details, feedback_option: null }
    // An unfinished first invoice is voided with its PaymentIntent, so nobody can still pay it.
    for (const invoice of this.env.store.invoices.values()) {
      if (invoice.status !== 'open' || invoice.parent?.subscription_details?.subscription !== sub.id) continue
      if (invoice.billing_reason !== 'subscription_create') continue
      this.voidInvoice(invoice)
    }
    this.env.events.emit(
      'customer.subscription.deleted',
      sub,
      changedFields(before, sub, ['status', 'ended_at', 'canceled_at', 'cancellation_details']),
    )
  }

  voidInvoice(invoice: Stripe.Invoice): Stripe.Invoice {
    if (invoice.status !== 'open') {
      throw invalidRequest(`You can only pass in open invoices. This invoice is ${invoice.status}.`, {
        code: 'invoice_not_open',
      })
    }
    const pi = this.paymentIntentOf(invoice)
    if (pi && pi.status !== 'succeeded' && pi.status !== 'canceled')
      this.payments.cancelPaymentIntent(pi, 'void_invoice')
    for (const payment of this.paymentsOf(invoice.id)) {
      if (payment.status === 'open') {
        payment.status = 'canceled'
        payment.status_transitions.canceled_at = this.env.clock.now()
      }
    }
    const before = structuredClone(invoice)
    invoice.status = 'void'
    invoice.amount_remaining = 0
    invoice.status_transitions.voided_at = this.env.clock.now()
    this.env.events.emit(
      'invoice.voided',
      invoice,
      changedFields(before, invoice, ['status', 'amount_remaining', 'status_transitions']),
    )
    return invoice
  }

  /** `POST /v1/invoices/:id/pay`: charges the open invoice now, with `payment_method` or the default. */
  payInvoice(invoice: Stripe.Invoice, params: Params): Stripe.Invoice {
    const pmId = params.str('payment_method')
    params.rejectUnknown(['off_session', 'forgive', 'paid_out_of_band'])
    if (invoice.status === 'paid')
      throw invalidRequest('Invoice is already paid', { code: 'invoice_already_paid' })
    if (invoice.status !== 'open')
      throw invalidRequest(`You can only pay open invoices. This invoice is ${invoice.status}.`, {
        code: 'invoice_not_open',
      })
    const pi = this.paymentIntentOf(invoice)
    const sub = this.subscriptionOf(invoice)
    if (!pi) return invoice
    const pm = pmId
      ? this.payments.attachedPaymentMethod(invoice.customer as string, pmId, 'payment_method')
      : sub && this.defaultPaymentMethod(sub)
    if (!pm) {
      throw invalidRequest('This customer has no attached payment source or default payment method.', {
        code: 'invoice_no_customer_payment_method',
      })
    }
    const outcome = this.payments.chargeOffSession(pi, pm)
    if (outcome.status === 'failed') throw this.payments.declineError(pi, outcome, 'secret')
    return invoice
  }

  failNextRenewal(subId: string): void {
    this.state(this.subscription(subId)).failNextRenewal = true
  }

  /** Moves the clock forward, renewing, ending and expiring subscriptions at the moments they fall due. */
  advance(seconds: number): AdvanceReport {
    if (!Number.isFinite(seconds) || seconds < 0)
      throw new Error('advance() takes a non-negative number of seconds')
    const target = this.env.clock.now() + Math.floor(seconds)
    const report: AdvanceReport = { now: target, renewed: [], failed: [], canceled: [], expired: [] }
    for (;;) {
      const next = this.nextDue(target)
      if (!next) break
      this.env.clock.at(next.at, () => {
        if (next.kind === 'expire') {
          this.end(next.sub, next.at, 'incomplete_expired', { comment: null, feedback: null, reason: null })
          report.expired.push(next.sub.id)
        } else if (next.kind === 'cancel') {
          this.end(next.sub, next.at, 'canceled', {
            comment: next.sub.cancellation_details?.comment ?? null,
            feedback: next.sub.cancellation_details?.feedback ?? null,
            reason: 'cancellation_requested',
          })
          report.canceled.push(next.sub.id)
        } else if (this.renew(next.sub)) report.renewed.push(next.sub.id)
        else report.failed.push(next.sub.id)
      })
    }
    this.env.clock.advance(seconds)
    report.now = this.env.clock.now()
    return report
  }

  private nextDue(
    target: number,
  ): { at: number; sub: Stripe.Subscription; kind: 'renew' | 'cancel' | 'expire' } | undefined {
    let best: { at: number; sub: Stripe.Subscription; kind: 'renew' | 'cancel' | 'expire' } | undefined
    for (const sub of this.env.store.subscriptions.values()) {
      let candidate: typeof best
      if (sub.status === 'incomplete') {
        candidate = { at: sub.created + INCOMPLETE_EXPIRY_SECONDS, sub, kind: 'expire' }
      } else if (sub.status === 'active' || sub.status === 'past_due') {
        const end = this.periodEnd(sub)
        if (sub.cancel_at !== null && sub.cancel_at <= end)
          candidate = { at: sub.cancel_at, sub, kind: 'cancel' }
        else candidate = { at: end, sub, kind: 'renew' }
      }
      if (candidate && candidate.at <= target && (!best || candidate.at < best.at)) best = candidate
    }
    return best
  }

  /** Starts the next period and charges for it. Returns whether the payment went through. */
  private renew(sub: Stripe.Subscription): boolean {
    const state = this.state(sub)
    const before = structuredClone(sub)
    const oldStart = this.periodStart(sub)
    const oldEnd = this.periodEnd(sub)
    state.cycle += 1
    this.applyPeriod(sub)
    const invoice = this.draftInvoice(sub, 'subscription_cycle', oldStart, oldEnd)
    sub.latest_invoice = invoice.id
    this.emitSubscriptionUpdated(before, sub)
    this.env.events.emit('invoice.created', invoice)
    const forceDecline = state.failNextRenewal
    state.failNextRenewal = false
    return this.collect(invoice, sub, forceDecline)
  }

  routes(api: StripeApi): void {
    const render = this.env.renderer
    render.include('invoice', 'payments', (invoice) => {
      const payments = this.paymentsOf(String(invoice.id)).reverse()
      return {
        object: 'list',
        data: payments.map((payment) => structuredClone(payment)),
        has_more: false,
        total_count: payments.length,
        url: `/v1/invoice_payments?invoice=${String(invoice.id)}`,
      }
    })
    render.include('invoice', 'confirmation_secret', (invoice) => {
      const stored = this.env.store.invoices.get(String(invoice.id))
      const pi = stored && this.paymentIntentOf(stored)
      return pi?.client_secret ? { client_secret: pi.client_secret, type: 'payment_intent' } : null
    })

    api.post('/v1/subscriptions', (r) => r.render(this.createSubscription(r.params, r)))
    api.get('/v1/subscriptions', (r) => {
      const customer = r.params.str('customer')
      const price = r.params.str('price')
      const status = r.params.str('status')
      const created = createdFilter(r.params)
      const list = [...this.env.store.subscriptions.values()]
        .reverse()
        .filter(
          (sub) =>
            (!customer || sub.customer === customer) &&
            (!price || sub.items.data.some((item) => item.price.id === price)) &&
            (status === 'all' ||
              (status
                ? sub.status === status
                : sub.status !== 'canceled' && sub.status !== 'incomplete_expired')) &&
            created(sub.created),
        )
      return render.list(list, r.params, '/v1/subscriptions', r.expand)
    })
    api.get('/v1/subscriptions/:id', (r) => r.render(this.subscription(r.path.id ?? '')))
    api.post('/v1/subscriptions/:id', (r) =>
      r.render(this.updateSubscription(this.subscription(r.path.id ?? ''), r.params)),
    )
    api.delete('/v1/subscriptions/:id', (r) =>
      r.render(this.cancelSubscription(this.subscription(r.path.id ?? ''), r.params)),
    )

    api.get('/v1/invoices', (r) => {
      const customer = r.params.str('customer')
      const subscription = r.params.str('subscription')
      const status = r.params.str('status')
      const created = createdFilter(r.params)
      const list = [...this.env.store.invoices.values()]
        .reverse()
        .filter(
          (invoice) =>
            (!customer || invoice.customer === customer) &&
            (!subscription || invoice.parent?.subscription_details?.subscription === subscription) &&
            (!status || invoice.status === status) &&
            created(invoice.created),
        )
      return render.list(list, r.params, '/v1/invoices', r.expand)
    })
    api.get('/v1/invoices/:id', (r) => r.render(this.invoice(r.path.id ?? '')))
    api.post('/v1/invoices/:id/pay', (r) =>
      r.render(this.payInvoice(this.invoice(r.path.id ?? ''), r.params)),
    )

    api.get('/v1/invoice_payments', (r) => {
      const invoice = r.params.str('invoice')
      const payment = r.params.obj('payment')
      const piId = payment?.str('payment_intent')
      payment?.str('type')
      const status = r.params.str('status')
      const list = [...this.env.store.invoicePayments.values()]
        .reverse()
        .filter(
          (p) =>
            (!invoice || p.invoice === invoice) &&
            (!piId || p.payment.payment_intent === piId) &&
            (!status || p.status === status),
        )
      return render.list(list, r.params, '/v1/invoice_payments', r.expand)
    })
  }
}
