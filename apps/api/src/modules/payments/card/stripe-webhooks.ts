import { formatMoney, fromMinorUnits } from '@edgeclub/shared'
import type Stripe from 'stripe'
import type { Clock } from '../../../lib/clock'
import type { AccessService } from '../../subscriptions/access-service'
import type { Fulfilment } from '../common/fulfilment'
import type { PaymentsRepository } from '../common/payments-repository'
import type { PaymentsService } from '../common/payments-service'
import type { CardCheckoutService } from './card-checkout-service'
import type { StripeCatalog } from './stripe-catalog'
import { idOf, invoicePaymentIntentId, invoiceSubscriptionId, toPaidInvoice } from './stripe-objects'

/**
 * One handler per event type (the way Ghost's members service reads Stripe). Each reads the object
 * fresh from Stripe where order matters, so duplicates and out-of-order deliveries are harmless.
 * See integrations/stripe/README.md for the sequences.
 */
export function createStripeWebhooks(deps: {
  stripe: Stripe
  catalog: Pick<StripeCatalog, 'paidInvoice'>
  payments: PaymentsRepository
  ledger: PaymentsService
  card: CardCheckoutService
  access: Pick<
    AccessService,
    'findByStripeId' | 'renewalFailed' | 'applyStripeState' | 'trialEndsSoon' | 'renewalComingUp'
  >
  fulfilment: Fulfilment
  clock: Clock
}) {
  const { stripe, payments, clock } = deps

  async function onPaymentIntent(intentFromEvent: Stripe.PaymentIntent) {
    const payment = await payments.findByPaymentIntent(intentFromEvent.id)
    // Renewal intents have no row of ours until invoice.paid records them.
    if (!payment) return
    const intent = await stripe.paymentIntents.retrieve(intentFromEvent.id)
    await deps.card.syncIntent(payment, intent)
  }

  async function onInvoicePaid(invoiceFromEvent: Stripe.Invoice) {
    if (!invoiceFromEvent.id) return
    const invoice = await stripe.invoices.retrieve(invoiceFromEvent.id, { expand: ['payments'] })
    if (invoice.status !== 'paid' || !invoiceSubscriptionId(invoice)) return
    const intentId = toPaidInvoice(invoice, null)?.paymentIntentId
    const chargeId = intentId ? idOf((await stripe.paymentIntents.retrieve(intentId)).latest_charge) : null
    const paid = await deps.catalog.paidInvoice(invoice, chargeId)
    if (paid) await deps.fulfilment.fulfilInvoice(paid)
  }

  async function onInvoiceFailed(invoiceFromEvent: Stripe.Invoice) {
    if (!invoiceFromEvent.id) return
    const invoice = await stripe.invoices.retrieve(invoiceFromEvent.id, { expand: ['payments'] })
    if (invoice.status === 'paid') return
    const subscriptionId = invoiceSubscriptionId(invoice)
    if (!subscriptionId) return
    if (invoice.billing_reason === 'subscription_create') {
      const payment = await payments.findByInvoice(invoice.id)
      if (payment?.status === 'pending') {
        await payments.update(payment.id, {
          status: 'failed',
          failure_message: 'Your card was declined',
          updated_at: clock.now(),
        })
      }
      return
    }
    const local = await deps.access.findByStripeId(subscriptionId)
    if (!local || local.status === 'expired' || local.status === 'cancelled') return
    // The declined renewal shows in the member's history, once per invoice.
    await payments.insertForInvoiceIfMissing({
      user_id: local.user_id,
      plan_id: local.plan_id,
      kind: 'renewal',
      provider: 'stripe',
      status: 'failed',
      amount_minor: invoice.amount_due,
      currency: invoice.currency.toUpperCase(),
      stripe_invoice_id: invoice.id,
      stripe_subscription_id: subscriptionId,
      stripe_payment_intent_id: invoicePaymentIntentId(invoice),
      failure_message: 'Your renewal payment was declined',
    })
    await deps.access.renewalFailed(subscriptionId)
  }

  /** Renewal switch-offs, cancellations and terminal states, read from Stripe's current object. */
  async function onSubscriptionChanged(fromEvent: Stripe.Subscription) {
    if (!(await deps.access.findByStripeId(fromEvent.id))) return
    const current = await stripe.subscriptions.retrieve(fromEvent.id)
    await deps.access.applyStripeState(fromEvent.id, {
      status: current.status,
      cancelAtPeriodEnd: current.cancel_at_period_end,
      endedAt: current.ended_at ? new Date(current.ended_at * 1000) : null,
    })
  }

  /** Refunds: the ledger's bookkeeping, by the charge's total refunded so far. */
  async function onChargeRefunded(charge: Stripe.Charge) {
    const intentId = idOf(charge.payment_intent)
    const payment =
      (intentId ? await payments.findByPaymentIntent(intentId) : undefined) ??
      (await payments.findByCharge(charge.id))
    if (!payment) return
    await deps.ledger.applyRefund(payment.id, {
      amountRefundedMinor: charge.amount_refunded,
      full: charge.amount_refunded >= charge.amount,
    })
  }

  const money = (minor: number, currency: string) =>
    formatMoney(fromMinorUnits(minor, currency.toUpperCase()), currency.toUpperCase())

  /** Three days before a trial ends: the member hears when the first charge falls, and how much. */
  async function onTrialWillEnd(fromEvent: Stripe.Subscription) {
    if (!fromEvent.trial_end) return
    const item = fromEvent.items.data[0]
    const label =
      item?.price.unit_amount != null ? money(item.price.unit_amount, item.price.currency) : 'the plan price'
    await deps.access.trialEndsSoon(fromEvent.id, new Date(fromEvent.trial_end * 1000), label)
  }

  /** A renewal is coming (Stripe's invoice.upcoming): yearly members hear a week ahead. */
  async function onInvoiceUpcoming(invoice: Stripe.Invoice) {
    const subscriptionId = invoiceSubscriptionId(invoice)
    if (!subscriptionId) return
    const at = invoice.next_payment_attempt ?? invoice.period_end
    await deps.access.renewalComingUp(
      subscriptionId,
      new Date(at * 1000),
      money(invoice.amount_due, invoice.currency),
    )
  }

  const handlers: Partial<Record<string, (object: never) => Promise<void>>> = {
    'customer.subscription.trial_will_end': onTrialWillEnd,
    'invoice.upcoming': onInvoiceUpcoming,
    'payment_intent.succeeded': onPaymentIntent,
    'payment_intent.payment_failed': onPaymentIntent,
    'payment_intent.canceled': onPaymentIntent,
    'invoice.paid': onInvoicePaid,
    'invoice.payment_succeeded': onInvoicePaid,
    'invoice.payment_failed': onInvoiceFailed,
    'customer.subscription.updated': onSubscriptionChanged,
    'customer.subscription.deleted': onSubscriptionChanged,
    'charge.refunded': onChargeRefunded,
  }

  return {
    handles: (type: string) => type in handlers,
    /** Records the event, runs its handler; throws (so Stripe retries) if the handler fails. */
    async handle(event: Stripe.Event): Promise<'processed' | 'ignored'> {
      const handler = handlers[event.type]
      await payments.recordWebhookEvent({ id: event.id, provider: 'stripe', type: event.type })
      if (!handler) return 'ignored'
      try {
        await handler(event.data.object as never)
        await payments.finishWebhookEvent(event.id, { processedAt: clock.now() })
        return 'processed'
      } catch (error) {
        await payments.finishWebhookEvent(event.id, {
          error: error instanceof Error ? error.message : String(error),
        })
        throw error
      }
    },
  }
}
export type StripeWebhooks = ReturnType<typeof createStripeWebhooks>
