import type { AccessStatus, PaymentIntent, SubscriptionView } from '@edgeclub/shared'
import type { Transaction } from 'kysely'
import type { DB, SubscriptionRow, UserRow } from '../../db/types'
import type { Jobs } from '../../jobs/job-runner'
import { addMs, type Clock, DAY } from '../../lib/clock'
import { badRequest, notFound } from '../../lib/errors'
import { pages } from '../../lib/pagination'
import type { PlansRepository } from '../plans/plans-repository'
import { cancellationEmail, renewalFailedEmail } from './subscription-emails'
import type { SubscriptionListQuery, SubscriptionsRepository } from './subscriptions-repository'

type Row = Awaited<ReturnType<SubscriptionsRepository['listCurrent']>>[number]

/** A subscription as the API serves it (planId carries the plan's name and _id). */
export function toSubscriptionView(row: Row): SubscriptionView {
  return {
    _id: row.id,
    id: row.id,
    planId: {
      _id: row.plan_id,
      id: row.plan_id,
      name: row.plan_name,
      slug: row.plan_slug,
      interval: row.plan_interval,
    },
    status: row.status,
    provider: row.provider,
    startDate: new Date(row.start_date).toISOString(),
    endDate: row.end_date ? new Date(row.end_date).toISOString() : null,
    graceUntil: row.grace_until ? new Date(row.grace_until).toISOString() : null,
    cancelAtPeriodEnd: row.cancel_at_period_end,
    createdAt: new Date(row.created_at).toISOString(),
  }
}

/** What the subscriptions service needs from the card side to change a Stripe subscription. */
export interface CardBilling {
  setRenewal(
    subscription: { id: string; stripe_subscription_id: string | null; updated_at: Date },
    renew: boolean,
  ): Promise<void>
  createIntent(user: UserRow, input: { planId: string; currency: string }): Promise<PaymentIntent>
}

/** Stripe's view of one of its subscriptions, as far as access is concerned. */
export interface StripeSubscriptionState {
  status: string
  cancelAtPeriodEnd: boolean
  endedAt: Date | null
}

/**
 * The access ledger's rules and the subscription lifecycle: who has access now and what members see
 * of it; cancel, resume and renew; a renewal that failed (grace period); the end of access. What
 * follows a change (notices, the Discord role) is recorded in the outbox with the change.
 */
export function createSubscriptionsService(deps: {
  repo: SubscriptionsRepository
  plans: PlansRepository
  card: CardBilling
  jobs: Jobs
  clock: Clock
  graceDays: number
  appOrigin: string
}) {
  const { repo, clock } = deps

  async function notice(
    trx: Transaction<DB>,
    row: SubscriptionRow,
    key: string,
    render: (user: { email: string; first_name: string }, planName: string) => Parameters<Jobs['enqueue']>[1],
  ) {
    const user = await trx
      .selectFrom('users')
      .select(['email', 'first_name'])
      .where('id', '=', row.user_id)
      .executeTakeFirst()
    const plan = await deps.plans.findById(row.plan_id, trx)
    if (user) await deps.jobs.enqueue('email', render(user, plan?.name ?? 'EdgeClub') as never, { trx, key })
  }

  async function sendCancellationNotice(trx: Transaction<DB>, row: SubscriptionRow) {
    if (!row.end_date) return
    const endDate = new Date(row.end_date)
    await notice(
      trx,
      row,
      `cancel-notice:${row.id}:${new Date(row.cancelled_at ?? clock.now()).valueOf()}`,
      (user, planName) => ({
        message: cancellationEmail({
          to: user.email,
          firstName: user.first_name,
          planName,
          endDate,
          appOrigin: deps.appOrigin,
        }),
      }),
    )
  }

  const accessChanged = (trx: Transaction<DB>, userId: string, key: string) =>
    deps.jobs.enqueue('discord.sync', { userId }, { trx, key })

  return {
    /** The subscription that gives access now (lifetime first, then the latest end), if any. */
    currentAccess: (userId: string) => repo.currentAccess(userId, clock.now()),

    findByStripeId: (stripeSubscriptionId: string) => repo.findByStripeId(stripeSubscriptionId),

    /** GET /subscriptions/status: hasAccess and the subscription to show. */
    async status(userId: string): Promise<AccessStatus> {
      const shown = await repo.accessOrLatest(userId, clock.now())
      return {
        hasAccess: Boolean(shown?.has_access),
        activeSubscription: shown ? toSubscriptionView(shown) : null,
      }
    },

    async history(userId: string, query: Omit<SubscriptionListQuery, 'userId'>) {
      const { rows, total } = await repo.list({ ...query, userId })
      return { items: rows.map(toSubscriptionView), pagination: pages(query.page, query.limit, total) }
    },

    /** Admin list: every member's subscriptions with their email. */
    async list(query: SubscriptionListQuery) {
      const { rows, total } = await repo.list(query)
      return {
        items: rows.map((row) => ({
          ...toSubscriptionView(row),
          userId: row.user_id,
          userEmail: row.user_email,
        })),
        pagination: pages(query.page, query.limit, total),
      }
    },

    /** Ends access that ran out, even when no event told us (the expiry job). */
    async expireEnded(): Promise<number> {
      const now = clock.now()
      return repo.transaction(async (trx) => {
        const ended = await repo.expireEnded(now, trx)
        for (const row of ended) await accessChanged(trx, row.user_id, `expired:${row.id}`)
        return ended.length
      })
    },

    /** PUT /subscriptions/{id}/cancel: stops renewal; access lasts until the end of the paid period. */
    async cancel(user: UserRow, subscriptionId: string) {
      const row = await ownOrThrow(user.id, subscriptionId)
      if (!row.end_date) throw badRequest('Lifetime access does not renew, so there is nothing to cancel')
      if (row.status !== 'active' && row.status !== 'past_due')
        throw badRequest('This subscription has already ended')
      if (!row.stripe_subscription_id)
        throw badRequest('This access does not renew by itself, so there is nothing to cancel')
      await deps.card.setRenewal(row, false)
      // Stripe's event about this change may land first; whichever marks the row sends the notice.
      const marked = await repo.transaction(async (trx) => {
        const updated = await repo.markCancelling(row.id, clock.now(), trx)
        if (updated) await sendCancellationNotice(trx, updated)
        return updated
      })
      const fresh = marked ?? (await repo.findById(row.id))
      return {
        cancelAtPeriodEnd: fresh?.cancel_at_period_end ?? true,
        endDate: fresh?.end_date ? new Date(fresh.end_date).toISOString() : null,
      }
    },

    /** POST /subscriptions/{id}/renew: resume a cancelling subscription, or check out again an ended one. */
    async renew(
      user: UserRow,
      subscriptionId: string,
    ): Promise<{ resumed: boolean; paymentIntent: PaymentIntent | null }> {
      const row = await ownOrThrow(user.id, subscriptionId)
      const now = clock.now()
      const live = row.status === 'active' && (!row.end_date || new Date(row.end_date) > now)
      if (live && row.cancel_at_period_end && row.stripe_subscription_id) {
        await deps.card.setRenewal(row, true)
        await repo.update(row.id, { cancel_at_period_end: false, cancelled_at: null, updated_at: now })
        return { resumed: true, paymentIntent: null }
      }
      if (live) throw badRequest('This subscription is active and set to renew already')
      const plan = await deps.plans.findById(row.plan_id)
      if (!plan) throw notFound('Selected plan not found')
      return {
        resumed: false,
        paymentIntent: await deps.card.createIntent(user, { planId: plan.id, currency: plan.currency }),
      }
    },

    /** A failed renewal: past due, with a grace period and a notice; the expiry job ends it after that. */
    async renewalFailed(stripeSubscriptionId: string): Promise<void> {
      const now = clock.now()
      await repo.transaction(async (trx) => {
        const local = await repo.findByStripeIdForUpdate(stripeSubscriptionId, trx)
        if (local?.status !== 'active') return
        const graceUntil = addMs(local.end_date ? new Date(local.end_date) : now, deps.graceDays * DAY)
        const updated = await repo.update(
          local.id,
          { status: 'past_due', grace_until: graceUntil, updated_at: now },
          trx,
        )
        if (!updated) return
        await notice(
          trx,
          updated,
          `renewal-failed:${local.id}:${new Date(local.end_date ?? now).valueOf()}`,
          (user, planName) => ({
            message: renewalFailedEmail({
              to: user.email,
              firstName: user.first_name,
              planName,
              graceUntil,
              appOrigin: deps.appOrigin,
            }),
          }),
        )
      })
    },

    /**
     * Stripe's current state of one of its subscriptions: ended (cancelled, expired unpaid) ends access
     * at the paid end; a renewal switched off or on at Stripe (e.g. in its dashboard) follows here.
     */
    async applyStripeState(stripeSubscriptionId: string, state: StripeSubscriptionState): Promise<void> {
      const now = clock.now()
      await repo.transaction(async (trx) => {
        const local = await repo.findByStripeIdForUpdate(stripeSubscriptionId, trx)
        if (!local) return
        if (
          state.status === 'canceled' ||
          state.status === 'incomplete_expired' ||
          state.status === 'unpaid'
        ) {
          if (local.status === 'cancelled' || local.status === 'expired') return
          const endedAt = state.endedAt ?? now
          const endDate =
            local.end_date && new Date(local.end_date) < endedAt ? new Date(local.end_date) : endedAt
          await repo.update(
            local.id,
            {
              status: endDate > now ? 'active' : 'cancelled',
              end_date: endDate,
              cancel_at_period_end: true,
              ended_at: endDate > now ? null : endedAt,
              updated_at: now,
            },
            trx,
          )
          await accessChanged(trx, local.user_id, `stripe-ended:${local.id}`)
          return
        }
        if (state.cancelAtPeriodEnd && !local.cancel_at_period_end) {
          // The member's own cancel may be marking the row right now: only one of us sends the notice.
          const marked = await repo.markCancelling(local.id, now, trx)
          if (marked) await sendCancellationNotice(trx, marked)
        } else if (!state.cancelAtPeriodEnd && local.cancel_at_period_end) {
          await repo.update(
            local.id,
            { cancel_at_period_end: false, cancelled_at: null, updated_at: now },
            trx,
          )
        }
      })
    },
  }

  /** A member's own subscription, or NOT_FOUND (never another member's). */
  async function ownOrThrow(userId: string, id: string) {
    const row = await repo.findById(id)
    if (!row || row.user_id !== userId) throw notFound('Subscription not found')
    return row
  }
}
export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>
