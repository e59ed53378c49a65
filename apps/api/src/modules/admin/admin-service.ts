import {
  CANCEL_REASON_LABELS,
  CANCEL_REASONS,
  fromMinorUnits,
  type ReconciliationIssues,
  type ReconciliationRun,
  toMinorUnits,
} from '@edgeclub/shared'
import type { TransactionRunner } from '../../db/transaction'
import type { PlanRow } from '../../db/types'
import { addMs, type Clock, DAY } from '../../lib/clock'
import { AppError, badRequest, notFound } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import { pages } from '../../lib/pagination'
import type { AccountsService } from '../auth/accounts-service'
import { toPublicUser } from '../auth/user-views'
import type { CardCheckoutService } from '../payments/card/card-checkout-service'
import type { PaymentsService } from '../payments/common/payments-service'
import type { Reconciliation } from '../payments/common/reconciliation'
import type { PlacesService } from '../places/places-service'
import type { AccessService } from '../subscriptions/access-service'
import { toSubscriptionView } from '../subscriptions/subscription-views'
import type { SubscriptionsService } from '../subscriptions/subscriptions-service'
import type { TelegramService } from '../telegram/telegram-service'
import type { AdminRepository } from './admin-repository'

type ListedUser = Awaited<ReturnType<AdminRepository['listUsers']>>['rows'][number]

function toAdminUser(row: ListedUser) {
  return {
    ...toPublicUser(row),
    disabled: row.disabled_at !== null,
    hasAccess: Boolean(row.has_access),
    discord: {
      state: row.discord_state ?? 'unlinked',
      roleGranted: Boolean(row.discord_role_granted),
      verified: row.discord_verified_at !== null,
    },
    telegram: {
      connected: row.telegram_account_id !== null,
      username: row.telegram_username ? `@${row.telegram_username}` : (row.telegram_first_name ?? null),
    },
  }
}

/** Operator actions on members (grant, refund, reconciliation) and the views behind them. */
export function createAdminService(deps: {
  repo: AdminRepository
  accounts: Pick<AccountsService, 'memberOrThrow'>
  plans: { grantable(planId?: string): Promise<PlanRow | undefined> }
  payments: Pick<PaymentsService, 'list' | 'findById' | 'recordComplimentary' | 'openReconciliationIssues'>
  subscriptions: Pick<SubscriptionsService, 'history'>
  access: Pick<AccessService, 'currentAccess' | 'grantPeriod'>
  card: Pick<CardCheckoutService, 'configured' | 'refund'>
  reconciliation: Pick<Reconciliation, 'sweep'>
  /** What the member's plans open, and their Telegram side, beside Discord's. */
  places: Pick<PlacesService, 'grantSummary'>
  telegram: Pick<TelegramService, 'adminView'>
  transaction: TransactionRunner
  clock: Clock
}) {
  const { clock } = deps

  return {
    async listUsers(
      query: Parameters<AdminRepository['listUsers']>[0] extends infer Q ? Omit<Q, 'now'> : never,
    ) {
      const { rows, total } = await deps.repo.listUsers({ ...query, now: clock.now() })
      return { items: rows.map(toAdminUser), pagination: pages(query.page, query.limit, total) }
    },

    /** Every member's payments, with their email. */
    listPayments: deps.payments.list,

    async userDetail(id: string) {
      const row = isUuid(id) ? await deps.repo.findUserWithLink(id, clock.now()) : undefined
      if (!row) throw notFound('Member not found')
      const recent = { page: 1, limit: 50, sortBy: 'createdAt', sortOrder: 'desc' } as const
      const [subscriptions, payments, current, telegram, grant] = await Promise.all([
        deps.subscriptions.history(id, recent),
        deps.payments.list({ ...recent, userId: id }),
        deps.access.currentAccess(id),
        deps.telegram.adminView(id),
        deps.places.grantSummary(id),
      ])
      return {
        user: toAdminUser(row),
        /** The subscription that gives access now, by the access rule (null: no access). */
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
        telegram,
        places: grant,
        subscriptions: subscriptions.items,
        payments: payments.items,
      }
    },

    /** Complimentary access for N days, like any other access (provider 'admin', a zero payment). */
    async grant(userId: string, input: { days: number; planId?: string; note?: string }) {
      const user = await deps.accounts.memberOrThrow(userId)
      const plan = await deps.plans.grantable(input.planId)
      if (!plan) throw badRequest('Create a plan before granting access')
      const now = clock.now()
      const current = await deps.access.currentAccess(user.id)
      if (current && !current.end_date) throw badRequest('This member already has lifetime access')
      // Stacks after any access the member already has, so a grant never shortens it.
      const start = current?.end_date && new Date(current.end_date) > now ? new Date(current.end_date) : now
      const end = addMs(start, input.days * DAY)
      await deps.transaction(async (trx) => {
        const payment = await deps.payments.recordComplimentary(trx, {
          userId: user.id,
          plan,
          note: input.note ?? `Complimentary access: ${input.days} days`,
        })
        await deps.access.grantPeriod(trx, {
          userId: user.id,
          plan,
          provider: 'admin',
          paymentId: payment.id,
          start,
          endFrom: () => end,
        })
      })
      return { endDate: end.toISOString(), plan: plan.name }
    },

    /** A full or partial card refund through Stripe; access follows docs/decisions/008-refunds-and-access.md. */
    async refund(paymentId: string, input: { amount?: number; reason?: string }) {
      const payment = await deps.payments.findById(paymentId)
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

    /** The rollups job folds the revenue movements (the owner's numbers) into one row per day and kind. */
    compactMovements: () => deps.repo.compactMovements(),

    /** Runs the reconciliation sweep now (an operator's check), and answers with the open findings. */
    async runReconciliation(): Promise<ReconciliationRun> {
      const findings = await deps.reconciliation.sweep()
      const repaired = findings.filter((finding) => finding.outcome === 'repaired').length
      return { repaired, unmatched: findings.length - repaired, ...(await this.reconciliationIssues()) }
    },

    /** Open findings of the reconciliation sweep: money a processor holds that the ledger cannot place. */
    async reconciliationIssues(): Promise<ReconciliationIssues> {
      const rows = await deps.payments.openReconciliationIssues(100)
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
        trials: {
          started30d: raw.trials.trial_started ?? 0,
          ended30d: (raw.trials.trial_converted ?? 0) + (raw.trials.trial_ended ?? 0),
          converted30d: raw.trials.trial_converted ?? 0,
          conversionRate:
            (raw.trials.trial_converted ?? 0) + (raw.trials.trial_ended ?? 0) === 0
              ? null
              : Math.round(
                  ((raw.trials.trial_converted ?? 0) /
                    ((raw.trials.trial_converted ?? 0) + (raw.trials.trial_ended ?? 0))) *
                    10_000,
                ) / 10_000,
        },
        mrrMovements: (() => {
          const usd = (kind: string) => fromMinorUnits(raw.movementsMinor[kind] ?? 0, 'USD')
          const moved = {
            new: usd('new'),
            expansion: usd('expansion'),
            contraction: usd('contraction'),
            churned: usd('churned'),
            reactivated: usd('reactivated'),
          }
          const net =
            Math.round(
              (moved.new + moved.expansion + moved.reactivated - moved.contraction - moved.churned) * 100,
            ) / 100
          return { month: raw.month, ...moved, net }
        })(),
        promoRedemptions: raw.redemptions,
        cancellationReasons: CANCEL_REASONS.map((reason) => ({
          reason,
          label: CANCEL_REASON_LABELS[reason],
          cancelled: raw.reasons.find((row) => row.reason === reason && row.outcome === 'cancelled')?.n ?? 0,
          kept: raw.reasons.find((row) => row.reason === reason && row.outcome === 'kept')?.n ?? 0,
        })).filter((row) => row.cancelled + row.kept > 0),
      }
    },
  }
}
export type AdminService = ReturnType<typeof createAdminService>
