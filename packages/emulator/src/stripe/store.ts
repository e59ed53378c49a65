import type Stripe from 'stripe'
import type { TestCard } from './cards'

/**
 * Everything the emulated Stripe account holds, in memory. The maps keep insertion order, which is
 * creation order, so lists (newest first) are the maps reversed.
 */

export interface PaymentIntentState {
  /** The invoice that created this PaymentIntent, if any (the wire object no longer says). */
  invoiceId?: string
  /** Off-session charges (renewals) cannot stop for 3-D Secure. */
  offSession?: boolean
  /** Where the browser or the SDK confirmed from, for 3-D Secure URLs. */
  origin?: string
}

export interface SubscriptionState {
  /** Periods are counted from the anchor so month ends do not drift (31 Jan, 28 Feb, 31 Mar). */
  anchor: number
  cycle: number
  failNextRenewal: boolean
}

export class Store {
  readonly customers = new Map<string, Stripe.Customer>()
  readonly products = new Map<string, Stripe.Product>()
  readonly prices = new Map<string, Stripe.Price>()
  readonly paymentMethods = new Map<string, Stripe.PaymentMethod>()
  readonly paymentIntents = new Map<string, Stripe.PaymentIntent>()
  readonly charges = new Map<string, Stripe.Charge>()
  readonly refunds = new Map<string, Stripe.Refund>()
  readonly subscriptions = new Map<string, Stripe.Subscription>()
  readonly invoices = new Map<string, Stripe.Invoice>()
  readonly invoicePayments = new Map<string, Stripe.InvoicePayment>()
  readonly events = new Map<string, Stripe.Event>()

  readonly cards = new Map<string, TestCard>()
  readonly paymentIntentState = new Map<string, PaymentIntentState>()
  readonly subscriptionState = new Map<string, SubscriptionState>()
  /** Per customer, so invoice numbers read like Stripe's (`PREFIX-0001`). */
  readonly invoicePrefixes = new Map<string, { prefix: string; next: number }>()

  private readonly byPrefix: Record<string, Map<string, { id: string; object: string }>> = {
    cus: this.customers,
    prod: this.products,
    price: this.prices,
    pm: this.paymentMethods,
    pi: this.paymentIntents,
    ch: this.charges,
    re: this.refunds,
    sub: this.subscriptions,
    in: this.invoices,
    inpay: this.invoicePayments,
    evt: this.events,
  }

  /** Any stored object by id, for expansion. Products may carry caller-chosen ids, hence the fallback. */
  find(id: string): { id: string; object: string } | undefined {
    const prefix = id.slice(0, id.indexOf('_'))
    return this.byPrefix[prefix]?.get(id) ?? this.products.get(id)
  }

  clear(): void {
    for (const map of Object.values(this.byPrefix)) map.clear()
    this.cards.clear()
    this.paymentIntentState.clear()
    this.subscriptionState.clear()
    this.invoicePrefixes.clear()
  }

  counts(): Record<string, number> {
    return {
      customers: this.customers.size,
      products: this.products.size,
      prices: this.prices.size,
      paymentMethods: this.paymentMethods.size,
      paymentIntents: this.paymentIntents.size,
      charges: this.charges.size,
      refunds: this.refunds.size,
      subscriptions: this.subscriptions.size,
      invoices: this.invoices.size,
      invoicePayments: this.invoicePayments.size,
      events: this.events.size,
    }
  }
}
