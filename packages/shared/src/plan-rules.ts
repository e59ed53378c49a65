import { formatMoney } from './money'
import type { Plan } from './plans'

/** Pricing cards go weekly, monthly, yearly, lifetime; unknown slugs last. */
export const PLAN_SLUG_ORDER = ['weekly', 'monthly', 'yearly', 'lifetime'] as const

type PlanLike = Pick<Plan, 'slug' | 'sortOrder'>

function slugRank(slug: string): number {
  const rank = (PLAN_SLUG_ORDER as readonly string[]).indexOf(slug)
  return rank === -1 ? PLAN_SLUG_ORDER.length : rank
}

export function sortPlansBySlug<T extends PlanLike>(plans: readonly T[]): T[] {
  return [...plans].sort((a, b) => slugRank(a.slug) - slugRank(b.slug) || a.sortOrder - b.sortOrder)
}

/** 'per month', 'per 3 months', or null for lifetime plans (the pricing cards' wording). */
export function intervalText(plan: Pick<Plan, 'interval' | 'intervalCount'>): string | null {
  if (plan.interval === 'lifetime') return null
  if (plan.intervalCount === 1) return `per ${plan.interval}`
  return `per ${plan.intervalCount} ${plan.interval}s`
}

/**
 * What the yearly plan saves against paying monthly for twelve months, or null when it saves nothing.
 * Rounded to cents so float noise never shows.
 */
export function yearlySaving(
  yearly: Pick<Plan, 'price'>,
  monthly: Pick<Plan, 'price'> | undefined,
): number | null {
  if (!monthly) return null
  const saving = Math.round((monthly.price * 12 - yearly.price) * 100) / 100
  return saving > 0 ? saving : null
}

export function savingText(saving: number, currency: string): string {
  return `Save ${formatMoney(saving, currency)}/year`
}

/** '7-day free trial' on a plan's card, or null without a trial (lifetime plans never have one). */
export function trialText(plan: Pick<Plan, 'interval' | 'trialDays'>): string | null {
  if (plan.interval === 'lifetime' || !plan.trialDays || plan.trialDays <= 0) return null
  return plan.trialDays === 1 ? '1-day free trial' : `${plan.trialDays}-day free trial`
}

export function subscribeLabel(plan: Pick<Plan, 'interval' | 'name'>): string {
  return plan.interval === 'lifetime' ? 'Get Lifetime Access' : `Subscribe to ${plan.name}`
}
