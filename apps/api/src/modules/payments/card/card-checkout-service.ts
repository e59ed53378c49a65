import { checkoutMessages, fromMinorUnits, type PaymentIntent } from '@edgeclub/shared'
import type Stripe from 'stripe'
import type { PaymentRow, PlanRow, UserRow } from '../../../db/types'
import type { Clock } from '../../../lib/clock'
import { AppError, badRequest, conflict, notFound } from '../../../lib/errors'
import type { AccountsService } from '../../auth/accounts-service'
import { type PlansService, toPlan } from '../../plans/plans-service'
import type { AccessService } from '../../subscriptions/access-service'
import type { Fulfilment, FulfilOutcome } from '../common/fulfilment'
import type { PaymentsRepository } from '../common/payments-repository'
import type { PaymentsService } from '../common/payments-service'
import { assertCanBuy } from '../common/purchase-rules'
import type { StripeCatalog } from './stripe-catalog'
import { idOf, invoicePaymentIntentId, toPaidInvoice } from './stripe-objects'

/** PaymentIntent statuses in which the member can still pay it, so a new attempt reuses it. */
export const REUSABLE = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action'])

/**
 * Paying by card through Stripe: a PaymentIntent for lifetime plans, a Stripe Billing subscription for
 * renewing plans. Stripe, never the browser, says whether a payment went through; what it says goes
 * through the ledger's one fulfilment. Everything else that talks to Stripe about money (renewal
 * switches, refunds) is here too, so the rest of the app reaches Stripe only through this service.
 */
export function createCardCheckoutService(deps: {
  stripe: Stripe | undefined
  catalog: StripeCatalog | undefined
  payments: PaymentsRepository
  ledger: PaymentsService
  access: Pick<AccessService, 'currentAccess'>
  plans: Pick<PlansService, 'onSaleOrThrow' | 'findById'>
  accounts: Pick<AccountsService, 'setStripeCustomer'>
  fulfilment: Fulfilment
  clock: Clock
}) {
  const { payments, clock } = deps

  function stripeOrThrow(): Stripe {
    if (!deps.stripe)
      throw new AppError('PAYMENT_ERROR', checkoutMessages.paymentsUnavailable, { statusCode: 503 })
    return deps.stripe
  }

  async function ensureCustomer(user: UserRow): Promise<string> {
    if (user.stripe_customer_id) return user.stripe_customer_id
    const customer = await stripeOrThrow().customers.create(
      {
        email: user.email,
        name: `${user.first_name} ${user.last_name}`.trim(),
        metadata: { userId: user.id },
      },
      { idempotencyKey: `customer-${user.id}` },
    )
    await deps.accounts.setStripeCustomer(user.id, customer.id)
    return customer.id
  }

  const view = (row: PaymentRow, plan: PlanRow | undefined): PaymentIntent => ({
    clientSecret: row.stripe_client_secret ?? '',
    paymentIntentId: row.stripe_payment_intent_id ?? '',
    amount: fromMinorUnits(row.amount_minor, row.currency),
    currency: row.currency,
    paymentId: row.id,
    plan: plan ? toPlan(plan) : null,
  })

  /** Brings a payment in line with its PaymentIntent as Stripe reports it now. */
  async function syncIntent(
    payment: PaymentRow,
    intent: Stripe.PaymentIntent,
  ): Promise<FulfilOutcome | 'failed' | 'cancelled' | 'open'> {
    const stripe = stripeOrThrow()
    if (intent.status === 'succeeded') {
      if (payment.stripe_invoice_id) {
        const invoice = await stripe.invoices.retrieve(payment.stripe_invoice_id, { expand: ['payments'] })
        if (invoice.status !== 'paid') return 'open'
        const paid = toPaidInvoice(invoice, idOf(intent.latest_charge))
        return paid ? deps.fulfilment.fulfilInvoice(paid) : 'unknown'
      }
      return deps.fulfilment.fulfilIntent({
        id: intent.id,
        amountReceived: intent.amount_received,
        chargeId: idOf(intent.latest_charge),
      })
    }
    const now = clock.now()
    if (intent.status === 'canceled') {
      if (payment.status === 'pending' || payment.status === 'failed') {
        await payments.update(payment.id, { status: 'cancelled', updated_at: now })
      }
      return 'cancelled'
    }
    if (intent.last_payment_error && payment.status === 'pending') {
      await payments.update(payment.id, {
        status: 'failed',
        failure_message: intent.last_payment_error.message ?? 'Payment failed',
        updated_at: now,
      })
      return 'failed'
    }
    return 'open'
  }

  async function openCheckout(user: UserRow, plan: PlanRow): Promise<PaymentRow> {
    const created = await payments.insertPendingCheckout({
      user_id: user.id,
      plan_id: plan.id,
      kind: plan.interval === 'lifetime' ? 'lifetime' : 'subscription',
      provider: 'stripe',
      status: 'pending',
      amount_minor: plan.price_minor,
      currency: plan.currency,
    })
    const row = created ?? (await payments.findPendingCheckout(user.id, plan.id, 'stripe'))
    if (!row) throw new AppError('INTERNAL', checkoutMessages.intentFailed)
    return row
  }

  async function startCheckout(user: UserRow, plan: PlanRow, attempt = 0): Promise<PaymentIntent> {
    const stripe = stripeOrThrow()
    const row = await openCheckout(user, plan)

    if (row.stripe_payment_intent_id) {
      // A double click, or a return to an unfinished checkout: reuse it if Stripe still can.
      const intent = await stripe.paymentIntents.retrieve(row.stripe_payment_intent_id)
      if (REUSABLE.has(intent.status) && intent.amount === row.amount_minor) return view(row, plan)
      const outcome = await syncIntent(row, intent)
      if (outcome === 'fulfilled' || outcome === 'already') throw conflict('This plan is already paid for.')
      if (row.status === 'pending')
        await payments.update(row.id, { status: 'cancelled', updated_at: clock.now() })
      if (attempt > 0) throw new AppError('PAYMENT_ERROR', checkoutMessages.intentFailed)
      return startCheckout(user, plan, attempt + 1)
    }

    const customer = await ensureCustomer(user)
    const metadata = { paymentId: row.id, userId: user.id, planId: plan.id, kind: row.kind }
    // Both clicks of a double click send the same key, so Stripe makes one object.
    const idempotencyKey = `checkout-${row.id}`
    if (plan.interval === 'lifetime') {
      const intent = await stripe.paymentIntents.create(
        {
          amount: plan.price_minor,
          currency: plan.currency.toLowerCase(),
          customer,
          description: `EdgeClub ${plan.name}`,
          metadata,
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        },
        { idempotencyKey },
      )
      const updated = await payments.update(row.id, {
        stripe_payment_intent_id: intent.id,
        stripe_client_secret: intent.client_secret,
        updated_at: clock.now(),
      })
      return view(updated ?? row, plan)
    }

    const priceId = await deps.catalog!.ensurePrice(plan)
    const subscription = await stripe.subscriptions.create(
      {
        customer,
        items: [{ price: priceId }],
        payment_behavior: 'default_incomplete',
        payment_settings: { save_default_payment_method: 'on_subscription' },
        metadata,
        expand: ['latest_invoice.confirmation_secret', 'latest_invoice.payments'],
      },
      { idempotencyKey },
    )
    const invoice = subscription.latest_invoice as Stripe.Invoice | null
    const intentId = invoice ? invoicePaymentIntentId(invoice) : null
    const clientSecret = invoice?.confirmation_secret?.client_secret
    if (!invoice?.id || !intentId || !clientSecret)
      throw new AppError('PAYMENT_ERROR', checkoutMessages.intentFailed)
    const updated = await payments.update(row.id, {
      stripe_subscription_id: subscription.id,
      stripe_invoice_id: invoice.id,
      stripe_payment_intent_id: intentId,
      stripe_client_secret: clientSecret,
      amount_minor: invoice.amount_due,
      updated_at: clock.now(),
    })
    return view(updated ?? row, plan)
  }

  return {
    syncIntent,
    ensureCustomer,
    configured: () => Boolean(deps.stripe),

    /**
     * POST /payments/create-intent and /subscriptions/create. While a member has access, another
     * plan is refused (docs/decisions/007-one-plan-at-a-time.md); upgrading to lifetime is the exception.
     */
    async createIntent(user: UserRow, input: { planId: string; currency: string }): Promise<PaymentIntent> {
      const plan = await deps.plans.onSaleOrThrow(input.planId)
      if (input.currency !== plan.currency) throw badRequest(`This plan is priced in ${plan.currency}`)
      assertCanBuy(await deps.access.currentAccess(user.id), plan, 'card')
      return startCheckout(user, plan)
    },

    /** POST /payments/confirm: asks Stripe (never the browser) whether the payment went through. */
    async confirm(user: UserRow, paymentIntentId: string) {
      const row = await deps.ledger.ownOrThrow(user.id, paymentIntentId)
      if (!row.stripe_payment_intent_id) throw notFound('Payment not found')
      const intent = await stripeOrThrow().paymentIntents.retrieve(row.stripe_payment_intent_id)
      await syncIntent(row, intent)
      const fresh = (await payments.findById(row.id)) ?? row
      return { paymentId: fresh.id, status: fresh.status, stripeStatus: intent.status }
    },

    /**
     * The member paid this plan another way (crypto): their unfinished card checkout for it is closed
     * at Stripe and here, so Payment History no longer invites them to pay twice. Only a checkout Stripe
     * still waits on is touched; one that went through meanwhile keeps its access.
     */
    async abandonOpenCheckout(userId: string, planId: string, reason: string): Promise<void> {
      const row = await payments.findPendingCheckout(userId, planId, 'stripe')
      if (!row) return
      if (row.stripe_payment_intent_id && deps.stripe) {
        const intent = await deps.stripe.paymentIntents.retrieve(row.stripe_payment_intent_id)
        if (!REUSABLE.has(intent.status)) return
        if (row.stripe_subscription_id)
          await deps.stripe.subscriptions.cancel(
            row.stripe_subscription_id,
            {},
            { idempotencyKey: `abandon-${row.id}` },
          )
        else await deps.stripe.paymentIntents.cancel(intent.id, {}, { idempotencyKey: `abandon-${row.id}` })
      }
      await payments.updatePending(row.id, {
        status: 'cancelled',
        failure_message: reason,
        updated_at: clock.now(),
      })
    },

    /** POST /payments/retry/{id}: a fresh way to pay one's own pending or failed payment. */
    async retry(user: UserRow, id: string): Promise<PaymentIntent> {
      const row = await deps.ledger.ownOrThrow(user.id, id)
      if (row.status !== 'pending' && row.status !== 'failed')
        throw badRequest('Only a pending or failed payment can be paid again')
      if (row.provider !== 'stripe') throw badRequest('This payment is not a card payment')
      const plan = row.plan_id ? await deps.plans.findById(row.plan_id) : undefined
      // Paying a plan checkout again is buying that plan: the one-plan rule applies.
      if (plan && (row.kind === 'subscription' || row.kind === 'lifetime'))
        assertCanBuy(await deps.access.currentAccess(user.id), plan, 'card')
      const stripe = stripeOrThrow()
      if (row.stripe_payment_intent_id) {
        const intent = await stripe.paymentIntents.retrieve(row.stripe_payment_intent_id)
        if (REUSABLE.has(intent.status)) {
          const reopened = await payments.update(row.id, {
            status: 'pending',
            failure_message: null,
            stripe_client_secret: intent.client_secret ?? row.stripe_client_secret,
            updated_at: clock.now(),
          })
          return view(reopened ?? row, plan)
        }
        const outcome = await syncIntent(row, intent)
        if (outcome === 'fulfilled' || outcome === 'already')
          throw conflict('This payment has already gone through.')
      }
      await payments.update(row.id, { status: 'cancelled', updated_at: clock.now() })
      if (row.kind === 'tip') throw badRequest('This tip can no longer be paid; send a new one.')
      if (!plan) throw notFound(checkoutMessages.planNotFound)
      return this.createIntent(user, { planId: plan.id, currency: plan.currency })
    },

    /**
     * Switches a Stripe subscription's renewal off (cancel at period end) or back on. The key names
     * the row's version, so a double click is one change and a later switch is a new one.
     */
    async setRenewal(
      subscription: { id: string; stripe_subscription_id: string | null; updated_at: Date },
      renew: boolean,
    ): Promise<void> {
      if (!subscription.stripe_subscription_id) return
      await stripeOrThrow().subscriptions.update(
        subscription.stripe_subscription_id,
        { cancel_at_period_end: !renew },
        {
          idempotencyKey: `${renew ? 'resume' : 'cancel'}-${subscription.id}-${subscription.updated_at.valueOf()}`,
        },
      )
    },

    /** Ends a Stripe subscription now (its access ended here, e.g. by a full refund). */
    async cancelStripeSubscription(stripeSubscriptionId: string): Promise<void> {
      const stripe = stripeOrThrow()
      const current = await stripe.subscriptions.retrieve(stripeSubscriptionId)
      if (current.status === 'canceled' || current.status === 'incomplete_expired') return
      await stripe.subscriptions.cancel(
        stripeSubscriptionId,
        {},
        { idempotencyKey: `end-${stripeSubscriptionId}` },
      )
    },

    /**
     * A full or partial refund of a card payment through Stripe. The ledger's bookkeeping runs now,
     * not only when Stripe's charge.refunded event lands (both paths are the same, and safe to repeat).
     */
    async refund(payment: PaymentRow, amountMinor: number, reason: string | undefined) {
      const stripe = stripeOrThrow()
      const refund = await stripe.refunds.create(
        {
          payment_intent: payment.stripe_payment_intent_id!,
          amount: amountMinor,
          metadata: { paymentId: payment.id, reason: reason ?? '' },
        },
        { idempotencyKey: `refund-${payment.id}-${payment.amount_refunded_minor}-${amountMinor}` },
      )
      const chargeId = idOf(refund.charge)
      if (!chargeId) return
      const charge = await stripe.charges.retrieve(chargeId)
      await deps.ledger.applyRefund(payment.id, {
        amountRefundedMinor: charge.amount_refunded,
        full: charge.amount_refunded >= charge.amount,
      })
    },
  }
}
export type CardCheckoutService = ReturnType<typeof createCardCheckoutService>
