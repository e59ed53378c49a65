import { fromMinorUnits, toMinorUnits } from '@edgeclub/shared'
import type { Kysely } from 'kysely'
import type Stripe from 'stripe'
import type { DB, UserRow } from '../../db/types'
import { addMs, type Clock, DAY } from '../../lib/clock'
import { AppError, badRequest, notFound } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import type { AuthRepository } from '../auth/auth-repository'
import { toPublicUser } from '../auth/auth-service'
import type { AccessListeners } from '../payments/billing'
import { toPaymentView } from '../payments/payment-views'
import type { PaymentsRepository } from '../payments/payments-repository'
import { idOf } from '../payments/stripe-objects'
import type { StripeWebhooks } from '../payments/stripe-webhooks'
import type { PlansRepository } from '../plans/plans-repository'
import type { SubscriptionsRepository } from '../subscriptions/subscriptions-repository'
import { toSubscriptionView } from '../subscriptions/subscriptions-service'
import type { AdminRepository } from './admin-repository'

type ListedUser = Awaited<ReturnType<AdminRepository['listUsers']>>['rows'][number]

export function toAdminUser(row: ListedUser) {
  return {
    ...toPublicUser(row),
    disabled: row.disabled_at !== null,
    hasAccess: Boolean(row.has_access),
    discord: { state: row.discord_state ?? 'unlinked', roleGranted: Boolean(row.discord_role_granted) },
  }
}

/** Operator actions on members (issue 6): grant, role, disable, refund, and the views behind them. */
export function createAdminService(deps: {
  db: Kysely<DB>
  repo: AdminRepository
  users: AuthRepository
  plans: PlansRepository
  payments: PaymentsRepository
  subscriptions: SubscriptionsRepository
  stripe: Stripe | undefined
  webhooks: StripeWebhooks | undefined
  clock: Clock
  listeners: AccessListeners
}) {
  const { clock } = deps

  async function userOrThrow(id: string): Promise<UserRow> {
    const user = isUuid(id) ? await deps.users.findUserById(id) : undefined
    if (!user) throw notFound('Member not found')
    return user
  }

  return {
    userOrThrow,

    async listUsers(
      query: Parameters<AdminRepository['listUsers']>[0] extends infer Q ? Omit<Q, 'now'> : never,
    ) {
      const { rows, total } = await deps.repo.listUsers({ ...query, now: clock.now() })
      return { rows: rows.map(toAdminUser), total }
    },

    async userDetail(id: string) {
      const row = isUuid(id) ? await deps.repo.findUserWithLink(id, clock.now()) : undefined
      if (!row) throw notFound('Member not found')
      const [subscriptions, payments] = await Promise.all([
        deps.subscriptions.list({ page: 1, limit: 50, sortBy: 'createdAt', sortOrder: 'desc', userId: id }),
        deps.payments.list({ page: 1, limit: 50, sortBy: 'createdAt', sortOrder: 'desc', userId: id }),
      ])
      return {
        user: toAdminUser(row),
        discord: {
          state: row.discord_state ?? 'unlinked',
          roleGranted: Boolean(row.discord_role_granted),
          discordUserId: row.discord_user_id ?? null,
          lastSyncedAt: row.discord_last_synced_at
            ? new Date(row.discord_last_synced_at).toISOString()
            : null,
          lastError: row.discord_last_error ?? null,
          banned: Boolean(row.discord_banned_at),
        },
        subscriptions: subscriptions.rows.map(toSubscriptionView),
        payments: payments.rows.map((payment) => toPaymentView(payment, { includeEmail: true })),
      }
    },

    /** Complimentary access for N days, on the ledger like any other access (provider 'admin'). */
    async grant(userId: string, input: { days: number; planId?: string; note?: string }) {
      const user = await userOrThrow(userId)
      const plan = input.planId
        ? await deps.plans.findById(input.planId)
        : await deps.plans.findBySlug('monthly')
      const fallback = plan ?? (await deps.plans.listActive())[0]
      if (!fallback) throw badRequest('Create a plan before granting access')
      const now = clock.now()
      const current = (await deps.subscriptions.listCurrent(user.id, now))[0]
      if (current && !current.end_date) throw badRequest('This member already has lifetime access')
      // Stacks after any access the member already has, so a grant never shortens it.
      const start = current?.end_date && new Date(current.end_date) > now ? new Date(current.end_date) : now
      const end = addMs(start, input.days * DAY)
      await deps.payments.transaction(async (trx) => {
        const payment = await deps.payments.insert(
          {
            user_id: user.id,
            plan_id: fallback.id,
            kind: 'grant',
            provider: 'admin',
            status: 'completed',
            amount_minor: 0,
            currency: fallback.currency,
            message: input.note ?? `Complimentary access: ${input.days} days`,
            completed_at: now,
          },
          trx,
        )
        await deps.subscriptions.insertWithPeriod(
          {
            user_id: user.id,
            plan_id: fallback.id,
            provider: 'admin',
            status: 'active',
            start_date: start,
            end_date: end,
          },
          payment.id,
          trx,
        )
      })
      await deps.listeners.accessChanged(user.id)
      return { endDate: end.toISOString(), plan: fallback.name }
    },

    async setRole(actor: UserRow, userId: string, role: 'member' | 'admin') {
      const user = await userOrThrow(userId)
      if (user.id === actor.id && role !== 'admin') throw badRequest('You cannot remove your own admin role')
      const updated = await deps.users.updateUser(user.id, { role, updated_at: clock.now() })
      return toPublicUser(updated ?? user)
    },

    /** Disabling signs the member out everywhere at once; they cannot sign in until enabled. */
    async setDisabled(actor: UserRow, userId: string, disabled: boolean) {
      const user = await userOrThrow(userId)
      if (user.id === actor.id) throw badRequest('You cannot disable your own account')
      const now = clock.now()
      await deps.users.transaction(async (trx) => {
        await deps.users.updateUser(user.id, { disabled_at: disabled ? now : null, updated_at: now }, trx)
        if (disabled) await deps.users.revokeUserSessions(user.id, 'disabled-by-admin', now, trx)
      })
      return { disabled }
    },

    /** A full or partial card refund through Stripe; access follows docs/decisions/008. */
    async refund(paymentId: string, input: { amount?: number; reason?: string }) {
      const payment = isUuid(paymentId) ? await deps.payments.findById(paymentId) : undefined
      if (!payment) throw notFound('Payment not found')
      if (payment.provider !== 'stripe' || !payment.stripe_payment_intent_id) {
        throw badRequest(
          'Only card payments can be refunded here; crypto and complimentary payments are settled outside EdgeClub',
        )
      }
      if (payment.status !== 'completed' && payment.status !== 'partially_refunded')
        throw badRequest('Only a completed payment can be refunded')
      if (!deps.stripe || !deps.webhooks)
        throw new AppError('PAYMENT_ERROR', 'Stripe is not configured', { statusCode: 503 })
      const remaining = payment.amount_minor - payment.amount_refunded_minor
      const amountMinor =
        input.amount === undefined ? remaining : toMinorUnits(input.amount, payment.currency)
      if (amountMinor <= 0 || amountMinor > remaining) {
        throw badRequest(
          `Refund between 0.01 and ${fromMinorUnits(remaining, payment.currency).toFixed(2)} ${payment.currency}`,
        )
      }
      const refund = await deps.stripe.refunds.create(
        {
          payment_intent: payment.stripe_payment_intent_id,
          amount: amountMinor,
          metadata: { paymentId: payment.id, reason: input.reason ?? '' },
        },
        { idempotencyKey: `refund-${payment.id}-${payment.amount_refunded_minor}-${amountMinor}` },
      )
      const chargeId = idOf(refund.charge)
      if (chargeId) await deps.webhooks.applyRefund(await deps.stripe.charges.retrieve(chargeId))
      const fresh = (await deps.payments.findById(payment.id)) ?? payment
      return {
        status: fresh.status,
        amountRefunded: fromMinorUnits(fresh.amount_refunded_minor, fresh.currency),
      }
    },

    async analytics() {
      const raw = await deps.repo.analytics(clock.now())
      const now = clock.now()
      const months = Array.from({ length: 12 }, (_, index) => {
        const date = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11 + index, 1))
        return date.toISOString().slice(0, 7)
      })
      const base = raw.activeMembers + raw.cancellations
      return {
        currency: 'USD',
        activeMembers: raw.activeMembers,
        mrr: fromMinorUnits(raw.mrrMinor, 'USD'),
        revenueByMonth: months.map((month) => ({
          month,
          amount: fromMinorUnits(raw.revenue.find((row) => row.month === month)?.minor ?? 0, 'USD'),
        })),
        newMembers30d: raw.newMembers,
        cancellations30d: raw.cancellations,
        churnRate: base === 0 ? 0 : Math.round((raw.cancellations / base) * 10_000) / 10_000,
        planMix: raw.planMix,
        tips: raw.tips.map((row) => ({
          currency: row.currency,
          amount: fromMinorUnits(row.minor, row.currency),
          count: row.count,
        })),
      }
    },
  }
}
export type AdminService = ReturnType<typeof createAdminService>
