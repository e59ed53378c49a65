import type { PageQuerySchema } from '@edgeclub/shared'
import type { z } from 'zod'
import type { Clock } from '../../lib/clock'
import { badRequest, notFound } from '../../lib/errors'
import type { SubscriptionListQuery, SubscriptionsRepository } from './subscriptions-repository'

type Row = Awaited<ReturnType<SubscriptionsRepository['listCurrent']>>[number]

/** SPEC §3 subscription as the API serves it (planId carries the plan's name and _id). */
export function toSubscriptionView(row: Row) {
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
export type SubscriptionView = ReturnType<typeof toSubscriptionView>

export type PageQuery = z.infer<typeof PageQuerySchema>

/** The access ledger's rules: who has access now (DESIGN §5) and the member's view of it. */
export function createSubscriptionsService(deps: { repo: SubscriptionsRepository; clock: Clock }) {
  const { repo, clock } = deps

  return {
    /** The subscription that gives access now (lifetime first, then the latest end), if any. */
    async currentAccess(userId: string): Promise<Row | undefined> {
      return (await repo.listCurrent(userId, clock.now()))[0]
    },

    /** GET /subscriptions/status: hasAccess and the subscription to show. */
    async status(
      userId: string,
    ): Promise<{ hasAccess: boolean; activeSubscription: SubscriptionView | null }> {
      const current = (await repo.listCurrent(userId, clock.now()))[0]
      if (current) return { hasAccess: true, activeSubscription: toSubscriptionView(current) }
      const latest = await repo.latest(userId)
      return { hasAccess: false, activeSubscription: latest ? toSubscriptionView(latest) : null }
    },

    async history(userId: string, query: SubscriptionListQuery) {
      const { rows, total } = await repo.list({ ...query, userId })
      return { rows: rows.map(toSubscriptionView), total }
    },

    /** A member's own subscription, or NOT_FOUND (never another member's). */
    async ownOrThrow(userId: string, id: string) {
      const row = await repo.findById(id)
      if (!row || row.user_id !== userId) throw notFound('Subscription not found')
      return row
    },

    /** Ends access that ran out, even when no event told us (the safety net job). */
    expireEnded: () => repo.expireEnded(clock.now()),

    assertCancellable(row: {
      provider: string
      end_date: Date | null
      status: string
      stripe_subscription_id: string | null
    }) {
      if (!row.end_date) throw badRequest('Lifetime access does not renew, so there is nothing to cancel')
      if (row.status !== 'active' && row.status !== 'past_due')
        throw badRequest('This subscription has already ended')
      if (!row.stripe_subscription_id)
        throw badRequest('This access does not renew by itself, so there is nothing to cancel')
    },
  }
}
export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>
