import type { Kysely, Transaction } from 'kysely'
import { isAnyOf } from '../../db/any-of'
import { transactionRunner } from '../../db/transaction'
import type { DB, PlaceKind, PlaceRow, PlanPlacesRow } from '../../db/types'
import { accessUntil, hasAccessAt } from '../subscriptions/access-rule'

type Executor = Kysely<DB> | Transaction<DB>

/** jsonb arrays are written as JSON text (pg would send a JS array as a PostgreSQL array). */
const jsonOrNull = (value: readonly string[] | null) => (value === null ? null : JSON.stringify(value))

export function createPlacesRepository(db: Kysely<DB>) {
  return {
    transaction: transactionRunner(db),

    /** Every place that is not archived, oldest first (the order the console and the bot list them). */
    listPlaces(kind?: PlaceKind, trx: Executor = db): Promise<PlaceRow[]> {
      let query = trx.selectFrom('places').selectAll().where('archived_at', 'is', null)
      if (kind) query = query.where('kind', '=', kind)
      return query.orderBy('created_at').orderBy('id').execute()
    },

    findPlace(id: string, trx: Executor = db): Promise<PlaceRow | undefined> {
      return trx.selectFrom('places').selectAll().where('id', '=', id).executeTakeFirst()
    },

    findLiveByExternalId(kind: PlaceKind, externalId: string, trx: Executor = db) {
      return trx
        .selectFrom('places')
        .selectAll()
        .where('kind', '=', kind)
        .where('external_id', '=', externalId)
        .where('archived_at', 'is', null)
        .executeTakeFirst()
    },

    insertPlace(
      place: { kind: PlaceKind; externalId: string; title: string; signalCategories: string[] | null },
      trx: Executor = db,
    ): Promise<PlaceRow> {
      return trx
        .insertInto('places')
        .values({
          kind: place.kind,
          external_id: place.externalId,
          title: place.title,
          signal_categories: jsonOrNull(place.signalCategories),
        })
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    /** Inserts the place unless a live one with its id exists; answers the live one either way. */
    async ensurePlace(place: { kind: PlaceKind; externalId: string; title: string }): Promise<PlaceRow> {
      await db
        .insertInto('places')
        .values({ kind: place.kind, external_id: place.externalId, title: place.title })
        .onConflict((oc) => oc.columns(['kind', 'external_id']).where('archived_at', 'is', null).doNothing())
        .execute()
      const found = await this.findLiveByExternalId(place.kind, place.externalId)
      if (!found) throw new Error('the place could not be recorded')
      return found
    },

    updatePlace(
      id: string,
      changes: { title?: string; signalCategories?: string[] | null },
      trx: Executor = db,
    ) {
      return trx
        .updateTable('places')
        .set({
          ...(changes.title !== undefined ? { title: changes.title } : {}),
          ...(changes.signalCategories !== undefined
            ? { signal_categories: jsonOrNull(changes.signalCategories) }
            : {}),
        })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
    },

    archivePlace(id: string, now: Date, trx: Executor = db) {
      return trx
        .updateTable('places')
        .set({ archived_at: now })
        .where('id', '=', id)
        .where('archived_at', 'is', null)
        .returningAll()
        .executeTakeFirst()
    },

    planPlaces(planIds: readonly string[], trx: Executor = db): Promise<PlanPlacesRow[]> {
      if (planIds.length === 0) return Promise.resolve([])
      return trx.selectFrom('plan_places').selectAll().where('plan_id', 'in', planIds).execute()
    },

    allPlanPlaces(trx: Executor = db): Promise<PlanPlacesRow[]> {
      return trx.selectFrom('plan_places').selectAll().execute()
    },

    async savePlanPlaces(
      planId: string,
      grant: {
        discordRoles: string[] | null
        telegramChats: string[] | null
        signalCategories: string[] | null
      },
      now: Date,
      trx: Executor = db,
    ): Promise<void> {
      const values = {
        discord_roles: jsonOrNull(grant.discordRoles),
        telegram_chats: jsonOrNull(grant.telegramChats),
        signal_categories: jsonOrNull(grant.signalCategories),
        updated_at: now,
      }
      await trx
        .insertInto('plan_places')
        .values({ plan_id: planId, ...values })
        .onConflict((oc) => oc.column('plan_id').doUpdateSet(values))
        .execute()
    },

    planNames(trx: Executor = db) {
      return trx
        .selectFrom('plans')
        .select(['id', 'name'])
        .where('archived_at', 'is', null)
        .orderBy('sort_order')
        .execute()
    },

    /** The plans each of these members has access through now, by the access rule, and until when by time alone. */
    async currentPlans(userIds: readonly string[], now: Date, trx: Executor = db) {
      if (userIds.length === 0) return []
      return trx
        .selectFrom('subscriptions')
        .select(['subscriptions.user_id', 'subscriptions.plan_id', accessUntil().as('access_until')])
        .where(isAnyOf('subscriptions.user_id', userIds))
        .where((eb) => hasAccessAt(eb, now))
        .execute()
    },

    /** Members who have access through the plan now (whose places follow its grant). */
    async holders(planId: string, now: Date, trx: Executor = db): Promise<string[]> {
      const rows = await trx
        .selectFrom('subscriptions')
        .select('subscriptions.user_id')
        .distinct()
        .where('subscriptions.plan_id', '=', planId)
        .where((eb) => hasAccessAt(eb, now))
        .execute()
      return rows.map((row) => row.user_id)
    },

    /** Categories signals have used, for the editor's suggestions. */
    async signalCategories(): Promise<string[]> {
      const rows = await db
        .selectFrom('signals')
        .select('category')
        .distinct()
        .orderBy('category')
        .limit(200)
        .execute()
      return rows.map((row) => row.category)
    },
  }
}
export type PlacesRepository = ReturnType<typeof createPlacesRepository>
