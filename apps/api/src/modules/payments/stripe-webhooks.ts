import type { FastifyBaseLogger } from 'fastify'
import type { Kysely } from 'kysely'
import type Stripe from 'stripe'
import type { DB } from '../../db/types'
import type { Clock } from '../../lib/clock'
import type { SubscriptionsRepository } from '../subscriptions/subscriptions-repository'
import type { CheckoutService } from './checkout-service'
import type { Fulfilment } from './fulfilment'
import type { PaymentsRepository } from './payments-repository'
import { idOf, invoiceSubscriptionId, toPaidInvoice } from './stripe-objects'

/**
 * One handler per event type (the way Ghost's members service reads Stripe). Each reads the object
 * fresh from Stripe where order matters, so duplicates and out-of-order deliveries are harmless.
 * See integrations/stripe/README.md for the sequences.
 */
export function createStripeWebhooks(deps: {
  stripe: Stripe
  db: Kysely<DB>
  payments: PaymentsRepository
  subscriptions: SubscriptionsRepository
  checkout: CheckoutService
  fulfilment: Fulfilment
  clock: Clock
  log: FastifyBaseLogger
  hooks: {
    accessChanged(userId: string): Promise<void>
    cancelledByStripe(subscriptionId: string): Promise<void>
  }
}) {
  const { stripe, payments, subscriptions, clock } = deps

  async function onPaymentIntent(intentFromEvent: Stripe.PaymentIntent) {
    const payment = await payments.findByPaymentIntent(intentFromEvent.id)
    // Renewal intents have no row of ours until invoice.paid records them.
    if (!payment) return
    const intent = await stripe.paymentIntents.retrieve(intentFromEvent.id)
    await deps.checkout.syncIntent(payment, intent)
  }

  async function onInvoicePaid(invoiceFromEvent: Stripe.Invoice) {
    if (!invoiceFromEvent.id) return
    const invoice = await stripe.invoices.retrieve(invoiceFromEvent.id, { expand: ['payments'] })
    if (invoice.status !== 'paid' || !invoiceSubscriptionId(invoice)) return
    const intentId = toPaidInvoice(invoice, null)?.paymentIntentId
    const chargeId = intentId ? idOf((await stripe.paymentIntents.retrieve(intentId)).latest_charge) : null
    const paid = toPaidInvoice(invoice, chargeId)
    if (paid) await deps.fulfilment.fulfilInvoice(paid)
  }

  async function onInvoiceFailed(invoiceFromEvent: Stripe.Invoice) {
    if (!invoiceFromEvent.id) return
    const invoice = await stripe.invoices.retrieve(invoiceFromEvent.id, { expand: ['payments'] })
    if (invoice.status === 'paid') return
    const subscriptionId = invoiceSubscriptionId(invoice)
    if (!subscriptionId) return
    if (invoice.billing_reason === 'subscription_create') {
      const payment = await deps.db
        .selectFrom('payments')
        .selectAll()
        .where('stripe_invoice_id', '=', invoice.id)
        .executeTakeFirst()
      if (payment?.status === 'pending') {
        await payments.update(payment.id, {
          status: 'failed',
          failure_message: 'Your card was declined',
          updated_at: clock.now(),
        })
      }
      return
    }
    await deps.checkout.markRenewalFailed(subscriptionId, invoice)
  }

  /** Renewal switch-offs, cancellations and terminal states, read from Stripe's current object. */
  async function onSubscriptionChanged(fromEvent: Stripe.Subscription) {
    const local = await subscriptions.findByStripeId(fromEvent.id)
    if (!local) return
    const current = await stripe.subscriptions.retrieve(fromEvent.id)
    const now = clock.now()
    if (
      current.status === 'canceled' ||
      current.status === 'incomplete_expired' ||
      current.status === 'unpaid'
    ) {
      const endedAt = current.ended_at ? new Date(current.ended_at * 1000) : now
      const endDate =
        local.end_date && new Date(local.end_date) < endedAt ? new Date(local.end_date) : endedAt
      if (local.status !== 'cancelled' && local.status !== 'expired') {
        await subscriptions.update(local.id, {
          status: endDate > now ? 'active' : 'cancelled',
          end_date: endDate,
          cancel_at_period_end: true,
          ended_at: endDate > now ? null : endedAt,
          updated_at: now,
        })
        await deps.hooks.accessChanged(local.user_id)
      }
      return
    }
    if (current.cancel_at_period_end && !local.cancel_at_period_end) {
      // The member's own cancel may be marking the row right now: only one of us sends the notice.
      if (await subscriptions.markCancelling(local.id, now)) await deps.hooks.cancelledByStripe(local.id)
    } else if (!current.cancel_at_period_end && local.cancel_at_period_end) {
      await subscriptions.update(local.id, {
        cancel_at_period_end: false,
        cancelled_at: null,
        updated_at: now,
      })
    }
  }

  /** Refunds: a full refund ends the access it paid for (docs/decisions/008); a partial one keeps it. */
  async function onChargeRefunded(charge: Stripe.Charge) {
    const intentId = idOf(charge.payment_intent)
    const payment =
      (intentId ? await payments.findByPaymentIntent(intentId) : undefined) ??
      (await payments.findByCharge(charge.id))
    if (!payment) return
    const now = clock.now()
    const full = charge.amount_refunded >= charge.amount
    const ended = await payments.transaction(async (trx) => {
      const locked = await payments.findByIdForUpdate(payment.id, trx)
      if (!locked || locked.amount_refunded_minor === charge.amount_refunded) return undefined
      await payments.update(
        locked.id,
        {
          status: full ? 'refunded' : 'partially_refunded',
          amount_refunded_minor: charge.amount_refunded,
          updated_at: now,
        },
        trx,
      )
      if (!full) return undefined
      const period = await trx
        .selectFrom('subscription_periods')
        .innerJoin('subscriptions', 'subscriptions.id', 'subscription_periods.subscription_id')
        .select([
          'subscriptions.id',
          'subscriptions.user_id',
          'subscriptions.stripe_subscription_id',
          'subscriptions.status',
        ])
        .where('subscription_periods.payment_id', '=', locked.id)
        .executeTakeFirst()
      if (!period || period.status === 'expired' || period.status === 'cancelled') return undefined
      await subscriptions.update(
        period.id,
        { status: 'cancelled', end_date: now, ended_at: now, updated_at: now },
        trx,
      )
      return period
    })
    if (!ended) return
    if (ended.stripe_subscription_id) {
      await stripe.subscriptions.cancel(ended.stripe_subscription_id).catch((error: unknown) => {
        deps.log.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'could not cancel a refunded subscription in Stripe',
        )
      })
    }
    await deps.hooks.accessChanged(ended.user_id)
  }

  const handlers: Partial<Record<string, (object: never) => Promise<void>>> = {
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
    /** The refund bookkeeping, also run right after an admin refunds (not only when the event lands). */
    applyRefund: onChargeRefunded,
    handles: (type: string) => type in handlers,
    /** Records the event, runs its handler; throws (so Stripe retries) if the handler fails. */
    async handle(event: Stripe.Event): Promise<'processed' | 'ignored'> {
      const handler = handlers[event.type]
      await deps.db
        .insertInto('webhook_events')
        .values({ id: event.id, provider: 'stripe', type: event.type })
        .onConflict((oc) =>
          oc.column('id').doUpdateSet((eb) => ({ attempts: eb('webhook_events.attempts', '+', 1) })),
        )
        .execute()
      if (!handler) return 'ignored'
      try {
        await handler(event.data.object as never)
        await deps.db
          .updateTable('webhook_events')
          .set({ processed_at: clock.now(), last_error: null })
          .where('id', '=', event.id)
          .execute()
        return 'processed'
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        await deps.db
          .updateTable('webhook_events')
          .set({ last_error: message.slice(0, 500) })
          .where('id', '=', event.id)
          .execute()
        throw error
      }
    },
  }
}
export type StripeWebhooks = ReturnType<typeof createStripeWebhooks>
