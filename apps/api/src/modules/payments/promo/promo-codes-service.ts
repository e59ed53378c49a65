import {
  billingMessages,
  describeDiscount,
  fromMinorUnits,
  type PromoCode,
  type PromoCodeInput,
  type PromoQuote,
  toMinorUnits,
} from '@edgeclub/shared'
import type { Transaction } from 'kysely'
import type { DB, PlanRow, PromoCodeRow, UserRow } from '../../../db/types'
import { addMs, type Clock, DAY } from '../../../lib/clock'
import { AppError, badRequest, conflict, notFound } from '../../../lib/errors'
import { isUuid } from '../../../lib/ids'
import type { PromoCodesRepository } from './promo-codes-repository'

/** What Stripe needs to know of a code (card payments): a coupon and a promotion code for it. */
export interface StripePromotions {
  create(code: PromoCodeRow, plans: PlanRow[]): Promise<{ couponId: string; promotionCodeId: string }>
  deactivate(promotionCodeId: string): Promise<void>
}

/** A code that applies to this member and plan, and what it takes off the first payment. */
export interface PromoOffer {
  promo: PromoCodeRow
  discountMinor: number
  fullMinor: number
  amountDueMinor: number
  description: string
}

const refused = (message: string, status = 400) =>
  new AppError(status === 404 ? 'NOT_FOUND' : 'VALIDATION_ERROR', message, {
    statusCode: status,
    errors: [{ field: 'promoCode', message }],
  })

const percentOf = (row: PromoCodeRow) => (row.percent_off === null ? null : Number(row.percent_off))

/** Minor units a code takes off one payment of `priceMinor` (never more than the price). */
export function discountOn(row: PromoCodeRow, priceMinor: number): number {
  const percent = percentOf(row)
  if (percent !== null) return Math.min(priceMinor, Math.round((priceMinor * percent) / 100))
  return Math.min(priceMinor, row.amount_off_minor ?? 0)
}

export function describePromo(row: PromoCodeRow): string {
  return describeDiscount({
    percentOff: percentOf(row),
    amountOff:
      row.amount_off_minor === null ? null : fromMinorUnits(row.amount_off_minor, row.currency ?? 'USD'),
    currency: row.currency,
    duration: row.duration,
    durationInMonths: row.duration_in_months,
  })
}

/**
 * Promo codes: admins make them (a Stripe coupon and promotion code for card payments; crypto takes
 * the same discount computed here); members check one against a plan, and a checkout holds a
 * redemption until its payment goes through. The rules are ours, checked here for every rail: one
 * redemption per member, the code's limit counted under a lock, audience and plans and expiry.
 */
export function createPromoCodesService(deps: {
  repo: PromoCodesRepository
  stripe: StripePromotions | undefined
  plans: { findById(id: string): Promise<PlanRow | undefined> }
  access: { hasAccessNow(userId: string): Promise<boolean> }
  clock: Clock
}) {
  const { repo, clock } = deps

  /** Why this code cannot be used by this member for this plan, or nothing. */
  async function refusal(row: PromoCodeRow, user: UserRow, plan: PlanRow, trx?: Transaction<DB>) {
    if (!row.active) return billingMessages.promoInactive
    if (row.expires_at && new Date(row.expires_at) <= clock.now()) return billingMessages.promoExpired
    if (row.plan_ids && !row.plan_ids.includes(plan.id)) return billingMessages.promoWrongPlan
    if (row.amount_off_minor !== null && row.currency !== plan.currency) return billingMessages.promoCurrency
    const mine = await repo.findRedemption(row.id, user.id, trx)
    if (mine?.status === 'redeemed') return billingMessages.promoAlreadyUsed
    if (row.audience === 'new' && (await repo.hasPaid(user.id, trx))) return billingMessages.promoNewOnly
    if (
      row.audience === 'returning' &&
      (!(await repo.hadSubscription(user.id, trx)) || (await deps.access.hasAccessNow(user.id)))
    )
      return billingMessages.promoReturningOnly
    if (row.max_redemptions !== null && (await repo.countLive(row.id, user.id, trx)) >= row.max_redemptions)
      return billingMessages.promoUsedUp
    return undefined
  }

  function offerOf(row: PromoCodeRow, plan: PlanRow): PromoOffer {
    const discountMinor = discountOn(row, plan.price_minor)
    return {
      promo: row,
      discountMinor,
      fullMinor: plan.price_minor,
      amountDueMinor: plan.price_minor - discountMinor,
      description: describePromo(row),
    }
  }

  async function figures(): Promise<PromoCode[]> {
    const { codes, redeemed, revenue } = await repo.listWithFigures()
    return codes.map((row) => ({
      id: row.id,
      code: row.code,
      percentOff: percentOf(row),
      amountOff:
        row.amount_off_minor === null ? null : fromMinorUnits(row.amount_off_minor, row.currency ?? 'USD'),
      currency: row.currency,
      duration: row.duration,
      durationInMonths: row.duration_in_months,
      audience: row.audience,
      planIds: row.plan_ids,
      expiresAt: row.expires_at ? new Date(row.expires_at).toISOString() : null,
      maxRedemptions: row.max_redemptions,
      active: row.active,
      redemptions: Number(redeemed.find((entry) => entry.promo_code_id === row.id)?.n ?? 0),
      revenue: revenue
        .filter((entry) => entry.promo_code_id === row.id)
        .map((entry) => ({
          currency: entry.currency,
          amount: fromMinorUnits(Number(entry.minor), entry.currency),
        })),
      description: describePromo(row),
      createdAt: new Date(row.created_at).toISOString(),
    }))
  }

  return {
    /** POST /admin/promo-codes: the code here, then at Stripe (card); a duplicate name is a conflict. */
    async create(input: PromoCodeInput, createdBy: string | null): Promise<PromoCode> {
      if (await repo.findByCode(input.code)) throw conflict(billingMessages.promoDuplicate)
      if (input.amountOff !== undefined && !input.currency)
        throw badRequest('Say the currency of the amount off', [
          { field: 'currency', message: 'Say the currency of the amount off' },
        ])
      const plans: PlanRow[] = []
      for (const planId of input.planIds ?? []) {
        const plan = await deps.plans.findById(planId)
        if (!plan)
          throw badRequest('Choose plans from the list', [{ field: 'planIds', message: 'Unknown plan' }])
        plans.push(plan)
      }
      if (input.expiresAt && new Date(input.expiresAt) <= clock.now())
        throw badRequest('The expiry must be in the future', [
          { field: 'expiresAt', message: 'The expiry must be in the future' },
        ])
      // In a transaction of its own: the admin's audit row commits with it (plugins/audit.ts).
      const row = await repo
        .transaction((trx) =>
          repo.insert(
            {
              code: input.code,
              percent_off: input.percentOff ?? null,
              amount_off_minor:
                input.amountOff === undefined ? null : toMinorUnits(input.amountOff, input.currency ?? 'USD'),
              currency: input.amountOff === undefined ? null : (input.currency ?? null),
              duration: input.duration,
              duration_in_months: input.durationInMonths ?? null,
              audience: input.audience,
              plan_ids: input.planIds && input.planIds.length > 0 ? input.planIds : null,
              expires_at: input.expiresAt ? new Date(input.expiresAt) : null,
              max_redemptions: input.maxRedemptions ?? null,
              stripe_coupon_id: null,
              stripe_promotion_code_id: null,
              created_by: createdBy,
              deactivated_at: null,
            },
            trx,
          ),
        )
        .catch((error: unknown) => {
          // Two admins typing the same new code at once: the unique index decides.
          if ((error as { code?: string }).code === '23505') throw conflict(billingMessages.promoDuplicate)
          throw error
        })
      if (deps.stripe) {
        try {
          await repo.setStripeIds(row.id, await deps.stripe.create(row, plans))
        } catch (error) {
          // A code that exists only half (here, not at Stripe) would be refused at card checkout: undo.
          await repo.deactivate(row.id, clock.now())
          throw error
        }
      }
      const created = (await figures()).find((code) => code.id === row.id)
      if (!created) throw notFound('Promo code not found')
      return created
    },

    list: figures,

    /** POST /admin/promo-codes/:id/deactivate: refused from now on; what was redeemed stays. */
    async deactivate(id: string): Promise<PromoCode> {
      const row = isUuid(id) ? await repo.findById(id) : undefined
      if (!row) throw notFound('Promo code not found')
      if (row.active) {
        if (deps.stripe && row.stripe_promotion_code_id)
          await deps.stripe.deactivate(row.stripe_promotion_code_id)
        await repo.transaction((trx) => repo.deactivate(row.id, clock.now(), trx))
      }
      const found = (await figures()).find((code) => code.id === row.id)
      if (!found) throw notFound('Promo code not found')
      return found
    },

    /** The code as this member may use it for this plan, or a 4xx that says why not. */
    async offer(user: UserRow, code: string, plan: PlanRow): Promise<PromoOffer> {
      const row = await repo.findByCode(code.trim())
      if (!row) throw refused(billingMessages.promoUnknown, 404)
      const why = await refusal(row, user, plan)
      if (why) throw refused(why)
      return offerOf(row, plan)
    },

    /** The code an open checkout was opened with, if this member may still use it for this plan. */
    async offerById(user: UserRow, promoId: string, plan: PlanRow): Promise<PromoOffer | undefined> {
      const row = await repo.findById(promoId)
      if (!row || (await refusal(row, user, plan))) return undefined
      return offerOf(row, plan)
    },

    /** The Stripe promotion code a card subscription is created with (null: crypto-only code). */
    async stripePromotionCode(promoId: string): Promise<string | null> {
      return (await repo.findById(promoId))?.stripe_promotion_code_id ?? null
    },

    /** The owner's retention code, if this member may still have it on this plan. */
    async retentionCode(user: UserRow, promoId: string, plan: PlanRow) {
      const row = await repo.findById(promoId)
      if (!row || (await refusal(row, user, plan))) return undefined
      return {
        code: row.code,
        description: describePromo(row),
        stripePromotionCodeId: row.stripe_promotion_code_id,
      }
    },

    /** A retention code a member accepted is theirs, used (once per member, like any code). */
    async redeemForRetention(user: UserRow, promoId: string) {
      await repo.transaction(async (trx) => {
        await repo.hold(promoId, user.id, null, trx)
        await repo.redeemMember(promoId, user.id, clock.now(), trx)
      })
    },

    /** GET /promo-codes/:code?planId=: the first payment with the code. */
    async quote(user: UserRow, code: string, planId: string): Promise<PromoQuote> {
      const plan = isUuid(planId) ? await deps.plans.findById(planId) : undefined
      if (!plan?.is_active || plan.archived_at) throw notFound('Selected plan not found')
      const offer = await this.offer(user, code, plan)
      return {
        code: offer.promo.code,
        planId: plan.id,
        amountDue: fromMinorUnits(offer.amountDueMinor, plan.currency),
        fullAmount: fromMinorUnits(offer.fullMinor, plan.currency),
        currency: plan.currency,
        description: offer.description,
      }
    },

    /**
     * Holds the member's redemption for this checkout, checking the code again under its row lock so
     * that of two members racing for the last redemption exactly one gets it.
     */
    async hold(trx: Transaction<DB>, offer: PromoOffer, user: UserRow, plan: PlanRow, paymentId: string) {
      const locked = await repo.lockById(offer.promo.id, trx)
      if (!locked) throw refused(billingMessages.promoUnknown, 404)
      const why = await refusal(locked, user, plan, trx)
      if (why) throw refused(why)
      await repo.hold(locked.id, user.id, paymentId, trx)
    },

    /** In the fulfilment's transaction: the checkout that held a redemption was paid. */
    redeem: (trx: Transaction<DB>, paymentId: string) => repo.redeem(paymentId, clock.now(), trx),

    /**
     * A discount the member keeps on later payments of their own making (crypto does not renew by
     * itself): a code redeemed for this plan that lasts for ever, or for N months from its redemption.
     */
    async continuingOffer(user: UserRow, plan: PlanRow): Promise<PromoOffer | undefined> {
      const now = clock.now()
      for (const row of await repo.redeemedBy(user.id)) {
        if (row.duration === 'once') continue
        if (row.plan_ids && !row.plan_ids.includes(plan.id)) continue
        if (row.amount_off_minor !== null && row.currency !== plan.currency) continue
        const since = row.redeemed_at ? new Date(row.redeemed_at) : now
        if (row.duration === 'repeating' && addMs(since, (row.duration_in_months ?? 0) * 30 * DAY) <= now)
          continue
        return offerOf(row, plan)
      }
      return undefined
    },
  }
}
export type PromoCodesService = ReturnType<typeof createPromoCodesService>
