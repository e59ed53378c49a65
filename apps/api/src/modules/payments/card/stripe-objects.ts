import type Stripe from 'stripe'
import type { PaidInvoice } from '../common/fulfilment'

/** Reading the parts of Stripe objects we rely on, in the shapes of the pinned API version. */

export const idOf = (value: string | { id: string } | null | undefined): string | null =>
  value == null ? null : typeof value === 'string' ? value : value.id

export function invoiceSubscriptionId(invoice: Stripe.Invoice): string | null {
  return idOf(invoice.parent?.subscription_details?.subscription ?? null)
}

/** The PaymentIntent paying an invoice (expand `payments` when retrieving it). */
export function invoicePaymentIntentId(invoice: Stripe.Invoice): string | null {
  for (const entry of invoice.payments?.data ?? []) {
    const id = idOf(entry.payment?.payment_intent ?? null)
    if (id) return id
  }
  return null
}

/**
 * The price a subscription invoice bills: its full-period line (a renewal, a new cycle), else its
 * largest prorated line (a same-interval upgrade). The plan of that price is the plan now paid for.
 */
export function invoicePriceId(invoice: Stripe.Invoice): string | null {
  const lines = invoice.lines.data.filter((line) => line.pricing?.price_details?.price)
  const full = lines.filter((line) => !line.parent?.subscription_item_details?.proration)
  const pick = (full.length > 0 ? full : lines).reduce<Stripe.InvoiceLineItem | undefined>(
    (best, line) => (!best || line.amount > best.amount ? line : best),
    undefined,
  )
  return idOf(pick?.pricing?.price_details?.price ?? null)
}

export function toPaidInvoice(invoice: Stripe.Invoice, chargeId: string | null): PaidInvoice | undefined {
  const subscriptionId = invoiceSubscriptionId(invoice)
  if (!invoice.id || !subscriptionId) return undefined
  const periods = invoice.lines.data.map((line) => line.period)
  const start = Math.min(...periods.map((period) => period.start))
  const end = Math.max(...periods.map((period) => period.end))
  const metadata = invoice.parent?.subscription_details?.metadata ?? {}
  // A trial's first invoice ($0) covers the trial: its end is when the first charge falls.
  const trial = metadata.trial === '1' && invoice.billing_reason === 'subscription_create'
  return {
    id: invoice.id,
    subscriptionId,
    billingReason: invoice.billing_reason ?? null,
    trialEndsAt: trial ? new Date(end * 1000) : null,
    amountPaid: invoice.amount_paid,
    currency: invoice.currency,
    periodStart: new Date(start * 1000),
    periodEnd: new Date(end * 1000),
    userId: metadata.userId,
    planId: metadata.planId,
    paymentIntentId: invoicePaymentIntentId(invoice),
    chargeId,
  }
}
