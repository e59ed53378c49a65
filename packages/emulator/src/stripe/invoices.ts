import type Stripe from 'stripe'
import type { StripeApi } from './api'
import type { Catalog } from './catalog'
import { decimal } from './catalog'
import type { Discounts } from './discounts'
import { changedFields, clockScope, type Env, inCustomerTime } from './env'
import { invalidRequest, noSuch } from './errors'
import type { Params } from './form'
import { newId } from './ids'
import type { AttemptOutcome, Payments } from './payments'
import { createdFilter } from './render'

/**
 * Subscription invoices in the shapes of the pinned API version: lines (full periods, prorations
 * and pending invoice items), discounts applied to the discountable lines, the customer's balance,
 * finalisation with a PaymentIntent listed in `payments`, and what happens when it is paid, fails,
 * needs 3-D Secure or is voided. Subscriptions decide what goes on an invoice; this module builds it.
 */

export type InvoiceReason = 'subscription_create' | 'subscription_cycle' | 'subscription_update' | 'upcoming'

/** A line before it is on an invoice. */
export interface LineDraft {
  /** The subscription item the line bills (a snapshot: its price and quantity at the time). */
  item: Stripe.SubscriptionItem
  amount: number
  description: string
  period: { start: number; end: number }
  proration: boolean
  /** Discounts already folded into a proration's amount (flexible billing, proration_discounts=included). */
  includedDiscounts: Array<{ amount: number; discount: string }>
  /** The pending invoice item this line comes from. */
  invoiceItem: string | null
}

export interface InvoiceDraft {
  sub: Stripe.Subscription
  reason: InvoiceReason
  periodStart: number
  periodEnd: number
  lines: LineDraft[]
  /** Discounts of the subscription that apply to this invoice's discountable lines. */
  discounts: Stripe.Discount[]
}

/** What the subscriptions module hears about invoices. */
export interface InvoiceHooks {
  paid(invoice: Stripe.Invoice, paymentMethod: Stripe.PaymentMethod | undefined): void
  paymentFailed(invoice: Stripe.Invoice): void
  actionRequired(invoice: Stripe.Invoice): void
  voided(invoice: Stripe.Invoice): void
}

export type CollectOutcome = 'paid' | 'failed' | 'requires_action'

export class Invoices {
  hooks: InvoiceHooks | undefined

  constructor(
    private readonly env: Env,
    private readonly catalog: Catalog,
    private readonly payments: Payments,
    private readonly discounts: Discounts,
  ) {
    payments.hooks = {
      succeeded: (pi, pm) => {
        const invoice = this.invoiceOf(pi)
        if (invoice?.status === 'open') this.markPaid(invoice, pi, pm)
      },
      failed: (pi) => {
        const invoice = this.invoiceOf(pi)
        if (invoice?.status !== 'open') return
        invoice.attempted = true
        invoice.attempt_count += 1
        this.env.events.emit('invoice.payment_failed', invoice)
        this.hooks?.paymentFailed(invoice)
      },
      requiresAction: (pi) => {
        const invoice = this.invoiceOf(pi)
        if (!invoice) return
        this.env.events.emit('invoice.payment_action_required', invoice)
        this.hooks?.actionRequired(invoice)
      },
      canceled: () => {},
    }
  }

  invoice(id: string, param = 'id'): Stripe.Invoice {
    const invoice = this.env.store.invoices.get(id)
    if (!invoice) throw noSuch('invoice', id, param)
    return invoice
  }

  // ---- Lines ----

  periodLine(item: Stripe.SubscriptionItem, period: { start: number; end: number }): LineDraft {
    const quantity = item.quantity ?? 1
    const unit = item.price.unit_amount ?? 0
    return {
      item: structuredClone(item),
      amount: unit * quantity,
      description: `${quantity} × ${this.productName(item)} (at ${money(unit, item.price.currency)} / ${item.price.recurring?.interval})`,
      period,
      proration: false,
      includedDiscounts: [],
      invoiceItem: null,
    }
  }

  trialLine(item: Stripe.SubscriptionItem, period: { start: number; end: number }): LineDraft {
    return {
      ...this.periodLine(item, period),
      amount: 0,
      description: `Trial period for ${this.productName(item)}`,
    }
  }

  productName(item: Stripe.SubscriptionItem): string {
    return this.env.store.products.get(item.price.product as string)?.name ?? 'Subscription'
  }

  /** Proration items waiting for the subscription's next invoice. */
  pendingItems(subId: string): Stripe.InvoiceItem[] {
    return [...this.env.store.invoiceItems.values()].filter(
      (ii) => ii.invoice === null && ii.parent?.subscription_details?.subscription === subId,
    )
  }

  /** A proration that waits for the next invoice (`proration_behavior=create_prorations`). */
  addPendingItem(sub: Stripe.Subscription, line: LineDraft): Stripe.InvoiceItem {
    const ii: Stripe.InvoiceItem = {
      id: newId('ii'),
      object: 'invoiceitem',
      amount: line.amount,
      currency: sub.currency,
      customer: sub.customer as string,
      customer_account: null,
      date: this.env.clock.now(),
      description: line.description,
      discountable: false,
      discounts: [],
      invoice: null,
      livemode: false,
      metadata: {},
      net_amount: line.amount,
      parent: {
        type: 'subscription_details',
        subscription_details: { subscription: sub.id, subscription_item: line.item.id },
      },
      period: line.period,
      pricing: {
        type: 'price_details',
        price_details: { price: line.item.price.id, product: line.item.price.product as string },
        unit_amount_decimal: decimal(line.item.price.unit_amount),
      },
      proration: line.proration,
      proration_details: { credited_items: null, discount_amounts: line.includedDiscounts },
      quantity: line.item.quantity ?? 1,
      quantity_decimal: decimal(line.item.quantity ?? 1) as unknown as Stripe.InvoiceItem['quantity_decimal'],
      tax_rates: [],
      test_clock: sub.test_clock,
    }
    this.env.store.invoiceItems.set(ii.id, ii)
    this.env.events.emit('invoiceitem.created', ii)
    return ii
  }

  lineFromPendingItem(ii: Stripe.InvoiceItem, sub: Stripe.Subscription): LineDraft {
    const itemId = ii.parent?.subscription_details?.subscription_item
    const item =
      sub.items.data.find((candidate) => candidate.id === itemId) ??
      (sub.items.data[0] as Stripe.SubscriptionItem)
    const priceId = ii.pricing?.price_details?.price
    const price = typeof priceId === 'string' ? this.env.store.prices.get(priceId) : undefined
    return {
      item: {
        ...structuredClone(item),
        ...(price ? { price: structuredClone(price) } : {}),
        quantity: ii.quantity,
      },
      amount: ii.amount,
      description: ii.description ?? '',
      period: ii.period,
      proration: ii.proration,
      includedDiscounts:
        ii.proration_details?.discount_amounts.map((d) => ({
          amount: d.amount,
          discount: d.discount as string,
        })) ?? [],
      invoiceItem: ii.id,
    }
  }

  // ---- Building ----

  /**
   * An invoice for the lines, with the discounts applied and the customer's balance counted.
   * Stored as a draft unless it is a preview (`create_preview`, `invoice.upcoming`).
   */
  build(draft: InvoiceDraft, options: { preview?: boolean } = {}): Stripe.Invoice {
    const { sub } = draft
    const customer = this.catalog.customer(sub.customer as string)
    const now = this.env.clock.now()
    const id = options.preview ? `upcoming_${newId('in')}` : newId('in')
    const discountAmounts = this.discounts.amounts(
      draft.lines.map((line) => ({
        amount: line.amount,
        product: line.item.price.product as string,
        discountable: !line.proration,
      })),
      draft.discounts,
    )
    const lines: Stripe.InvoiceLineItem[] = draft.lines.map((line, index) => {
      const discounts = discountAmounts[index] ?? []
      const quantity = line.item.quantity ?? 1
      return {
        id: newId('il'),
        object: 'line_item',
        amount: line.amount,
        currency: sub.currency,
        description: line.description,
        discount_amounts: discounts,
        discountable: !line.proration,
        discounts: [],
        invoice: id,
        livemode: false,
        metadata: line.proration ? {} : { ...sub.metadata },
        parent: {
          type: 'subscription_item_details',
          invoice_item_details: null,
          subscription_item_details: {
            invoice_item: line.invoiceItem,
            proration: line.proration,
            proration_details: { credited_items: null },
            subscription: sub.id,
            subscription_item: line.item.id,
          },
        },
        period: line.period,
        pretax_credit_amounts: discounts.map((d) => ({
          amount: d.amount,
          discount: d.discount,
          type: 'discount',
        })),
        pricing: {
          type: 'price_details',
          price_details: { price: line.item.price.id, product: line.item.price.product as string },
          unit_amount_decimal: decimal(line.item.price.unit_amount),
        },
        quantity,
        quantity_decimal: decimal(quantity),
        subscription: sub.id,
        subtotal: line.amount,
        taxes: [],
      }
    })
    const subtotal = lines.reduce((sum, line) => sum + line.amount, 0)
    const byDiscount = new Map<string, number>()
    for (const amounts of discountAmounts) {
      for (const d of amounts) byDiscount.set(d.discount, (byDiscount.get(d.discount) ?? 0) + d.amount)
    }
    const discountTotal = [...byDiscount.values()].reduce((sum, amount) => sum + amount, 0)
    const total = subtotal - discountTotal
    // The customer's balance (negative: credit) settles part of the invoice, as on Stripe.
    const balance = customer.balance
    const due = Math.max(0, total + balance)
    const invoice: Stripe.Invoice = {
      id,
      object: 'invoice',
      account_country: 'US',
      account_name: 'EdgeClub (emulated Stripe)',
      account_tax_ids: null,
      amount_due: due,
      amount_overpaid: 0,
      amount_paid: 0,
      amount_remaining: due,
      amount_shipping: 0,
      application: null,
      attempt_count: 0,
      attempted: false,
      auto_advance: !options.preview,
      automatic_tax: { disabled_reason: null, enabled: false, liability: null, provider: null, status: null },
      automatically_finalizes_at: null,
      billing_reason: draft.reason,
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
      discounts: draft.discounts.map((d) => d.id),
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
      period_end: draft.periodEnd,
      period_start: draft.periodStart,
      post_payment_credit_notes_amount: 0,
      pre_payment_credit_notes_amount: 0,
      receipt_number: null,
      rendering: null,
      shipping_cost: null,
      shipping_details: null,
      starting_balance: balance,
      statement_descriptor: null,
      status: 'draft',
      status_transitions: {
        finalized_at: null,
        marked_uncollectible_at: null,
        paid_at: null,
        voided_at: null,
      },
      subtotal,
      subtotal_excluding_tax: subtotal,
      test_clock: clockScope(this.env, customer.id),
      total,
      total_discount_amounts: [...byDiscount].map(([discount, amount]) => ({ amount, discount })),
      total_excluding_tax: total,
      total_pretax_credit_amounts: [...byDiscount].map(([discount, amount]) => ({
        amount,
        discount,
        type: 'discount',
      })),
      total_taxes: [],
      webhooks_delivered_at: null,
    }
    ;(invoice.lines as unknown as { total_count: number }).total_count = lines.length
    if (options.preview) return invoice
    this.env.store.invoices.set(id, invoice)
    for (const line of draft.lines) {
      const ii = line.invoiceItem ? this.env.store.invoiceItems.get(line.invoiceItem) : undefined
      if (ii) ii.invoice = id
    }
    return invoice
  }

  /** What each discountable line of an invoice was charged after discounts, by subscription item. */
  netByItem(invoice: Stripe.Invoice): Map<string, number> {
    const net = new Map<string, number>()
    for (const line of invoice.lines.data) {
      const details = line.parent?.subscription_item_details
      if (!details || details.proration) continue
      const off = (line.discount_amounts ?? []).reduce((sum, d) => sum + d.amount, 0)
      net.set(details.subscription_item, (net.get(details.subscription_item) ?? 0) + line.amount - off)
    }
    return net
  }

  // ---- Finalising and paying ----

  /** Finalises the invoice and creates the PaymentIntent that pays it (none when nothing is due). */
  finalize(invoice: Stripe.Invoice, sub: Stripe.Subscription): Stripe.PaymentIntent | undefined {
    const now = this.env.clock.now()
    const customerId = invoice.customer as string
    const customer = this.catalog.customer(customerId)
    this.assignNumber(invoice)
    invoice.status = 'open'
    invoice.status_transitions.finalized_at = now
    invoice.effective_at = now
    // The balance is applied at finalisation; what is left over (credit) stays on the customer.
    const balance = customer.balance
    invoice.starting_balance = balance
    invoice.amount_due = Math.max(0, invoice.total + balance)
    invoice.amount_remaining = invoice.amount_due
    invoice.ending_balance = invoice.total + balance - invoice.amount_due
    if (invoice.ending_balance !== balance) {
      const before = structuredClone(customer)
      customer.balance = invoice.ending_balance
      this.env.events.emit('customer.updated', customer, changedFields(before, customer, ['balance']))
    }
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

  private assignNumber(invoice: Stripe.Invoice): void {
    const customerId = invoice.customer as string
    const numbering = this.env.store.invoicePrefixes.get(customerId) ?? {
      prefix: this.catalog.customer(customerId).invoice_prefix ?? 'EMU',
      next: 1,
    }
    invoice.number = `${numbering.prefix}-${String(numbering.next).padStart(4, '0')}`
    numbering.next += 1
    this.env.store.invoicePrefixes.set(customerId, numbering)
  }

  defaultPaymentMethod(sub: Stripe.Subscription): Stripe.PaymentMethod | undefined {
    const customer = this.env.store.customers.get(sub.customer as string)
    const id =
      (sub.default_payment_method as string | null) ?? customer?.invoice_settings.default_payment_method
    return typeof id === 'string' ? this.env.store.paymentMethods.get(id) : undefined
  }

  /**
   * Finalises the invoice and charges the subscription's default payment method: off-session for
   * renewals (3-D Secure cannot happen, so such cards fail), on-session for updates made through
   * the API (a 3-D Secure card then leaves the PaymentIntent in requires_action).
   */
  collect(
    invoice: Stripe.Invoice,
    sub: Stripe.Subscription,
    options: { offSession: boolean; forceDecline?: boolean; origin?: string },
  ): CollectOutcome {
    const pi = this.finalize(invoice, sub)
    if (!pi) return 'paid'
    const pm = this.defaultPaymentMethod(sub)
    if (!pm) {
      // No card on file: the attempt fails without a charge, as Stripe's does.
      invoice.attempted = true
      invoice.attempt_count += 1
      this.env.events.emit('invoice.payment_failed', invoice)
      this.hooks?.paymentFailed(invoice)
      return 'failed'
    }
    let outcome: AttemptOutcome
    if (options.offSession) outcome = this.payments.chargeOffSession(pi, pm, options.forceDecline ?? false)
    else {
      pi.payment_method = pm.id
      outcome = this.payments.confirmResolved(pi, {
        offSession: false,
        origin: options.origin ?? '',
        auth: 'secret',
        useStripeSdk: false,
      })
    }
    if (outcome.status === 'succeeded') return 'paid'
    return outcome.status === 'requires_action' ? 'requires_action' : 'failed'
  }

  paymentsOf(invoiceId: string): Stripe.InvoicePayment[] {
    return [...this.env.store.invoicePayments.values()].filter((p) => p.invoice === invoiceId)
  }

  paymentIntentOf(invoice: Stripe.Invoice): Stripe.PaymentIntent | undefined {
    const payment = this.paymentsOf(invoice.id).find((p) => p.is_default)
    const piId = payment?.payment.payment_intent
    return typeof piId === 'string' ? this.env.store.paymentIntents.get(piId) : undefined
  }

  invoiceOf(pi: Stripe.PaymentIntent): Stripe.Invoice | undefined {
    const id = this.env.store.paymentIntentState.get(pi.id)?.invoiceId
    return id ? this.env.store.invoices.get(id) : undefined
  }

  subscriptionOf(invoice: Stripe.Invoice): Stripe.Subscription | undefined {
    const id = invoice.parent?.subscription_details?.subscription
    return typeof id === 'string' ? this.env.store.subscriptions.get(id) : undefined
  }

  markPaid(
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
    this.hooks?.paid(invoice, pm)
  }

  /** Voids an open invoice (`draft` too when collection is paused with behavior `void`). */
  voidInvoice(invoice: Stripe.Invoice, options: { draftToo?: boolean } = {}): Stripe.Invoice {
    if (invoice.status !== 'open' && !(options.draftToo && invoice.status === 'draft')) {
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
    if (invoice.number === null) this.assignNumber(invoice)
    invoice.status = 'void'
    invoice.amount_remaining = 0
    invoice.status_transitions.voided_at = this.env.clock.now()
    this.env.events.emit(
      'invoice.voided',
      invoice,
      changedFields(before, invoice, ['status', 'amount_remaining', 'status_transitions', 'number']),
    )
    this.hooks?.voided(invoice)
    return invoice
  }

  /** `pause_collection[behavior]=mark_uncollectible`: finalised without a charge, then written off. */
  markUncollectible(invoice: Stripe.Invoice): Stripe.Invoice {
    this.assignNumber(invoice)
    const now = this.env.clock.now()
    invoice.status = 'open'
    invoice.status_transitions.finalized_at = now
    invoice.effective_at = now
    this.env.events.emit('invoice.finalized', invoice)
    const before = structuredClone(invoice)
    invoice.status = 'uncollectible'
    invoice.status_transitions.marked_uncollectible_at = now
    this.env.events.emit(
      'invoice.marked_uncollectible',
      invoice,
      changedFields(before, invoice, ['status', 'status_transitions']),
    )
    return invoice
  }

  /** `POST /v1/invoices/:id/pay`: charges the open invoice now, with `payment_method` or the default. */
  payInvoice(invoice: Stripe.Invoice, params: Params): Stripe.Invoice {
    const pmId = params.str('payment_method')
    const offSession = params.bool('off_session') ?? true
    params.rejectUnknown(['forgive', 'paid_out_of_band', 'mandate', 'source'])
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
    const outcome = offSession
      ? this.payments.chargeOffSession(pi, pm)
      : (() => {
          pi.payment_method = pm.id
          return this.payments.confirmResolved(pi, {
            offSession: false,
            origin: '',
            auth: 'secret',
            useStripeSdk: false,
          })
        })()
    if (outcome.status === 'failed') throw this.payments.declineError(pi, outcome, 'secret')
    if (outcome.status === 'requires_action') {
      throw invalidRequest(
        'This payment requires additional user action before it can be completed successfully.',
        {
          code: 'invoice_payment_intent_requires_action',
          status: 402,
        },
      )
    }
    return invoice
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
    api.post('/v1/invoices/:id/pay', (r) => {
      const invoice = this.invoice(r.path.id ?? '')
      return inCustomerTime(this.env, invoice.customer, () => r.render(this.payInvoice(invoice, r.params)))
    })
    api.post('/v1/invoices/:id/void', (r) => {
      const invoice = this.invoice(r.path.id ?? '')
      r.params.rejectUnknown()
      return inCustomerTime(this.env, invoice.customer, () => r.render(this.voidInvoice(invoice)))
    })

    api.get('/v1/invoiceitems', (r) => {
      const customer = r.params.str('customer')
      const invoice = r.params.str('invoice')
      const pending = r.params.bool('pending')
      const created = createdFilter(r.params)
      const list = [...this.env.store.invoiceItems.values()]
        .reverse()
        .filter(
          (ii) =>
            (!customer || ii.customer === customer) &&
            (!invoice || ii.invoice === invoice) &&
            (pending === undefined || (ii.invoice === null) === pending) &&
            created(ii.date),
        )
      return render.list(list, r.params, '/v1/invoiceitems', r.expand)
    })

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

export function money(amount: number, currency: string): string {
  const symbol = currency === 'usd' ? '$' : currency === 'eur' ? '€' : currency === 'gbp' ? '£' : ''
  const value = (amount / 100).toFixed(2)
  return symbol ? `${symbol}${value}` : `${value} ${currency.toUpperCase()}`
}
