import type { SubscriptionView } from '@edgeclub/shared'
import type { SubscriptionsRepository } from './subscriptions-repository'

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
