import {
  fromMinorUnits,
  type ReconciliationIssues,
  type ReconciliationRun,
  toMinorUnits,
  type UserRole,
} from '@edgeclub/shared'
import type { UserRow } from '../../db/types'
import type { Jobs } from '../../jobs/job-runner'
import { addMs, type Clock, DAY } from '../../lib/clock'
import { AppError, badRequest, notFound } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import { pages } from '../../lib/pagination'
import type { AuthRepository } from '../auth/auth-repository'
import { toPublicUser } from '../auth/auth-service'
import type { SessionCache } from '../auth/session-cache'
import type { CardCheckoutService } from '../payments/card/card-checkout-service'
import { toPaymentView } from '../payments/ledger/payment-views'
import type { PaymentListQuery, PaymentsRepository } from '../payments/ledger/payments-repository'
import type { Reconciliation } from '../payments/ledger/reconciliation'
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
    discord: {
      state: row.discord_state ?? 'unlinked',
      roleGranted: Boolean(row.discord_role_granted),
      verified: row.discord_verified_at !== null,
    },
  }
}

/** Operator actions on members: grant, role, disable, refund, and the views behind them. */
export function createAdminService(deps: {
  repo: AdminRepository
  users: AuthRepository
  plans: PlansRepository
  payments: PaymentsRepository
  subscriptions: SubscriptionsRepository
  card: CardCheckoutService
  reconciliation: Pick<Reconciliation, 'sweep'>
  jobs: Jobs
  clock: Clock
  /** Signed-in users kept in memory: a changed role or a disabled account counts on the next request. */
  sessions: Pick<SessionCache, 'forgetUser'>
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
      return { items: rows.map(toAdminUser), pagination: pages(query.page, query.limit, total) }
    },

    /** Every member's payments, with their email. */
    async listPayments(query: PaymentListQuery) {
      const { rows, total } = await deps.payments.list(query)
      return {
        items: rows.map((row) => toPaymentView(row, { includeEmail: true })),
        pagination: pages(query.page, query.limit, total),
      }
    },

    async userDetail(id: string) {
      const row = isUuid(id) ? await deps.repo.findUserWithLink(id, clock.now()) : undefined
      if (!row) throw notFound('Member not found')
      const [subscriptions, payments, current] = await Promise.all([
        deps.subscriptions.list({ page: 1, limit: 50, sortBy: 'createdAt', sortOrder: 'desc', userId: id }),
        deps.payments.list({ page: 1, limit: 50, sortBy: 'createdAt', sortOrder: 'desc', userId: id }),
        deps.subscriptions.currentAccess(id, clock.now()),
      ])
      return {
        user: toAdminUser(row),
        /** The subscription that gives access now, by the ledger's rule (null: no access). */
        currentAccess: current ? toSubscriptionView(current) : null,
        discord: {
          state: row.discord_state ?? 'unlinked',
          roleGranted: Boolean(row.discord_role_granted),
          discordUserId: row.discord_user_id ?? null,
          lastSyncedAt: row.discord_last_synced_at
            ? new Date(row.discord_last_synced_at).toISOString()
            : null,
          lastError: row.discord_last_error ?? null,
          banned: Boolean(row.discord_banned_at),
          verified: row.discord_verified_at !== null,
          verifiedUsername: row.discord_verified_username ?? null,
          verifiedAt: row.discord_verified_at ? new Date(row.discord_verified_at).toISOString() : null,
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
      const current = await deps.subscriptions.currentAccess(user.id, now)
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
        await deps.jobs.enqueue('discord.sync', { userId: user.id }, { trx, key: `access:${payment.id}` })
      })
      return { endDate: end.toISOString(), plan: fallback.name }
    },

    async setRole(actor: UserRow, userId: string, role: UserRole) {
      const user = await userOrThrow(userId)
      if (user.id === actor.id && role !== 'admin') throw badRequest('You cannot remove your own admin role')
      const updated = await deps.users.updateUser(user.id, { role, updated_at: clock.now() })
      deps.sessions.forgetUser(user.id)
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
      deps.sessions.forgetUser(user.id)
      return { disabled }
    },

    /** A full or partial card refund through Stripe; access follows docs/decisions/008-refunds-and-access.md. */
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
      if (!deps.card.configured())
        throw new AppError('PAYMENT_ERROR', 'Stripe is not configured', { statusCode: 503 })
      const remaining = payment.amount_minor - payment.amount_refunded_minor
      const amountMinor =
        input.amount === undefined ? remaining : toMinorUnits(input.amount, payment.currency)
      if (amountMinor <= 0 || amountMinor > remaining) {
        throw badRequest(
          `Refund between 0.01 and ${fromMinorUnits(remaining, payment.currency).toFixed(2)} ${payment.currency}`,
        )
      }
      await deps.card.refund(payment, amountMinor, input.reason)
      const fresh = (await deps.payments.findById(payment.id)) ?? payment
      return {
        status: fresh.status,
        amountRefunded: fromMinorUnits(fresh.amount_refunded_minor, fresh.currency),
      }
    },

    /** Runs the reconciliation sweep now (an operator's check), and answers with the open findings. */
    async runReconciliation(): Promise<ReconciliationRun> {
      const findings = await deps.reconciliation.sweep()
      const repaired = findings.filter((finding) => finding.outcome === 'repaired').length
      return { repaired, unmatched: findings.length - repaired, ...(await this.reconciliationIssues()) }
    },

    /** Open findings of the reconciliation sweep: money a processor holds that the ledger cannot place. */
    async reconciliationIssues(): Promise<ReconciliationIssues> {
      const rows = await deps.payments.listOpenReconciliationIssues(100)
      return {
        issues: rows.map((row) => ({
          id: row.id,
          rail: row.rail,
          objectId: row.object_id,
          kind: row.kind,
          amount: row.amount_minor === null ? null : fromMinorUnits(row.amount_minor, row.currency ?? 'USD'),
          currency: row.currency,
          detail: row.detail,
          firstSeenAt: new Date(row.first_seen_at).toISOString(),
          lastSeenAt: new Date(row.last_seen_at).toISOString(),
        })),
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
