import type { AccessStatus, CancelRequest, PaymentIntent } from '@edgeclub/shared'
import type { UserRow } from '../../db/types'
import type { Clock } from '../../lib/clock'
import { badRequest, notFound } from '../../lib/errors'
import { pages } from '../../lib/pagination'
import type { AccessService } from './access-service'
import { toAccessStatus, toSubscriptionView } from './subscription-views'
import type { SubscriptionListQuery, SubscriptionsRepository } from './subscriptions-repository'

/** What the subscriptions service needs from the card side to change a Stripe subscription. */
export interface CardBilling {
  setRenewal(
    subscription: { id: string; stripe_subscription_id: string | null; updated_at: Date },
    renew: boolean,
  ): Promise<void>
  createIntent(user: UserRow, input: { planId: string; currency: string }): Promise<PaymentIntent>
}

/**
 * What members (and admins) see of subscriptions, and what members do with them: status, history,
 * cancel, resume and renew. Every change of access goes through the access service.
 */
export function createSubscriptionsService(deps: {
  repo: Pick<SubscriptionsRepository, 'accessOrLatest' | 'list' | 'findById'>
  access: Pick<AccessService, 'stopRenewal' | 'resumeRenewal' | 'recordCancelReason'>
  plans: { findById(id: string): Promise<{ id: string; currency: string } | undefined> }
  card: CardBilling
  clock: Clock
}) {
  const { repo, clock } = deps

  /** A member's own subscription, or NOT_FOUND (never another member's). */
  async function ownOrThrow(userId: string, id: string) {
    const row = await repo.findById(id)
    if (!row || row.user_id !== userId) throw notFound('Subscription not found')
    return row
  }

  return {
    /** GET /subscriptions/status: hasAccess and the subscription to show. */
    async status(userId: string): Promise<AccessStatus> {
      const now = clock.now()
      const shown = await repo.accessOrLatest(userId, now)
      return toAccessStatus(Boolean(shown?.has_access), shown ? toSubscriptionView(shown, now) : null)
    },

    async history(userId: string, query: Omit<SubscriptionListQuery, 'userId'>) {
      const { rows, total } = await repo.list({ ...query, userId })
      const now = clock.now()
      return {
        items: rows.map((row) => toSubscriptionView(row, now)),
        pagination: pages(query.page, query.limit, total),
      }
    },

    /** Admin list: every member's subscriptions with their email. */
    async list(query: SubscriptionListQuery) {
      const { rows, total } = await repo.list(query)
      return {
        items: rows.map((row) => ({
          ...toSubscriptionView(row, clock.now()),
          userId: row.user_id,
          userEmail: row.user_email,
        })),
        pagination: pages(query.page, query.limit, total),
      }
    },

    /** PUT /subscriptions/{id}/cancel: stops renewal; access lasts until the end of the paid period. */
    async cancel(user: UserRow, subscriptionId: string, why?: CancelRequest) {
      const row = await ownOrThrow(user.id, subscriptionId)
      if (!row.end_date) throw badRequest('Lifetime access does not renew, so there is nothing to cancel')
      if (row.status !== 'active' && row.status !== 'past_due')
        throw badRequest('This subscription has already ended')
      if (!row.stripe_subscription_id)
        throw badRequest('This access does not renew by itself, so there is nothing to cancel')
      await deps.card.setRenewal(row, false)
      // Stripe's event about this change may land first; whichever marks the row sends the notice.
      const marked = await deps.access.stopRenewal(row.id)
      if (why?.reason)
        await deps.access.recordCancelReason({
          userId: user.id,
          subscriptionId: row.id,
          reason: why.reason,
          detail: why.detail ?? null,
          offer: null,
          outcome: 'cancelled',
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
        await deps.access.resumeRenewal(row.id)
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
  }
}
export type SubscriptionsService = ReturnType<typeof createSubscriptionsService>
