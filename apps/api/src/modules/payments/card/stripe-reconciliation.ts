import type { FastifyBaseLogger } from 'fastify'
import type Stripe from 'stripe'
import type { Clock } from '../../../lib/clock'
import { addMs } from '../../../lib/clock'
import type { AccessService } from '../../subscriptions/access-service'
import type { Fulfilment } from '../common/fulfilment'
import type { PaymentsRepository } from '../common/payments-repository'
import { RECONCILE_AFTER, type ReconciliationSource, type SweepFinding } from '../common/reconciliation'
import type { CardCheckoutService } from './card-checkout-service'
import type { StripeCatalog } from './stripe-catalog'
import { idOf, invoiceSubscriptionId, toPaidInvoice } from './stripe-objects'

/** Payment states that already hold what they paid for. */
const SETTLED = new Set(['completed', 'refunded', 'partially_refunded'])

/**
 * The card rail's side of reconciliation. Every few minutes, card payments pending for a while are
 * settled by asking Stripe about their PaymentIntents. The sweep goes the other way: it reads what
 * Stripe holds (paid invoices, succeeded PaymentIntents, subscriptions whose state changed) for the
 * last 30 days and brings the ledger in line through the same fulfilment a webhook would use, so a
 * renewal Stripe charged whose webhooks never arrived still extends the member's access.
 */
export function createStripeReconciliation(deps: {
  stripe: Stripe
  catalog: Pick<StripeCatalog, 'paidInvoice'>
  payments: PaymentsRepository
  checkout: CardCheckoutService
  fulfilment: Fulfilment
  access: Pick<AccessService, 'findByStripeId' | 'renewalFailed' | 'applyStripeState'>
  clock: Clock
  log: FastifyBaseLogger
}): ReconciliationSource {
  const { stripe, payments } = deps
  const created = (since: Date) => ({ gte: Math.floor(since.getTime() / 1000) })

  async function sweepInvoices(since: Date, findings: SweepFinding[]) {
    for await (const invoice of stripe.invoices.list({
      status: 'paid',
      created: created(since),
      limit: 100,
    })) {
      if (!invoice.id || !invoiceSubscriptionId(invoice)) continue
      const local = await payments.findByInvoice(invoice.id)
      if (local && SETTLED.has(local.status)) continue
      const full = await stripe.invoices.retrieve(invoice.id, { expand: ['payments'] })
      const intentId = toPaidInvoice(full, null)?.paymentIntentId
      const chargeId = intentId ? idOf((await stripe.paymentIntents.retrieve(intentId)).latest_charge) : null
      const paid = await deps.catalog.paidInvoice(full, chargeId)
      const outcome = paid ? await deps.fulfilment.fulfilInvoice(paid) : 'unknown'
      if (outcome === 'already') continue
      findings.push({
        outcome: outcome === 'fulfilled' ? 'repaired' : 'unmatched',
        objectId: invoice.id,
        kind: 'invoice',
        amountMinor: full.amount_paid,
        currency: full.currency.toUpperCase(),
        detail:
          outcome === 'fulfilled'
            ? 'A paid subscription invoice was missing from the ledger; recorded and access extended.'
            : 'Stripe holds this invoice as paid, but it names no member or plan of ours.',
      })
    }
  }

  async function sweepIntents(since: Date, findings: SweepFinding[]) {
    for await (const intent of stripe.paymentIntents.list({ created: created(since), limit: 100 })) {
      // Ours carry their kind; renewal PaymentIntents are covered by their invoices above.
      const kind = intent.metadata?.kind
      if (intent.status !== 'succeeded' || (kind !== 'lifetime' && kind !== 'tip')) continue
      const local = await payments.findByPaymentIntent(intent.id)
      if (local && SETTLED.has(local.status)) continue
      const outcome = local
        ? await deps.fulfilment.fulfilIntent({
            id: intent.id,
            amountReceived: intent.amount_received,
            chargeId: idOf(intent.latest_charge),
          })
        : 'unknown'
      if (outcome === 'already') continue
      findings.push({
        outcome: outcome === 'fulfilled' ? 'repaired' : 'unmatched',
        objectId: intent.id,
        kind: kind === 'tip' ? 'tip' : 'lifetime',
        amountMinor: intent.amount_received,
        currency: intent.currency.toUpperCase(),
        detail:
          outcome === 'fulfilled'
            ? 'A succeeded payment was still open in the ledger; completed now.'
            : 'Stripe holds this payment as succeeded, but the ledger has no payment for it.',
      })
    }
  }

  /** Subscriptions Stripe changed (ended, renewal switched) in the window: their current state applies. */
  async function sweepSubscriptions(since: Date) {
    const seen = new Set<string>()
    for await (const event of stripe.events.list({
      types: ['customer.subscription.updated', 'customer.subscription.deleted'],
      created: created(since),
      limit: 100,
    })) {
      const id = (event.data.object as { id?: string }).id
      if (!id || seen.has(id)) continue
      seen.add(id)
      if (!(await deps.access.findByStripeId(id))) continue
      const current = await stripe.subscriptions.retrieve(id)
      await deps.access.applyStripeState(id, {
        status: current.status,
        cancelAtPeriodEnd: current.cancel_at_period_end,
        endedAt: current.ended_at ? new Date(current.ended_at * 1000) : null,
      })
    }
  }

  return {
    rail: 'card',

    async reconcile() {
      const stale = await payments.listStalePending(addMs(deps.clock.now(), -RECONCILE_AFTER), 100)
      let settled = 0
      for (const payment of stale) {
        try {
          const intent = await stripe.paymentIntents.retrieve(payment.stripe_payment_intent_id!)
          const outcome = await deps.checkout.syncIntent(payment, intent)
          if (outcome !== 'open') settled += 1
          // Still open: look again next time, not on every run.
          else await payments.update(payment.id, { updated_at: deps.clock.now() })
        } catch (error) {
          deps.log.warn(
            { paymentId: payment.id, reason: error instanceof Error ? error.message : String(error) },
            'reconciliation failed for a payment',
          )
        }
      }
      if (settled > 0) deps.log.info({ settled }, 'reconciliation settled payments a webhook did not')
      return { checked: stale.length, settled }
    },

    async sweep(since) {
      const findings: SweepFinding[] = []
      await sweepInvoices(since, findings)
      await sweepIntents(since, findings)
      await sweepSubscriptions(since)
      return findings
    },
  }
}
