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

/** What an item's current period was charged, net of discounts (flexible billing mode credits from it). */
export interface ItemDebit {
  amount: number
  start: number
  end: number
}

/** A subscription change waiting for its invoice to be paid (`payment_behavior=pending_if_incomplete`). */
export interface PendingChange {
  invoiceId: string
  items: Stripe.SubscriptionItem[]
  /** The new anchor when the change restarts the billing cycle. */
  anchor: number | null
  debits: Record<string, ItemDebit>
  /** True while the update request itself is paying: success then needs no separate announcement. */
  inline: boolean
}

export interface SubscriptionState {
  /** Periods are counted from the anchor so month ends do not drift (31 Jan, 28 Feb, 31 Mar). */
  anchor: number
  cycle: number
  failNextRenewal: boolean
  /** The trial end that `customer.subscription.trial_will_end` went out for (once per trial). */
  trialWillEndFor: number | null
  /** The renewal that `invoice.upcoming` went out for (once per period). */
  upcomingFor: number | null
  /** Per subscription item id. */
  debits: Record<string, ItemDebit>
  pending: PendingChange | null
  /** `once` discounts already spent on an invoice; they leave the subscription at the next renewal. */
  usedOnce: string[]
}

export interface SetupIntentState {
  /** Where the browser or the SDK confirmed from, for 3-D Secure URLs. */
  origin?: string
}

export interface CouponState {
  /** `applies_to[products]`, an includable field on the wire. */
  appliesTo: string[] | null
  /** Deleted coupons disappear from the API but keep working for discounts already granted, as on Stripe. */
  deleted: boolean
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
  readonly testClocks = new Map<string, Stripe.TestHelpers.TestClock>()
  readonly setupIntents = new Map<string, Stripe.SetupIntent>()
  readonly setupAttempts = new Map<string, Stripe.SetupAttempt>()
  readonly coupons = new Map<string, Stripe.Coupon>()
  readonly promotionCodes = new Map<string, Stripe.PromotionCode>()
  readonly discounts = new Map<string, Stripe.Discount>()
  readonly invoiceItems = new Map<string, Stripe.InvoiceItem>()
  readonly subscriptionSchedules = new Map<string, Stripe.SubscriptionSchedule>()

  readonly cards = new Map<string, TestCard>()
  readonly paymentIntentState = new Map<string, PaymentIntentState>()
  readonly subscriptionState = new Map<string, SubscriptionState>()
  readonly setupIntentState = new Map<string, SetupIntentState>()
  readonly couponState = new Map<string, CouponState>()
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
    clock: this.testClocks,
    seti: this.setupIntents,
    setatt: this.setupAttempts,
    promo: this.promotionCodes,
    di: this.discounts,
    ii: this.invoiceItems,
  }

  /**
   * Any stored object by id, for expansion. Products and coupons may carry caller-chosen ids, hence
   * the fallbacks; schedule ids (`sub_sched_`) share their first segment with subscriptions.
   */
  find(id: string): { id: string; object: string } | undefined {
    if (id.startsWith('sub_sched_')) return this.subscriptionSchedules.get(id)
    const prefix = id.slice(0, id.indexOf('_'))
    const coupon = this.coupons.get(id)
    return (
      this.byPrefix[prefix]?.get(id) ??
      this.products.get(id) ??
      (coupon && !this.couponState.get(id)?.deleted ? coupon : undefined)
    )
  }

  clear(): void {
    for (const map of Object.values(this.byPrefix)) map.clear()
    this.coupons.clear()
    this.subscriptionSchedules.clear()
    this.cards.clear()
    this.paymentIntentState.clear()
    this.subscriptionState.clear()
    this.setupIntentState.clear()
    this.couponState.clear()
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
      testClocks: this.testClocks.size,
      setupIntents: this.setupIntents.size,
      coupons: this.coupons.size,
      promotionCodes: this.promotionCodes.size,
      invoiceItems: this.invoiceItems.size,
      subscriptionSchedules: this.subscriptionSchedules.size,
    }
  }
}
