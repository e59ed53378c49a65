import { checkoutMessages, fromMinorUnits, type Plan } from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import type Stripe from 'stripe'
import type { PaymentRow, PlanRow, UserRow } from '../../db/types'
import type { Clock } from '../../lib/clock'
import { addMs, DAY } from '../../lib/clock'
import { AppError, badRequest, conflict, notFound } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import type { AuthRepository } from '../auth/auth-repository'
import type { PlansRepository } from '../plans/plans-repository'
import { toPlan } from '../plans/plans-service'
import type { SubscriptionsRepository } from '../subscriptions/subscriptions-repository'
import type { SubscriptionsService } from '../subscriptions/subscriptions-service'
import type { Fulfilment, FulfilOutcome } from './fulfilment'
import type { PaymentsRepository } from './payments-repository'
import { assertCanBuy } from './purchase-rules'
import type { StripeCatalog } from './stripe-catalog'
import { idOf, invoicePaymentIntentId, toPaidInvoice } from './stripe-objects'

/** SPEC §3 payment intent, plus our payment id and the plan being bought. */
export interface PaymentIntentView {
  clientSecret: string
  paymentIntentId: string
  amount: number
  currency: string
  paymentId: string
  plan: Plan | null
}

const REUSABLE = new Set(['requires_payment_method', 'requires_confirmation', 'requires_action'])

export function createCheckoutService(deps: {
  stripe: Stripe | undefined
  catalog: StripeCatalog | undefined
  payments: PaymentsRepository
  subscriptions: SubscriptionsRepository
  access: SubscriptionsService
  plans: PlansRepository
  users: AuthRepository
  fulfilment: Fulfilment
  clock: Clock
  graceDays: number
  log: FastifyBaseLogger
  hooks: {
    renewalFailed(subscriptionId: string, graceUntil: Date): Promise<void>
    cancelled(subscriptionId: string): Promise<void>
  }
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
    await deps.users.updateUser(user.id, { stripe_customer_id: customer.id })
    return customer.id
  }

  const view = (row: PaymentRow, plan: PlanRow | undefined): PaymentIntentView => ({
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

  async function startCheckout(user: UserRow, plan: PlanRow, attempt = 0): Promise<PaymentIntentView> {
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

  async function activePlan(planId: string): Promise<PlanRow> {
    const plan = isUuid(planId) ? await deps.plans.findById(planId) : undefined
    if (!plan?.is_active || plan.archived_at) throw notFound(checkoutMessages.planNotFound)
    return plan
  }

  async function ownPayment(userId: string, id: string): Promise<PaymentRow> {
    const row = isUuid(id) ? await payments.findById(id) : await payments.findByPaymentIntent(id)
    if (!row || row.user_id !== userId) throw notFound('Payment not found')
    return row
  }

  return {
    syncIntent,
    ensureCustomer,
    ownPayment,
    activePlan,

    /**
     * POST /payments/create-intent and /subscriptions/create. While a member has access, another
     * plan is refused (see docs/decisions/007); upgrading to lifetime is the exception.
     */
    async createIntent(
      user: UserRow,
      input: { planId: string; currency: string },
    ): Promise<PaymentIntentView> {
      const plan = await activePlan(input.planId)
      if (input.currency !== plan.currency) throw badRequest(`This plan is priced in ${plan.currency}`)
      assertCanBuy(await deps.access.currentAccess(user.id), plan, 'card')
      return startCheckout(user, plan)
    },

    /** POST /payments/confirm: asks Stripe (never the browser) whether the payment went through. */
    async confirm(user: UserRow, paymentIntentId: string) {
      const row = await ownPayment(user.id, paymentIntentId)
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
        if (row.stripe_subscription_id) await deps.stripe.subscriptions.cancel(row.stripe_subscription_id)
        else await deps.stripe.paymentIntents.cancel(intent.id, {}, { idempotencyKey: `abandon-${row.id}` })
      }
      await payments.updatePending(row.id, {
        status: 'cancelled',
        failure_message: reason,
        updated_at: clock.now(),
      })
    },

    /** POST /payments/retry/{id}: a fresh way to pay one's own pending or failed payment. */
    async retry(user: UserRow, id: string): Promise<PaymentIntentView> {
      const row = await ownPayment(user.id, id)
      if (row.status !== 'pending' && row.status !== 'failed')
        throw badRequest('Only a pending or failed payment can be paid again')
      if (row.provider !== 'stripe') throw badRequest('This payment is not a card payment')
      const plan = row.plan_id ? await deps.plans.findById(row.plan_id) : undefined
      // Paying a plan checkout again is buying that plan: the one-plan rule applies (docs/decisions/007).
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

    /** PUT /subscriptions/{id}/cancel: stops renewal; access lasts until the end of the paid period. */
    async cancel(user: UserRow, subscriptionId: string) {
      const row = await deps.access.ownOrThrow(user.id, subscriptionId)
      deps.access.assertCancellable(row)
      await stripeOrThrow().subscriptions.update(
        row.stripe_subscription_id!,
        { cancel_at_period_end: true },
        { idempotencyKey: `cancel-${row.id}-${row.updated_at.valueOf()}` },
      )
      // Stripe's event about this change may land first; whichever marks the row sends the notice.
      const marked = await deps.subscriptions.markCancelling(row.id, clock.now())
      if (marked) await deps.hooks.cancelled(row.id)
      return marked ?? (await deps.subscriptions.findById(row.id))
    },

    /** POST /subscriptions/{id}/renew: resume a cancelling subscription, or check out again an ended one. */
    async renew(
      user: UserRow,
      subscriptionId: string,
    ): Promise<{ resumed: true } | { paymentIntent: PaymentIntentView }> {
      const row = await deps.access.ownOrThrow(user.id, subscriptionId)
      const now = clock.now()
      const live = row.status === 'active' && (!row.end_date || new Date(row.end_date) > now)
      if (live && row.cancel_at_period_end && row.stripe_subscription_id) {
        await stripeOrThrow().subscriptions.update(
          row.stripe_subscription_id,
          { cancel_at_period_end: false },
          { idempotencyKey: `resume-${row.id}-${row.updated_at.valueOf()}` },
        )
        await deps.subscriptions.update(row.id, {
          cancel_at_period_end: false,
          cancelled_at: null,
          updated_at: now,
        })
        return { resumed: true }
      }
      if (live) throw badRequest('This subscription is active and set to renew already')
      const plan = await deps.plans.findById(row.plan_id)
      if (!plan) throw notFound(checkoutMessages.planNotFound)
      return { paymentIntent: await this.createIntent(user, { planId: plan.id, currency: plan.currency }) }
    },

    /** A failed renewal: past due, with a grace period, then no access (the expiry job ends it). */
    async markRenewalFailed(stripeSubscriptionId: string, invoice: Stripe.Invoice) {
      const local = await deps.subscriptions.findByStripeId(stripeSubscriptionId)
      if (!local || local.status === 'expired' || local.status === 'cancelled') return
      const now = clock.now()
      await payments.insertForInvoiceIfMissing({
        user_id: local.user_id,
        plan_id: local.plan_id,
        kind: 'renewal',
        provider: 'stripe',
        status: 'failed',
        amount_minor: invoice.amount_due,
        currency: invoice.currency.toUpperCase(),
        stripe_invoice_id: invoice.id,
        stripe_subscription_id: stripeSubscriptionId,
        stripe_payment_intent_id: invoicePaymentIntentId(invoice),
        failure_message: 'Your renewal payment was declined',
      })
      if (local.status === 'past_due') return
      const graceUntil = addMs(local.end_date ? new Date(local.end_date) : now, deps.graceDays * DAY)
      await deps.subscriptions.update(local.id, {
        status: 'past_due',
        grace_until: graceUntil,
        updated_at: now,
      })
      await deps.hooks.renewalFailed(local.id, graceUntil)
    },
  }
}
export type CheckoutService = ReturnType<typeof createCheckoutService>
