import {
  billingMessages,
  checkoutMessages,
  fromMinorUnits,
  type PaymentConfirmation,
  type PaymentIntent,
} from '@edgeclub/shared'
import type Stripe from 'stripe'
import type { TransactionRunner } from '../../../db/transaction'
import type { PaymentRow, PlanRow, UserRow } from '../../../db/types'
import { addMs, type Clock, DAY } from '../../../lib/clock'
import { AppError, badRequest, conflict, notFound } from '../../../lib/errors'
import type { AccountsService } from '../../auth/accounts-service'
import { type PlansService, toPlan } from '../../plans/plans-service'
import type { AccessService } from '../../subscriptions/access-service'
import type { Fulfilment, FulfilOutcome } from '../common/fulfilment'
import type { PaymentsRepository } from '../common/payments-repository'
import type { PaymentsService } from '../common/payments-service'
import { assertCanBuy } from '../common/purchase-rules'
import type { PromoCodesService, PromoOffer } from '../promo/promo-codes-service'
import type { StripeCatalog } from './stripe-catalog'
import { idOf, invoicePaymentIntentId } from './stripe-objects'

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
  promos: Pick<PromoCodesService, 'offer' | 'offerById' | 'hold' | 'stripePromotionCode'>
  /** One free trial per member and per card: true when this member and card may have one now. */
  trials: { claim(userId: string, fingerprint: string): Promise<boolean> }
  transaction: TransactionRunner
  /** Test mode: new customers on their own Stripe test clock (config STRIPE_TEST_CLOCKS). */
  testClocks?: boolean
  catalog: StripeCatalog | undefined
  payments: PaymentsRepository
  ledger: PaymentsService
  access: Pick<AccessService, 'currentAccess' | 'renewingCardSubscriptions' | 'stopRenewal'>
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
    const stripe = stripeOrThrow()
    // In test mode with STRIPE_TEST_CLOCKS, each member lives on a test clock of their own: tests and
    // the demo move a member's time forward the way Stripe does, never by editing dates.
    const testClock = deps.testClocks
      ? await stripe.testHelpers.testClocks.create(
          { frozen_time: Math.floor(clock.now().valueOf() / 1000), name: `member ${user.id}` },
          { idempotencyKey: `test-clock-${user.id}` },
        )
      : undefined
    const customer = await stripe.customers.create(
      {
        email: user.email,
        name: `${user.first_name} ${user.last_name}`.trim(),
        metadata: { userId: user.id },
        ...(testClock ? { test_clock: testClock.id } : {}),
      },
      { idempotencyKey: `customer-${user.id}` },
    )
    await deps.accounts.setStripeCustomer(user.id, customer.id)
    return customer.id
  }

  const view = (
    row: PaymentRow,
    plan: PlanRow | undefined,
    extra: { trialEndsAt?: Date; promo?: PromoOffer } = {},
  ): PaymentIntent => ({
    clientSecret: row.stripe_client_secret ?? '',
    paymentIntentId: row.stripe_payment_intent_id ?? '',
    amount: fromMinorUnits(row.amount_minor, row.currency),
    currency: row.currency,
    paymentId: row.id,
    plan: plan ? toPlan(plan) : null,
    setupIntentId: row.stripe_setup_intent_id,
    trialEndsAt: extra.trialEndsAt ? extra.trialEndsAt.toISOString() : null,
    promo: extra.promo
      ? {
          code: extra.promo.promo.code,
          description: extra.promo.description,
          fullAmount: fromMinorUnits(extra.promo.fullMinor, row.currency),
        }
      : null,
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
        const paid = await deps.catalog!.paidInvoice(invoice, idOf(intent.latest_charge))
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

  /** The member's open checkout of this plan, or a new one at the price they pay now. */
  async function openCheckout(
    user: UserRow,
    plan: PlanRow,
    offer: PromoOffer | undefined,
    trial: boolean,
  ): Promise<PaymentRow> {
    const created = await payments.insertPendingCheckout({
      user_id: user.id,
      plan_id: plan.id,
      kind: plan.interval === 'lifetime' ? 'lifetime' : 'subscription',
      provider: 'stripe',
      status: 'pending',
      amount_minor: trial ? 0 : (offer?.amountDueMinor ?? plan.price_minor),
      currency: plan.currency,
      promo_code_id: offer?.promo.id ?? null,
      discount_minor: offer?.discountMinor ?? 0,
    })
    const row = created ?? (await payments.findPendingCheckout(user.id, plan.id, 'stripe'))
    if (!row) throw new AppError('INTERNAL', checkoutMessages.intentFailed)
    return row
  }

  /**
   * Closes an open checkout that no longer matches what the member asks for (another code, a trial
   * or not): what Stripe still waits on is cancelled there, and the row here. False when it was paid
   * meanwhile (the caller must not start another).
   */
  async function closeCheckout(row: PaymentRow): Promise<boolean> {
    const stripe = stripeOrThrow()
    if (row.stripe_payment_intent_id) {
      const intent = await stripe.paymentIntents.retrieve(row.stripe_payment_intent_id)
      if (REUSABLE.has(intent.status)) {
        if (row.stripe_subscription_id)
          await stripe.subscriptions.cancel(
            row.stripe_subscription_id,
            {},
            { idempotencyKey: `close-${row.id}` },
          )
        else await stripe.paymentIntents.cancel(intent.id, {}, { idempotencyKey: `close-${row.id}` })
      } else {
        const outcome = await syncIntent(row, intent)
        if (outcome === 'fulfilled' || outcome === 'already') return false
      }
    } else if (row.stripe_setup_intent_id) {
      const setup = await stripe.setupIntents.retrieve(row.stripe_setup_intent_id)
      if (setup.status !== 'succeeded' && setup.status !== 'canceled')
        await stripe.setupIntents.cancel(setup.id, {}, { idempotencyKey: `close-${row.id}` })
    }
    await payments.updatePending(row.id, { status: 'cancelled', updated_at: clock.now() })
    return true
  }

  /** Whether an open checkout is still the one the member asks for now. */
  const sameCheckout = (row: PaymentRow, offer: PromoOffer | undefined, trial: boolean) =>
    row.promo_code_id === (offer?.promo.id ?? null) &&
    (trial ? !row.stripe_payment_intent_id : !row.stripe_setup_intent_id)

  /** Holds the code's redemption for this checkout; a code refused meanwhile closes the checkout. */
  async function holdCode(user: UserRow, plan: PlanRow, offer: PromoOffer, row: PaymentRow) {
    try {
      await deps.transaction((trx) => deps.promos.hold(trx, offer, user, plan, row.id))
    } catch (error) {
      await payments.updatePending(row.id, { status: 'cancelled', updated_at: clock.now() })
      throw error
    }
  }

  async function startCheckout(
    user: UserRow,
    plan: PlanRow,
    offer: PromoOffer | undefined,
    attempt = 0,
  ): Promise<PaymentIntent> {
    const stripe = stripeOrThrow()
    const row = await openCheckout(user, plan, offer, false)
    const again = async () => {
      if (attempt > 0) throw new AppError('PAYMENT_ERROR', checkoutMessages.intentFailed)
      return startCheckout(user, plan, offer, attempt + 1)
    }
    if (!sameCheckout(row, offer, false)) {
      if (!(await closeCheckout(row))) throw conflict('This plan is already paid for.')
      return again()
    }

    if (row.stripe_payment_intent_id) {
      // A double click, or a return to an unfinished checkout: reuse it if Stripe still can.
      const intent = await stripe.paymentIntents.retrieve(row.stripe_payment_intent_id)
      if (REUSABLE.has(intent.status) && intent.amount === row.amount_minor)
        return view(row, plan, { promo: offer })
      const outcome = await syncIntent(row, intent)
      if (outcome === 'fulfilled' || outcome === 'already') throw conflict('This plan is already paid for.')
      if (row.status === 'pending')
        await payments.update(row.id, { status: 'cancelled', updated_at: clock.now() })
      return again()
    }

    if (offer) await holdCode(user, plan, offer, row)
    const customer = await ensureCustomer(user)
    const metadata = { paymentId: row.id, userId: user.id, planId: plan.id, kind: row.kind }
    // Both clicks of a double click send the same key, so Stripe makes one object.
    const idempotencyKey = `checkout-${row.id}`
    if (plan.interval === 'lifetime') {
      const intent = await stripe.paymentIntents.create(
        {
          // Our price less the code's discount, computed here: PaymentIntents take no coupons.
          amount: row.amount_minor,
          currency: plan.currency.toLowerCase(),
          customer,
          description: `EdgeClub ${plan.name}${offer ? ` (${offer.promo.code})` : ''}`,
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
      return view(updated ?? row, plan, { promo: offer })
    }

    const priceId = await deps.catalog!.ensurePrice(plan)
    const subscription = await stripe.subscriptions.create(
      {
        customer,
        items: [{ price: priceId }],
        payment_behavior: 'default_incomplete',
        payment_settings: { save_default_payment_method: 'on_subscription' },
        ...(offer?.promo.stripe_promotion_code_id
          ? { discounts: [{ promotion_code: offer.promo.stripe_promotion_code_id }] }
          : {}),
        metadata,
        expand: ['latest_invoice.confirmation_secret', 'latest_invoice.payments', 'pending_setup_intent'],
      },
      { idempotencyKey },
    )
    const invoice = subscription.latest_invoice as Stripe.Invoice | null
    if (!invoice?.id) throw new AppError('PAYMENT_ERROR', checkoutMessages.intentFailed)
    const intentId = invoicePaymentIntentId(invoice)
    const clientSecret = invoice.confirmation_secret?.client_secret
    if (!intentId || !clientSecret) {
      // Nothing due now (the code takes it all): the card form saves the card for the renewals.
      const setup = subscription.pending_setup_intent as Stripe.SetupIntent | null
      if (!setup?.client_secret) throw new AppError('PAYMENT_ERROR', checkoutMessages.intentFailed)
      const updated = await payments.update(row.id, {
        stripe_subscription_id: subscription.id,
        stripe_invoice_id: invoice.id,
        stripe_setup_intent_id: setup.id,
        stripe_client_secret: setup.client_secret,
        amount_minor: invoice.amount_due,
        updated_at: clock.now(),
      })
      return view(updated ?? row, plan, { promo: offer })
    }
    const updated = await payments.update(row.id, {
      stripe_subscription_id: subscription.id,
      stripe_invoice_id: invoice.id,
      stripe_payment_intent_id: intentId,
      stripe_client_secret: clientSecret,
      amount_minor: invoice.amount_due,
      updated_at: clock.now(),
    })
    return view(updated ?? row, plan, { promo: offer })
  }

  /**
   * A plan with a free trial, for a member who never had one: the card is saved first (a SetupIntent
   * the card form confirms); confirmTrial then starts the trial, or, for a card that had one, the plan.
   */
  async function startTrialCheckout(
    user: UserRow,
    plan: PlanRow,
    offer: PromoOffer | undefined,
    attempt = 0,
  ): Promise<PaymentIntent> {
    const stripe = stripeOrThrow()
    const row = await openCheckout(user, plan, offer, true)
    const trialEndsAt = addMs(clock.now(), plan.trial_days * DAY)
    const again = async () => {
      if (attempt > 0) throw new AppError('PAYMENT_ERROR', checkoutMessages.intentFailed)
      return startTrialCheckout(user, plan, offer, attempt + 1)
    }
    if (!sameCheckout(row, offer, true)) {
      if (!(await closeCheckout(row))) throw conflict('This plan is already paid for.')
      return again()
    }
    if (row.stripe_setup_intent_id) {
      const setup = await stripe.setupIntents.retrieve(row.stripe_setup_intent_id)
      if (REUSABLE.has(setup.status)) return view(row, plan, { trialEndsAt, promo: offer })
      await closeCheckout(row)
      return again()
    }
    if (offer) await holdCode(user, plan, offer, row)
    const customer = await ensureCustomer(user)
    const setup = await stripe.setupIntents.create(
      {
        customer,
        usage: 'off_session',
        allowed_payment_method_types: ['card'],
        metadata: { paymentId: row.id, userId: user.id, planId: plan.id, purpose: 'trial' },
      },
      { idempotencyKey: `trial-setup-${row.id}` },
    )
    const updated = await payments.update(row.id, {
      stripe_setup_intent_id: setup.id,
      stripe_client_secret: setup.client_secret,
      amount_minor: 0,
      updated_at: clock.now(),
    })
    return view(updated ?? row, plan, { trialEndsAt, promo: offer })
  }

  /** The open checkout's code, as an offer (a checkout opened with one keeps it). */
  async function offerFor(user: UserRow, plan: PlanRow, code: string | undefined) {
    return code ? deps.promos.offer(user, code, plan) : undefined
  }

  /** A saved card: the trial it was saved for starts, or a nothing-due-now checkout is completed. */
  async function confirmSetup(user: UserRow, setupIntentId: string): Promise<PaymentConfirmation> {
    const stripe = stripeOrThrow()
    const row = await payments.findBySetupIntent(setupIntentId)
    if (!row || row.user_id !== user.id) throw notFound('Payment not found')
    const setup = await stripe.setupIntents.retrieve(setupIntentId)
    if (setup.status !== 'succeeded') throw badRequest(billingMessages.cardSetupFailed)
    const paymentMethod = idOf(setup.payment_method)
    if (!paymentMethod) throw badRequest(billingMessages.cardSetupFailed)
    const customer = await ensureCustomer(user)
    // The saved card pays the renewals (and, below, the first charge at the end of the trial).
    await stripe.customers.update(
      customer,
      { invoice_settings: { default_payment_method: paymentMethod } },
      { idempotencyKey: `default-card-${setupIntentId}` },
    )
    if (row.stripe_subscription_id) {
      // A checkout with nothing due now (its code took the first payment): its $0 invoice is paid.
      await stripe.subscriptions.update(
        row.stripe_subscription_id,
        { default_payment_method: paymentMethod },
        { idempotencyKey: `sub-card-${setupIntentId}` },
      )
      await settleInvoiceOf(row)
      const fresh = (await payments.findById(row.id)) ?? row
      return {
        paymentId: fresh.id,
        status: fresh.status,
        stripeStatus: 'succeeded',
        trialEndsAt: null,
        payNow: null,
      }
    }
    if (row.status !== 'pending') {
      const fresh = (await payments.findById(row.id)) ?? row
      return {
        paymentId: fresh.id,
        status: fresh.status,
        stripeStatus: 'succeeded',
        trialEndsAt: null,
        payNow: null,
      }
    }
    const plan = row.plan_id ? await deps.plans.findById(row.plan_id) : undefined
    if (!plan) throw notFound(checkoutMessages.planNotFound)
    const card = await stripe.paymentMethods.retrieve(paymentMethod)
    const fingerprint = card.card?.fingerprint ?? `pm:${paymentMethod}`
    const trial = await deps.trials.claim(user.id, fingerprint)
    return trial
      ? startTrial(row, plan, paymentMethod, customer)
      : startWithoutTrial(user, row, plan, paymentMethod, customer)
  }

  /** Fulfils the checkout's invoice if Stripe says it is paid. */
  async function settleInvoiceOf(row: PaymentRow) {
    if (!row.stripe_invoice_id) return
    const invoice = await stripeOrThrow().invoices.retrieve(row.stripe_invoice_id, { expand: ['payments'] })
    const paid = invoice.status === 'paid' ? await deps.catalog!.paidInvoice(invoice, null) : undefined
    if (paid) await deps.fulfilment.fulfilInvoice(paid)
  }

  async function subscriptionDetails(row: PaymentRow, plan: PlanRow, trial: boolean) {
    const promo = row.promo_code_id ? await deps.promos.stripePromotionCode(row.promo_code_id) : null
    return {
      items: [{ price: await deps.catalog!.ensurePrice(plan) }],
      ...(promo ? { discounts: [{ promotion_code: promo }] } : {}),
      metadata: {
        paymentId: row.id,
        userId: row.user_id,
        planId: plan.id,
        kind: row.kind,
        ...(trial ? { trial: '1' } : {}),
      },
    }
  }

  /** The trial starts now: access until its end, the first charge then, on the saved card. */
  async function startTrial(
    row: PaymentRow,
    plan: PlanRow,
    paymentMethod: string,
    customer: string,
  ): Promise<PaymentConfirmation> {
    const subscription = await stripeOrThrow().subscriptions.create(
      {
        customer,
        default_payment_method: paymentMethod,
        trial_period_days: plan.trial_days,
        // A card that stops working before the end leaves no unpaid plan behind.
        trial_settings: { end_behavior: { missing_payment_method: 'cancel' } },
        ...(await subscriptionDetails(row, plan, true)),
        expand: ['latest_invoice.payments'],
      },
      { idempotencyKey: `trial-${row.id}` },
    )
    const invoice = subscription.latest_invoice as Stripe.Invoice | null
    const updated = await payments.update(row.id, {
      stripe_subscription_id: subscription.id,
      stripe_invoice_id: invoice?.id ?? null,
      updated_at: clock.now(),
    })
    await settleInvoiceOf(updated ?? row)
    const fresh = (await payments.findById(row.id)) ?? row
    const trialEnd = subscription.trial_end ? new Date(subscription.trial_end * 1000).toISOString() : null
    return {
      paymentId: fresh.id,
      status: fresh.status,
      stripeStatus: subscription.status,
      trialEndsAt: trialEnd,
      payNow: null,
    }
  }

  /**
   * The member (or their card) had a trial already: the plan starts now with its first payment on the
   * saved card. When the bank asks the member to confirm it, the card form does (payNow).
   */
  async function startWithoutTrial(
    user: UserRow,
    row: PaymentRow,
    plan: PlanRow,
    paymentMethod: string,
    customer: string,
  ): Promise<PaymentConfirmation> {
    const subscription = await stripeOrThrow().subscriptions.create(
      {
        customer,
        default_payment_method: paymentMethod,
        payment_behavior: 'allow_incomplete',
        ...(await subscriptionDetails(row, plan, false)),
        expand: ['latest_invoice.payments', 'latest_invoice.confirmation_secret'],
      },
      { idempotencyKey: `trial-refused-${row.id}` },
    )
    const invoice = subscription.latest_invoice as Stripe.Invoice | null
    const intentId = invoice ? invoicePaymentIntentId(invoice) : null
    const updated = await payments.update(row.id, {
      stripe_subscription_id: subscription.id,
      stripe_invoice_id: invoice?.id ?? null,
      stripe_payment_intent_id: intentId,
      stripe_client_secret: invoice?.confirmation_secret?.client_secret ?? null,
      amount_minor: invoice?.amount_due ?? row.amount_minor,
      updated_at: clock.now(),
    })
    const current = updated ?? row
    if (invoice?.status === 'paid') await settleInvoiceOf(current)
    const fresh = (await payments.findById(row.id)) ?? current
    const message = user.trial_used_at ? billingMessages.trialUsed : billingMessages.trialCardUsed
    return {
      paymentId: fresh.id,
      status: fresh.status,
      stripeStatus: subscription.status,
      trialEndsAt: null,
      payNow:
        fresh.status === 'pending' && fresh.stripe_client_secret && fresh.stripe_payment_intent_id
          ? {
              clientSecret: fresh.stripe_client_secret,
              paymentIntentId: fresh.stripe_payment_intent_id,
              amount: fromMinorUnits(fresh.amount_minor, fresh.currency),
              message,
            }
          : null,
    }
  }

  return {
    syncIntent,
    ensureCustomer,

    /**
     * An invoice a plan change (or a resume) raised: recorded as a payment of the new plan, so the
     * member's card form can confirm it (POST /payments/confirm) and Payment History shows it; a paid
     * one is fulfilled at once.
     */
    async recordInvoice(
      user: UserRow,
      plan: PlanRow,
      subscriptionId: string,
      outcome: {
        invoiceId: string | null
        paid: boolean
        amountDueMinor: number
        paymentIntentId: string | null
        clientSecret: string | null
      },
      kind: 'upgrade' | 'renewal',
    ): Promise<void> {
      if (!outcome.invoiceId) return
      await payments.insertForInvoiceIfMissing({
        user_id: user.id,
        plan_id: plan.id,
        kind,
        provider: 'stripe',
        status: 'pending',
        amount_minor: outcome.amountDueMinor,
        currency: plan.currency,
        stripe_invoice_id: outcome.invoiceId,
        stripe_subscription_id: subscriptionId,
        stripe_payment_intent_id: outcome.paymentIntentId,
        stripe_client_secret: outcome.clientSecret,
      })
      const row = await payments.findByInvoice(outcome.invoiceId)
      if (outcome.paid && row) await settleInvoiceOf(row)
    },

    /** After a lifetime purchase: the member's renewing card plans stop renewing (their access is for ever). */
    async stopRenewals(userId: string): Promise<void> {
      for (const row of await deps.access.renewingCardSubscriptions(userId)) {
        await this.setRenewal(row, false)
        await deps.access.stopRenewal(row.id)
      }
    },
    configured: () => Boolean(deps.stripe),

    /**
     * POST /payments/create-intent and /subscriptions/create: the checkout of a plan, with a promo code
     * when the member has one, and with a free trial when the plan has one and the member never had one.
     * A member who has access changes plan instead (docs/decisions/019-plan-changes.md); buying
     * lifetime stays open to anyone.
     */
    async createIntent(
      user: UserRow,
      input: { planId: string; currency: string; promoCode?: string | undefined },
    ): Promise<PaymentIntent> {
      const plan = await deps.plans.onSaleOrThrow(input.planId)
      if (input.currency !== plan.currency) throw badRequest(`This plan is priced in ${plan.currency}`)
      assertCanBuy(await deps.access.currentAccess(user.id), plan, 'card')
      const offer = await offerFor(user, plan, input.promoCode)
      if (plan.interval === 'lifetime' && offer && offer.amountDueMinor < 50)
        throw badRequest('This code cannot make a one-off payment free', [
          { field: 'promoCode', message: 'This code cannot make a one-off payment free' },
        ])
      const trial = plan.interval !== 'lifetime' && plan.trial_days > 0 && !user.trial_used_at
      return trial ? startTrialCheckout(user, plan, offer) : startCheckout(user, plan, offer)
    },

    /**
     * POST /payments/confirm: asks Stripe (never the browser) whether the payment went through; for a
     * saved card (a trial's SetupIntent), starts the trial, or the plan at once for a card that had one.
     */
    async confirm(
      user: UserRow,
      input: { paymentIntentId?: string | undefined; setupIntentId?: string | undefined },
    ): Promise<PaymentConfirmation> {
      if (input.setupIntentId) return confirmSetup(user, input.setupIntentId)
      const row = await deps.ledger.ownOrThrow(user.id, input.paymentIntentId ?? '')
      if (!row.stripe_payment_intent_id) throw notFound('Payment not found')
      const intent = await stripeOrThrow().paymentIntents.retrieve(row.stripe_payment_intent_id)
      await syncIntent(row, intent)
      const fresh = (await payments.findById(row.id)) ?? row
      return {
        paymentId: fresh.id,
        status: fresh.status,
        stripeStatus: intent.status,
        trialEndsAt: null,
        payNow: null,
      }
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
      if (row.stripe_setup_intent_id && !row.stripe_payment_intent_id && plan) {
        // A trial's checkout that never saved its card: the trial checkout again (it reuses what it can).
        const offer = row.promo_code_id
          ? await deps.promos.offerById(user, row.promo_code_id, plan)
          : undefined
        return startTrialCheckout(user, plan, offer)
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
