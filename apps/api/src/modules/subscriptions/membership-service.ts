import {
  billingMessages,
  type CardSetup,
  type CardUpdateResult,
  type ChangePlanPreview,
  type ChangePlanResult,
  fromMinorUnits,
  type PauseResult,
  type RetentionOffer,
  type UnpauseResult,
} from '@edgeclub/shared'
import type { PlanRow, UserRow } from '../../db/types'
import type { Clock } from '../../lib/clock'
import { AppError, badRequest, conflict, notFound } from '../../lib/errors'
import type { AccessService } from './access-service'
import { periodEndOf } from './periods'

type Current = NonNullable<Awaited<ReturnType<AccessService['currentAccess']>>>

/** The Stripe side of a renewing card plan (modules/payments/card/stripe-membership.ts). */
export interface MembershipStripe {
  load(subscriptionId: string): Promise<{
    id: string
    customer: string
    itemId: string
    priceId: string
    status: string
    periodStart: Date
    periodEnd: Date
    scheduleId: string | null
    pendingUpdate: boolean
  }>
  previewUpgrade(
    current: Awaited<ReturnType<MembershipStripe['load']>>,
    plan: PlanRow,
    newInterval: boolean,
    prorationDate: Date,
  ): Promise<{ amountDueMinor: number }>
  upgrade(
    current: Awaited<ReturnType<MembershipStripe['load']>>,
    plan: PlanRow,
    newInterval: boolean,
    prorationDate: Date,
    key: string,
  ): Promise<InvoiceOutcome>
  scheduleDowngrade(
    current: Awaited<ReturnType<MembershipStripe['load']>>,
    plan: PlanRow,
    key: string,
  ): Promise<string>
  releaseSchedule(scheduleId: string, key: string): Promise<void>
  pauseCollection(subscriptionId: string, resumesAt: Date | null, key: string): Promise<void>
  restartNow(subscriptionId: string, key: string): Promise<InvoiceOutcome>
  moveNextCharge(subscriptionId: string, until: Date, key: string): Promise<void>
  applyPromotionCode(subscriptionId: string, promotionCodeId: string, key: string): Promise<void>
  startCardSetup(customer: string, metadata: Record<string, string>, key: string): Promise<CardSetup>
  retrieveSetup(setupIntentId: string): Promise<{
    status: string
    customer: string | { id: string } | null
    payment_method: string | { id: string } | null
  }>
  useCard(customer: string, subscriptionId: string, paymentMethod: string, key: string): Promise<void>
  openInvoice(subscriptionId: string): Promise<{ id?: string } | undefined>
  payInvoice(invoiceId: string, paymentMethod: string, key: string): Promise<InvoiceOutcome>
}

export interface InvoiceOutcome {
  invoiceId: string | null
  paid: boolean
  amountDueMinor: number
  paymentIntentId: string | null
  clientSecret: string | null
}

/** What the membership needs of the card checkout: a customer, a lifetime checkout, an invoice settled. */
export interface MembershipCheckout {
  ensureCustomer(user: UserRow): Promise<string>
  createIntent(
    user: UserRow,
    input: { planId: string; currency: string },
  ): Promise<{ clientSecret: string; paymentIntentId: string; amount: number; currency: string }>
  /** An invoice this change raised: a pending payment the card form can confirm, or fulfilled when paid. */
  recordInvoice(
    user: UserRow,
    plan: PlanRow,
    subscriptionId: string,
    outcome: InvoiceOutcome,
    kind: 'upgrade' | 'renewal',
  ): Promise<void>
}

const INTERVAL_RANK = { week: 1, month: 2, year: 3, lifetime: 4 } as const
const PRORATION_WINDOW_MS = 30 * 60_000

/**
 * A member's renewing card plan, changed instead of cancelled (docs/decisions/019): upgrades
 * charged now with Stripe's proration, downgrades at the renewal, pauses, a new card that pays what
 * failed, and the owner's offer at cancel. Stripe first, then our record through the access service.
 */
export function createMembershipService(deps: {
  access: Pick<
    AccessService,
    | 'currentAccess'
    | 'findById'
    | 'scheduleChange'
    | 'clearScheduledChange'
    | 'pause'
    | 'unpause'
    | 'extendTo'
    | 'recordCancelReason'
    | 'billingSettings'
    | 'saveBillingSettings'
    | 'stopRenewal'
    | 'findLatestPaused'
    | 'findLatestCard'
  >
  stripe: MembershipStripe | undefined
  checkout: MembershipCheckout
  plans: {
    onSaleOrThrow(id: string): Promise<PlanRow>
    findById(id: string): Promise<PlanRow | undefined>
  }
  promos: {
    retentionCode(
      user: UserRow,
      promoId: string,
      plan: PlanRow,
    ): Promise<{ code: string; description: string; stripePromotionCodeId: string | null } | undefined>
    redeemForRetention(user: UserRow, promoId: string): Promise<void>
  }
  clock: Clock
}) {
  const { clock, access } = deps

  function stripeOrThrow(): MembershipStripe {
    if (!deps.stripe) throw new AppError('PAYMENT_ERROR', 'Stripe is not configured', { statusCode: 503 })
    return deps.stripe
  }

  /** The member's renewing card plan, or the reason there is none to change. */
  async function renewing(userId: string, message: string = billingMessages.changeNotRenewing) {
    const current = await access.currentAccess(userId)
    if (!current?.stripe_subscription_id || !current.end_date || current.provider !== 'stripe')
      throw badRequest(message)
    const plan = await deps.plans.findById(current.plan_id)
    if (!plan) throw notFound('Selected plan not found')
    return { current, plan }
  }

  /** Longer interval, or the same interval for more a month: an upgrade (now); otherwise at renewal. */
  function classify(from: PlanRow, to: PlanRow): 'upgrade' | 'downgrade' | 'lifetime' {
    if (to.interval === 'lifetime') return 'lifetime'
    const rank = INTERVAL_RANK[to.interval] - INTERVAL_RANK[from.interval]
    if (rank !== 0) return rank > 0 ? 'upgrade' : 'downgrade'
    return to.price_minor / to.interval_count > from.price_minor / from.interval_count
      ? 'upgrade'
      : 'downgrade'
  }

  const amount = (minor: number, plan: PlanRow) => fromMinorUnits(minor, plan.currency)

  async function preview(
    user: UserRow,
    planId: string,
  ): Promise<Omit<ChangePlanPreview, 'prorationDate'> & { prorationDate: Date }> {
    const target = await deps.plans.onSaleOrThrow(planId)
    const now = clock.now()
    const current = await access.currentAccess(user.id)
    if (current?.plan_id === target.id) throw badRequest(billingMessages.changeSamePlan)
    if (target.interval === 'lifetime')
      return {
        planId: target.id,
        amountDueNow: amount(target.price_minor, target),
        currency: target.currency,
        effectiveAt: now.toISOString(),
        kind: 'lifetime',
        prorationDate: now,
      }
    if (current?.provider === 'crypto' && current.end_date)
      // Crypto pays the next period now, in full; the new plan starts when this one ends.
      return {
        planId: target.id,
        amountDueNow: amount(target.price_minor, target),
        currency: target.currency,
        effectiveAt: new Date(current.end_date).toISOString(),
        kind:
          classify((await deps.plans.findById(current.plan_id)) ?? target, target) === 'upgrade'
            ? 'upgrade'
            : 'downgrade',
        prorationDate: now,
      }
    const { current: card, plan: from } = await renewing(user.id)
    const kind = classify(from, target)
    if (kind === 'downgrade')
      return {
        planId: target.id,
        amountDueNow: 0,
        currency: target.currency,
        effectiveAt: new Date(card.end_date!).toISOString(),
        kind,
        prorationDate: now,
      }
    const stripe = stripeOrThrow()
    const subscription = await stripe.load(card.stripe_subscription_id!)
    const { amountDueMinor } = await stripe.previewUpgrade(
      subscription,
      target,
      target.interval !== from.interval || target.interval_count !== from.interval_count,
      now,
    )
    return {
      planId: target.id,
      amountDueNow: amount(amountDueMinor, target),
      currency: target.currency,
      effectiveAt: now.toISOString(),
      kind,
      prorationDate: now,
    }
  }

  return {
    /** GET /subscriptions/change-plan/preview?planId=: the exact amount due today, as Stripe computes it. */
    async previewChange(user: UserRow, planId: string) {
      const { prorationDate, ...shown } = await preview(user, planId)
      return { ...shown, prorationDate: prorationDate.toISOString() }
    },

    /**
     * POST /subscriptions/change-plan. An upgrade is charged now, prorated at the moment the member saw
     * (`prorationDate`, within a few minutes); a downgrade waits for the renewal; lifetime is a checkout.
     */
    async changePlan(user: UserRow, planId: string, seenAt?: string): Promise<ChangePlanResult> {
      const target = await deps.plans.onSaleOrThrow(planId)
      const now = clock.now()
      if (target.interval === 'lifetime') {
        const intent = await deps.checkout.createIntent(user, {
          planId: target.id,
          currency: target.currency,
        })
        return {
          scheduled: false,
          effectiveAt: now.toISOString(),
          planId: target.id,
          clientSecret: intent.clientSecret,
          paymentIntentId: intent.paymentIntentId,
          amount: intent.amount,
          currency: intent.currency,
        }
      }
      const { current, plan: from } = await renewing(user.id)
      if (current.plan_id === target.id) throw badRequest(billingMessages.changeSamePlan)
      const stripe = stripeOrThrow()
      const subscription = await stripe.load(current.stripe_subscription_id!)
      if (subscription.pendingUpdate) throw conflict(billingMessages.changePending)
      const kind = classify(from, target)
      if (kind === 'downgrade') {
        const scheduleId = await stripe.scheduleDowngrade(
          subscription,
          target,
          `${current.id}-${target.id}-${now.valueOf()}`,
        )
        await access.scheduleChange(current.id, { planId: target.id, at: subscription.periodEnd, scheduleId })
        return {
          scheduled: true,
          effectiveAt: subscription.periodEnd.toISOString(),
          planId: target.id,
          clientSecret: null,
          paymentIntentId: null,
          amount: 0,
          currency: target.currency,
        }
      }
      // An upgrade replaces a downgrade that was waiting.
      if (current.stripe_schedule_id) {
        await stripe.releaseSchedule(current.stripe_schedule_id, `${current.id}-${now.valueOf()}`)
        await access.clearScheduledChange(current.id)
      }
      const seen = seenAt ? new Date(seenAt) : undefined
      const prorationDate =
        seen &&
        !Number.isNaN(seen.valueOf()) &&
        now.valueOf() - seen.valueOf() <= PRORATION_WINDOW_MS &&
        seen >= subscription.periodStart
          ? seen
          : now
      const outcome = await stripe.upgrade(
        subscription,
        target,
        target.interval !== from.interval || target.interval_count !== from.interval_count,
        prorationDate,
        `${current.id}-${target.id}-${prorationDate.valueOf()}`,
      )
      await deps.checkout.recordInvoice(user, target, current.stripe_subscription_id!, outcome, 'upgrade')
      return {
        scheduled: false,
        effectiveAt: now.toISOString(),
        planId: target.id,
        clientSecret: outcome.paid ? null : outcome.clientSecret,
        paymentIntentId: outcome.paid ? null : outcome.paymentIntentId,
        amount: amount(outcome.amountDueMinor, target),
        currency: target.currency,
      }
    },

    /** DELETE /subscriptions/change-plan: the scheduled downgrade is undone. */
    async undoChange(user: UserRow) {
      const current = await access.currentAccess(user.id)
      if (!current?.stripe_schedule_id) throw badRequest(billingMessages.changeNothingScheduled)
      await stripeOrThrow().releaseSchedule(
        current.stripe_schedule_id,
        `${current.id}-undo-${clock.now().valueOf()}`,
      )
      await access.clearScheduledChange(current.id)
      return { undone: true }
    },

    /**
     * POST /subscriptions/pause: no charge and no access from the end of the paid period for 1–3
     * billing periods; the renewal at the resume date charges and brings access back.
     */
    async pause(user: UserRow, periods: number): Promise<PauseResult> {
      const { current, plan } = await renewing(user.id, billingMessages.pauseNotRenewing)
      if (current.resumes_at) throw badRequest(billingMessages.pauseAlready)
      if (current.cancel_at_period_end) throw badRequest(billingMessages.pauseNotRenewing)
      const from = new Date(current.end_date!)
      let resumesAt = from
      for (let index = 0; index < periods; index++) resumesAt = periodEndOf(resumesAt, plan) ?? resumesAt
      await stripeOrThrow().pauseCollection(
        current.stripe_subscription_id!,
        resumesAt,
        `${current.id}-${from.valueOf()}`,
      )
      await access.pause(current.id, { from, resumesAt })
      return { resumesAt: resumesAt.toISOString(), accessUntil: from.toISOString() }
    },

    /**
     * POST /subscriptions/unpause: before the paid period ends, the pause is simply lifted; during the
     * pause, a new period starts now and is charged now (the card form confirms it if the bank asks).
     */
    async unpause(user: UserRow): Promise<UnpauseResult> {
      const row = await this.pausedOf(user.id)
      const stripe = stripeOrThrow()
      const now = clock.now()
      if (row.paused_at && new Date(row.paused_at) > now) {
        await stripe.pauseCollection(row.stripe_subscription_id!, null, `${row.id}-unpause-${now.valueOf()}`)
        await access.unpause(row.id)
        return { resumed: true, clientSecret: null, paymentIntentId: null, amount: 0 }
      }
      const plan = await deps.plans.findById(row.plan_id)
      if (!plan) throw notFound('Selected plan not found')
      const outcome = await stripe.restartNow(
        row.stripe_subscription_id!,
        `${row.id}-restart-${now.valueOf()}`,
      )
      await deps.checkout.recordInvoice(user, plan, row.stripe_subscription_id!, outcome, 'renewal')
      return {
        resumed: outcome.paid,
        clientSecret: outcome.paid ? null : outcome.clientSecret,
        paymentIntentId: outcome.paid ? null : outcome.paymentIntentId,
        amount: fromMinorUnits(outcome.amountDueMinor, plan.currency),
      }
    },

    /** The member's paused card subscription (paused now, or to be paused at the end of its period). */
    async pausedOf(userId: string) {
      const current = await access.currentAccess(userId)
      if (current?.resumes_at && current.stripe_subscription_id) return current
      const latest = await access.findLatestPaused(userId)
      if (!latest?.stripe_subscription_id) throw badRequest(billingMessages.notPaused)
      return latest
    },

    /** Admin: free days before the member's next charge (a card plan), on top of their access. */
    async addFreeDays(userId: string, days: number) {
      const current = await access.currentAccess(userId)
      if (!current?.stripe_subscription_id || !current.end_date) return undefined
      const end = new Date(new Date(current.end_date).valueOf() + days * 86_400_000)
      const key = `${current.id}-${end.valueOf()}`
      await stripeOrThrow().moveNextCharge(current.stripe_subscription_id, end, key)
      await access.extendTo(current.id, end, key)
      return { endDate: end.toISOString() }
    },

    /** POST /subscriptions/payment-method: a SetupIntent for the card renewals are charged to. */
    async startCardUpdate(user: UserRow): Promise<CardSetup> {
      const current = (await access.currentAccess(user.id)) ?? (await access.findLatestCard(user.id))
      if (!current?.stripe_subscription_id) throw badRequest(billingMessages.noCardPlan)
      const customer = await deps.checkout.ensureCustomer(user)
      return stripeOrThrow().startCardSetup(
        customer,
        { userId: user.id, subscriptionId: current.stripe_subscription_id, purpose: 'update-card' },
        `${current.id}-${clock.now().valueOf()}`,
      )
    },

    /**
     * POST /subscriptions/payment-method/confirm: the saved card becomes the renewal card, and an
     * invoice a failed renewal left open is paid with it at once.
     */
    async finishCardUpdate(user: UserRow, setupIntentId: string): Promise<CardUpdateResult> {
      const stripe = stripeOrThrow()
      const current = (await access.currentAccess(user.id)) ?? (await access.findLatestCard(user.id))
      if (!current?.stripe_subscription_id) throw badRequest(billingMessages.noCardPlan)
      const customer = await deps.checkout.ensureCustomer(user)
      const setup = await stripe.retrieveSetup(setupIntentId)
      const owner = typeof setup.customer === 'string' ? setup.customer : setup.customer?.id
      if (owner !== customer) throw notFound('Card setup not found')
      const paymentMethod =
        typeof setup.payment_method === 'string' ? setup.payment_method : setup.payment_method?.id
      if (setup.status !== 'succeeded' || !paymentMethod) throw badRequest(billingMessages.cardSetupFailed)
      await stripe.useCard(customer, current.stripe_subscription_id, paymentMethod, setupIntentId)
      const open = await stripe.openInvoice(current.stripe_subscription_id)
      if (!open?.id)
        return {
          updated: true,
          retried: 'none',
          clientSecret: null,
          message: 'Your card is saved for your renewals.',
        }
      const plan = await deps.plans.findById(current.plan_id)
      if (!plan) throw notFound('Selected plan not found')
      try {
        const outcome = await stripe.payInvoice(open.id, paymentMethod, setupIntentId)
        await deps.checkout.recordInvoice(user, plan, current.stripe_subscription_id, outcome, 'renewal')
        if (outcome.paid)
          return {
            updated: true,
            retried: 'paid',
            clientSecret: null,
            message: 'Your card is saved and your renewal is paid.',
          }
        return {
          updated: true,
          retried: 'requires_action',
          clientSecret: outcome.clientSecret,
          message: 'Your bank asks you to confirm the renewal payment.',
        }
      } catch (error) {
        const reason = error instanceof Error ? error.message : 'Payment failed'
        return {
          updated: true,
          retried: 'failed',
          clientSecret: null,
          message: `Your card is saved, but the renewal payment failed: ${reason}`,
        }
      }
    },

    /** GET /subscriptions/retention: the owner's offer to a member about to cancel. */
    async retentionOffer(user: UserRow): Promise<RetentionOffer> {
      const settings = await access.billingSettings()
      const current = await access.currentAccess(user.id)
      const plan = current ? await deps.plans.findById(current.plan_id) : undefined
      const card = Boolean(current?.stripe_subscription_id && current.end_date)
      const code =
        card && plan && settings.retentionPromoCodeId
          ? await deps.promos.retentionCode(user, settings.retentionPromoCodeId, plan)
          : undefined
      return {
        code: code?.stripePromotionCodeId ? { code: code.code, description: code.description } : null,
        pause: card && settings.retentionOffersPause && !current?.resumes_at,
      }
    },

    /** POST /subscriptions/retention/accept: the member stays, with the code on their plan or a pause. */
    async acceptRetention(
      user: UserRow,
      input: {
        offer: 'code' | 'pause'
        periods?: number | undefined
        reason?: string | undefined
        detail?: string | undefined
      },
    ) {
      const offer = await this.retentionOffer(user)
      const { current } = await renewing(user.id)
      if (input.offer === 'pause') {
        if (!offer.pause) throw badRequest('No pause is offered')
        const paused = await this.pause(user, input.periods ?? 1)
        await access.recordCancelReason({
          userId: user.id,
          subscriptionId: current.id,
          reason: input.reason ?? 'other',
          detail: input.detail ?? null,
          offer: 'pause',
          outcome: 'kept',
        })
        return { kept: true, resumesAt: paused.resumesAt }
      }
      const settings = await access.billingSettings()
      const plan = await deps.plans.findById(current.plan_id)
      const code =
        settings.retentionPromoCodeId && plan
          ? await deps.promos.retentionCode(user, settings.retentionPromoCodeId, plan)
          : undefined
      if (!code?.stripePromotionCodeId || !settings.retentionPromoCodeId)
        throw badRequest('No code is offered')
      await stripeOrThrow().applyPromotionCode(
        current.stripe_subscription_id!,
        code.stripePromotionCodeId,
        current.id,
      )
      await deps.promos.redeemForRetention(user, settings.retentionPromoCodeId)
      await access.recordCancelReason({
        userId: user.id,
        subscriptionId: current.id,
        reason: input.reason ?? 'other',
        detail: input.detail ?? null,
        offer: 'code',
        outcome: 'kept',
      })
      return { kept: true, resumesAt: null }
    },

    recordCancelReason: access.recordCancelReason,
    billingSettings: access.billingSettings,
    saveBillingSettings: access.saveBillingSettings,
    classify,
    currentOf: (userId: string): Promise<Current | undefined> => access.currentAccess(userId),
  }
}
export type MembershipService = ReturnType<typeof createMembershipService>
