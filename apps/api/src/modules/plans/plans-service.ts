import { checkoutMessages, fromMinorUnits, type Plan } from '@edgeclub/shared'
import type { PlanRow } from '../../db/types'
import { type CachedJson, cachedJsonKeeper } from '../../lib/cached-json'
import { notFound } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import type { PlansRepository } from './plans-repository'

/** The API shape of a plan: price in major units, id and _id both present. */
export function toPlan(row: PlanRow): Plan {
  return {
    id: row.id,
    _id: row.id,
    name: row.name,
    slug: row.slug,
    description: row.description,
    price: fromMinorUnits(row.price_minor, row.currency),
    currency: row.currency,
    interval: row.interval,
    intervalCount: row.interval_count,
    features: row.features,
    isPopular: row.is_popular,
    sortOrder: row.sort_order,
    isActive: row.is_active && row.archived_at === null,
  }
}

/**
 * The public plan list is read on every pricing view and changes only when an admin edits a plan,
 * so it is kept for a few seconds. Writes through this instance clear it at once; other instances
 * pick the change up within the TTL.
 */
export function createPlansService(deps: { repo: PlansRepository; cacheMs?: number; now?: () => number }) {
  const cacheMs = deps.cacheMs ?? 5_000
  const now = deps.now ?? Date.now
  const keep = cachedJsonKeeper()
  let cached: { plans: Plan[]; body: CachedJson; at: number } | undefined

  const load = async () => {
    if (cached && now() - cached.at < cacheMs) return cached
    const plans = (await deps.repo.listActive()).map(toPlan)
    // An unchanged list keeps its bytes, ETag and compressed copies: only a change re-hashes.
    cached = { plans, body: keep(JSON.stringify({ success: true, data: plans })), at: now() }
    return cached
  }

  return {
    async listActive(): Promise<Plan[]> {
      return (await load()).plans
    },

    /** The public answer, serialized once per change, with its ETag and compressed copies. */
    async listActiveCached(): Promise<CachedJson> {
      return (await load()).body
    },

    /** A plan that is on sale now, or NOT_FOUND: what every checkout starts from. */
    async onSaleOrThrow(planId: string): Promise<PlanRow> {
      const plan = isUuid(planId) ? await deps.repo.findById(planId) : undefined
      if (!plan?.is_active || plan.archived_at) throw notFound(checkoutMessages.planNotFound)
      return plan
    },

    invalidate(): void {
      cached = undefined
    },
  }
}
export type PlansService = ReturnType<typeof createPlansService>
