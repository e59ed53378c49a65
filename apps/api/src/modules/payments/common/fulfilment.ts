import type { Transaction } from 'kysely'
import type { DB, PaymentRow, PlanRow } from '../../../db/types'
import type { Clock } from '../../../lib/clock'
import type { AccessService } from '../../subscriptions/access-service'
import { periodEndOf } from '../../subscriptions/periods'
import type { PaymentsRepository } from './payments-repository'

/**
 * The one path from "Stripe (or BTCPay) says it is paid" to access. Keyed by the Stripe object id or
 * the BTCPay invoice id and run under a row lock, so duplicate, concurrent and out-of-order calls
 * change nothing twice: a payment becomes completed once, and only that transition grants its access
 * period (through the access service, which queues "access changed") and records what follows the
 * payment (receipt, closing the other rail) in the outbox, inside the same transaction.
 */

export type FulfilOutcome = 'fulfilled' | 'already' | 'unknown'

/** Payment states that already granted what they paid for. */
const SETTLED = new Set(['completed', 'refunded', 'partially_refunded'])

export interface PaidIntent {
  id: string
  amountReceived: number
  chargeId: string | null
}

export interface PaidInvoice {
  id: string
  subscriptionId: string
  /** Stripe's reason: subscription_create, subscription_cycle (a renewal), subscription_update (an upgrade)... */
  billingReason: string | null
  /** Set on a trial's first ($0) invoice: when the trial ends. */
  trialEndsAt: Date | null
  amountPaid: number
  currency: string
  periodStart: Date
  periodEnd: Date
  /** From the Stripe subscription's metadata, for invoices we have no row for yet. */
  userId: string | undefined
  /** The plan the invoice bills (from its price; the subscription's metadata when that is unknown). */
  planId: string | undefined
  paymentIntentId: string | null
  chargeId: string | null
}

/** The end of one paid period of a plan (modules/subscriptions/periods.ts). */
export const periodEnd = periodEndOf

export interface FulfilmentEffects {
  /** Inside the fulfilment's transaction: records what follows a completed payment (the outbox). */
  paymentCompleted(payment: PaymentRow, trx: Transaction<DB>): Promise<void>
}

export function createFulfilment(deps: {
  payments: PaymentsRepository
  access: Pick<AccessService, 'grantPeriod' | 'recordStripePeriod' | 'findByStripeId'>
  plans: { findById(id: string, trx?: Transaction<DB>): Promise<PlanRow | undefined> }
  clock: Clock
  effects: FulfilmentEffects
}) {
  const { payments, access, clock } = deps

  /** Runs one fulfilment under its row lock; its effects commit with it or not at all. */
  async function settle(
    work: (trx: Transaction<DB>) => Promise<{ outcome: FulfilOutcome; payment?: PaymentRow | undefined }>,
  ): Promise<FulfilOutcome> {
    return payments.transaction(async (trx) => {
      const result = await work(trx)
      if (result.outcome === 'fulfilled' && result.payment)
        await deps.effects.paymentCompleted(result.payment, trx)
      return result.outcome
    })
  }

  return {
    /**
     * A settled BTCPay invoice: one period of the plan. Crypto does not renew by itself, so paying again
     * for the same plan while it still runs extends it from its end (docs/decisions/009-crypto-renewal.md).
     */
    async fulfilCrypto(invoiceId: string): Promise<FulfilOutcome> {
      const now = clock.now()
      return settle(async (trx) => {
        const payment = await payments.findByBtcpayInvoiceForUpdate(invoiceId, trx)
        if (!payment?.plan_id) return { outcome: 'unknown' as const }
        if (SETTLED.has(payment.status)) return { outcome: 'already' as const }
        const plan = await deps.plans.findById(payment.plan_id, trx)
        if (!plan) return { outcome: 'unknown' as const }
        const completed = await payments.update(
          payment.id,
          { status: 'completed', completed_at: now, updated_at: now, failure_message: null },
          trx,
        )
        await access.grantPeriod(trx, {
          userId: payment.user_id,
          plan,
          provider: 'crypto',
          paymentId: payment.id,
          start: now,
          endFrom: (start) => periodEnd(start, plan),
          extend: true,
        })
        return { outcome: 'fulfilled' as const, payment: completed }
      })
    },

    /** Lifetime purchases and tips: one PaymentIntent, one payment. */
    async fulfilIntent(intent: PaidIntent): Promise<FulfilOutcome> {
      const now = clock.now()
      return settle(async (trx) => {
        const payment = await payments.findByPaymentIntentForUpdate(intent.id, trx)
        if (!payment) return { outcome: 'unknown' as const }
        if (SETTLED.has(payment.status)) return { outcome: 'already' as const }
        const completed = await payments.update(
          payment.id,
          {
            status: 'completed',
            completed_at: now,
            updated_at: now,
            stripe_charge_id: intent.chargeId,
            failure_message: null,
          },
          trx,
        )
        if (payment.kind === 'lifetime' && payment.plan_id) {
          await access.grantPeriod(trx, {
            userId: payment.user_id,
            plan: { id: payment.plan_id },
            provider: payment.provider,
            paymentId: payment.id,
            start: now,
            endFrom: () => null,
          })
        }
        return { outcome: 'fulfilled' as const, payment: completed }
      })
    },

    /** Subscription invoices, first or renewal: the payment completes and the period extends access. */
    async fulfilInvoice(invoice: PaidInvoice): Promise<FulfilOutcome> {
      const now = clock.now()
      return settle(async (trx) => {
        let payment = await payments.findByInvoiceForUpdate(invoice.id, trx)
        if (!payment) {
          // A renewal we learn of from Stripe: record it, once, whoever gets here first.
          const local = await access.findByStripeId(invoice.subscriptionId, trx)
          const userId = local?.user_id ?? invoice.userId
          const planId = invoice.planId ?? local?.plan_id
          if (!userId || !planId) return { outcome: 'unknown' as const }
          await payments.insertForInvoiceIfMissing(
            {
              user_id: userId,
              plan_id: planId,
              kind: !local
                ? 'subscription'
                : invoice.billingReason === 'subscription_update'
                  ? 'upgrade'
                  : 'renewal',
              provider: 'stripe',
              status: 'pending',
              amount_minor: invoice.amountPaid,
              currency: invoice.currency.toUpperCase(),
              stripe_invoice_id: invoice.id,
              stripe_subscription_id: invoice.subscriptionId,
              stripe_payment_intent_id: invoice.paymentIntentId,
            },
            trx,
          )
          payment = await payments.findByInvoiceForUpdate(invoice.id, trx)
          if (!payment) return { outcome: 'unknown' as const }
        }
        if (SETTLED.has(payment.status)) return { outcome: 'already' as const }
        const completed = await payments.update(
          payment.id,
          {
            status: 'completed',
            completed_at: now,
            updated_at: now,
            amount_minor: invoice.amountPaid,
            stripe_charge_id: invoice.chargeId ?? payment.stripe_charge_id,
            stripe_payment_intent_id: payment.stripe_payment_intent_id ?? invoice.paymentIntentId,
            failure_message: null,
          },
          trx,
        )
        await access.recordStripePeriod(trx, {
          userId: payment.user_id,
          // The subscription's plan now (a plan change updates it at Stripe), else the payment's.
          planId: invoice.planId ?? payment.plan_id ?? '',
          trialEndsAt: invoice.trialEndsAt,
          amountPaidMinor: invoice.amountPaid,
          stripeSubscriptionId: invoice.subscriptionId,
          paymentId: payment.id,
          start: invoice.periodStart,
          end: invoice.periodEnd,
        })
        return { outcome: 'fulfilled' as const, payment: completed }
      })
    },
  }
}
export type Fulfilment = ReturnType<typeof createFulfilment>
