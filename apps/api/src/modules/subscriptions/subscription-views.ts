import type { SubscriptionView } from '@edgeclub/shared'
import type { SubscriptionsRepository } from './subscriptions-repository'

type Row = Awaited<ReturnType<SubscriptionsRepository['listCurrent']>>[number]

const iso = (value: Date | string | null) => (value ? new Date(value).toISOString() : null)

/**
 * What a member sees of a subscription's state: in its free trial it is 'trialing' (access as while
 * 'active'); the stored status otherwise.
 */
export function viewStatus(
  row: Pick<Row, 'status' | 'trial_ends_at'>,
  now: Date = new Date(),
): SubscriptionView['status'] {
  if (row.status === 'active' && row.trial_ends_at && new Date(row.trial_ends_at) > now) return 'trialing'
  return row.status
}

/** A subscription as the API serves it (planId carries the plan's name and _id). */
export function toSubscriptionView(row: Row, now: Date = new Date()): SubscriptionView {
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
    status: viewStatus(row, now),
    provider: row.provider,
    startDate: new Date(row.start_date).toISOString(),
    endDate: row.end_date ? new Date(row.end_date).toISOString() : null,
    graceUntil: row.grace_until ? new Date(row.grace_until).toISOString() : null,
    cancelAtPeriodEnd: row.cancel_at_period_end,
    createdAt: new Date(row.created_at).toISOString(),
    trialEndsAt: iso(row.trial_ends_at),
    resumesAt: iso(row.resumes_at),
    scheduledChange:
      row.scheduled_plan_id && row.scheduled_change_at
        ? {
            planId: row.scheduled_plan_id,
            planName: row.scheduled_plan_name ?? '',
            effectiveAt: new Date(row.scheduled_change_at).toISOString(),
          }
        : null,
  }
}

/** GET /subscriptions/status: the shown subscription, and its state at the top level too. */
export function toAccessStatus(
  hasAccess: boolean,
  shown: SubscriptionView | null,
): {
  hasAccess: boolean
  activeSubscription: SubscriptionView | null
  status: SubscriptionView['status'] | null
  trialEndsAt: string | null
  resumesAt: string | null
  scheduledChange: SubscriptionView['scheduledChange']
} {
  return {
    hasAccess,
    activeSubscription: shown,
    status: shown?.status ?? null,
    trialEndsAt: shown?.status === 'trialing' ? shown.trialEndsAt : null,
    resumesAt: shown?.resumesAt ?? null,
    scheduledChange: shown?.scheduledChange ?? null,
  }
}
