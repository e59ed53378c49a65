import {
  ALL_PLACES,
  intervalCountProblem,
  type PlanInput,
  type PlanPlaces,
  toMinorUnits,
} from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { PlanRow } from '../../db/types'
import type { Clock } from '../../lib/clock'
import { badRequest, conflict, notFound } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import { pages } from '../../lib/pagination'
import type { StripeCatalog } from '../payments/card/stripe-catalog'
import type { PlacesService } from '../places/places-service'
import type { PlansRepository } from './plans-repository'
import { type PlansService, toPlan } from './plans-service'

export function toAdminPlan(
  row: PlanRow & { subscriber_count?: number | null },
  places: PlanPlaces = ALL_PLACES,
) {
  return {
    ...toPlan(row),
    archived: row.archived_at !== null,
    subscriberCount: Number(row.subscriber_count ?? 0),
    places,
  }
}

/** What the plans editor needs of places: each plan's grant, checked and saved beside the plan. */
export type PlanPlacesStore = Pick<PlacesService, 'planPlaces' | 'setPlanPlaces' | 'checkPlanPlaces'>

/**
 * Plan management: the plan editor's own validation, unique slugs, archive instead
 * of delete once a plan was used, and a new Stripe price when the amount changes (existing
 * subscribers keep theirs: Stripe subscriptions point at the price they were created with).
 */
export function createPlansAdminService(deps: {
  repo: PlansRepository
  plans: PlansService
  catalog: StripeCatalog | undefined
  /** The plan's places (Discord roles, Telegram chats, signal categories). */
  places: PlanPlacesStore
  clock: Clock
  log: FastifyBaseLogger
}) {
  const { repo } = deps

  /** Plans as the editor shows them, each with its places. */
  const withPlaces = async <T extends PlanRow & { subscriber_count?: number | null }>(rows: T[]) => {
    const places = await deps.places.planPlaces(rows.map((row) => row.id))
    return rows.map((row) => toAdminPlan(row, places.get(row.id)))
  }

  const syncStripe = async (plan: PlanRow) => {
    if (!deps.catalog || !plan.is_active || plan.archived_at) return
    await deps.catalog.ensurePrice(plan).catch((error: unknown) => {
      // The checkout makes sure of it again; a Stripe outage must not block editing plans.
      deps.log.warn(
        { planId: plan.id, reason: error instanceof Error ? error.message : String(error) },
        'could not sync a plan to Stripe',
      )
    })
  }

  /** After an edit: caches drop the old list, Stripe gets the price; answers the plan as the editor shows it. */
  const changed = async (plan: PlanRow) => {
    deps.plans.changed.invalidate()
    await syncStripe(plan)
    return (await withPlaces([plan]))[0]!
  }

  async function getOrThrow(id: string): Promise<PlanRow> {
    const plan = isUuid(id) ? await repo.findById(id) : undefined
    if (!plan) throw notFound('Plan not found')
    return plan
  }

  const columns = (input: Partial<PlanInput>, currency: string) => ({
    ...(input.name !== undefined ? { name: input.name } : {}),
    ...(input.slug !== undefined ? { slug: input.slug } : {}),
    ...(input.description !== undefined ? { description: input.description } : {}),
    ...(input.price !== undefined
      ? { price_minor: toMinorUnits(input.price, input.currency ?? currency) }
      : {}),
    ...(input.currency !== undefined ? { currency: input.currency } : {}),
    ...(input.interval !== undefined ? { interval: input.interval } : {}),
    ...(input.intervalCount !== undefined
      ? { interval_count: input.interval === 'lifetime' ? 1 : input.intervalCount }
      : {}),
    ...(input.features !== undefined ? { features: JSON.stringify(input.features) } : {}),
    ...(input.isPopular !== undefined ? { is_popular: input.isPopular } : {}),
    ...(input.sortOrder !== undefined ? { sort_order: input.sortOrder } : {}),
    ...(input.isActive !== undefined ? { is_active: input.isActive } : {}),
    ...(input.trialDays !== undefined ? { trial_days: input.trialDays } : {}),
  })

  return {
    getOrThrow,

    /** GET /admin/plans: every plan with how many members hold it now. */
    async list(query: Omit<Parameters<PlansRepository['list']>[0], 'now'>) {
      const { rows, total } = await repo.list({ ...query, now: deps.clock.now() })
      return { items: await withPlaces(rows), pagination: pages(query.page, query.limit, total) }
    },

    /** GET /admin/plans/{id}: the plan and how many members hold it, as the list shows it. */
    async detail(id: string) {
      const plan = isUuid(id) ? await repo.findWithSubscriberCount(id, deps.clock.now()) : undefined
      if (!plan) throw notFound('Plan not found')
      return (await withPlaces([plan]))[0]!
    },

    async create(input: PlanInput) {
      if (await repo.findBySlug(input.slug))
        throw conflict(`A plan with the slug "${input.slug}" already exists`)
      if (input.places) await deps.places.checkPlanPlaces(input.places)
      // The plan and its places in one transaction: the admin's audit row commits with it (plugins/audit.ts).
      const row = await repo.transaction(async (trx) => {
        const inserted = await repo.insert(
          {
            name: input.name,
            slug: input.slug,
            description: input.description,
            price_minor: toMinorUnits(input.price, input.currency),
            currency: input.currency,
            interval: input.interval,
            interval_count: input.interval === 'lifetime' ? 1 : input.intervalCount,
            features: JSON.stringify(input.features),
            is_popular: input.isPopular,
            sort_order: input.sortOrder,
            is_active: input.isActive,
            trial_days: input.interval === 'lifetime' ? 0 : input.trialDays,
          },
          trx,
        )
        if (input.places) await deps.places.setPlanPlaces(inserted.id, input.places, trx)
        return inserted
      })
      return changed(row)
    },

    async update(id: string, input: Partial<PlanInput>) {
      const plan = await getOrThrow(id)
      if (input.slug && input.slug !== plan.slug && (await repo.findBySlug(input.slug))) {
        throw conflict(`A plan with the slug "${input.slug}" already exists`)
      }
      if (plan.archived_at && input.isActive) throw badRequest('An archived plan cannot be made active again')
      const problem = intervalCountProblem(
        input.interval ?? plan.interval,
        input.intervalCount ?? plan.interval_count,
      )
      if (problem) throw badRequest(problem, [{ field: 'intervalCount', message: problem }])
      if ((input.interval ?? plan.interval) === 'lifetime' && (input.trialDays ?? 0) > 0)
        throw badRequest('A lifetime plan has no trial', [
          { field: 'trialDays', message: 'A lifetime plan has no trial' },
        ])
      if (input.places) await deps.places.checkPlanPlaces(input.places)
      const row = await repo.transaction(async (trx) => {
        const updated = await repo.update(
          id,
          { ...columns(input, plan.currency), updated_at: deps.clock.now() },
          trx,
        )
        if (input.places) await deps.places.setPlanPlaces(id, input.places, trx)
        return updated
      })
      return changed(row ?? plan)
    },

    async toggle(id: string) {
      const plan = await getOrThrow(id)
      if (plan.archived_at) throw badRequest('An archived plan cannot be made active again')
      const row = await repo.transaction((trx) =>
        repo.update(id, { is_active: !plan.is_active, updated_at: deps.clock.now() }, trx),
      )
      return changed(row ?? plan)
    },

    /** Deletes a plan nobody used; archives one that anybody ever held or paid for. */
    async remove(id: string): Promise<{ deleted: boolean; archived: boolean }> {
      const plan = await getOrThrow(id)
      if (await repo.everUsed(id)) {
        const now = deps.clock.now()
        await repo.transaction((trx) =>
          repo.update(id, { archived_at: plan.archived_at ?? now, is_active: false, updated_at: now }, trx),
        )
        deps.plans.changed.invalidate()
        return { deleted: false, archived: true }
      }
      await repo.transaction((trx) => repo.delete(id, trx))
      deps.plans.changed.invalidate()
      return { deleted: true, archived: false }
    },
  }
}
export type PlansAdminService = ReturnType<typeof createPlansAdminService>
