import type { Plan } from '@edgeclub/shared'
import { mediumDay } from '@edgeclub/shared'

/** The part of GET /subscriptions/status a plan card needs (the public pricing page checks it by hand). */
export interface PlanCardStatus {
  hasAccess: boolean
  activeSubscription: {
    planId: { id: string }
    provider: string
    endDate: string | null
    status: string
  } | null
}

/**
 * What a plan card offers a member:
 * - 'current': their own plan ("Current plan", nothing to buy on it);
 * - 'extend': their own plan paid with crypto ("Current plan"; paying again adds a period);
 * - 'change': another plan while a renewing card plan runs (preview, then change: decision 019);
 * - 'none': nothing (a lifetime member has every plan already);
 * - 'subscribe': the ordinary checkout (no access, or a crypto or admin-granted plan).
 */
export type PlanAction = 'current' | 'extend' | 'change' | 'none' | 'subscribe'

export function planAction(plan: Pick<Plan, 'id'>, status: PlanCardStatus | null | undefined): PlanAction {
  const subscription = status?.activeSubscription
  if (!status?.hasAccess || !subscription) return 'subscribe'
  if (subscription.planId.id === plan.id) return subscription.provider === 'crypto' ? 'extend' : 'current'
  if (subscription.endDate === null) return 'none'
  const renewingCard =
    subscription.provider === 'stripe' && ['active', 'trialing', 'past_due'].includes(subscription.status)
  return renewingCard ? 'change' : 'subscribe'
}

export const CURRENT_PLAN_LABEL = 'Current plan'

/** "Switch to Yearly", "Get Lifetime Access": the button of a plan the member can change to. */
export function changeLabel(plan: Pick<Plan, 'name' | 'interval'>): string {
  return plan.interval === 'lifetime' ? 'Upgrade to Lifetime' : `Switch to ${plan.name}`
}

/** A date as members read it: "Dec 26, 2026". */
export function formatDay(iso: string | null | undefined): string {
  if (!iso) return ''
  return mediumDay(iso)
}

/** The words on a plan card that offers nothing to buy, if any. */
export function planNote(action: PlanAction): string | undefined {
  if (action === 'current' || action === 'extend') return CURRENT_PLAN_LABEL
  if (action === 'none') return 'Included in your plan'
  return undefined
}
