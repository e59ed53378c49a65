import { checkoutMessages, fromMinorUnits, type Plan } from '@edgeclub/shared'
import type { Transaction } from 'kysely'
import type { DB, PlanRow } from '../../db/types'
import { createInvalidation } from '../../lib/cached-route'
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
    trialDays: row.trial_days,
  }
}

/**
 * Plans as the rest of the app reads them: the public list, one plan on sale (what every checkout
 * starts from), and `changed`, raised on every edit so cached copies (the public list route) drop theirs.
 */
export function createPlansService(deps: { repo: PlansRepository }) {
  const changed = createInvalidation()
  return {
    changed,

    async listActive(): Promise<Plan[]> {
      return (await deps.repo.listActive()).map(toPlan)
    },

    findById: (id: string, trx?: Transaction<DB>) =>
      isUuid(id) ? deps.repo.findById(id, trx) : Promise.resolve(undefined),

    /** A plan that is on sale now, or NOT_FOUND: what every checkout starts from. */
    async onSaleOrThrow(planId: string): Promise<PlanRow> {
      const plan = isUuid(planId) ? await deps.repo.findById(planId) : undefined
      if (!plan?.is_active || plan.archived_at) throw notFound(checkoutMessages.planNotFound)
      return plan
    },

    /** The plan complimentary access is granted on: the one named, else monthly, else the first on sale. */
    async grantable(planId?: string): Promise<PlanRow | undefined> {
      const named = planId ? await this.findById(planId) : await deps.repo.findBySlug('monthly')
      return named ?? (await deps.repo.listActive())[0]
    },
  }
}
export type PlansService = ReturnType<typeof createPlansService>
