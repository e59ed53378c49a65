import {
  type ExpressionBuilder,
  type Insertable,
  type Kysely,
  sql,
  type Transaction,
  type Updateable,
} from 'kysely'
import { planHoldersAt } from '../../db/rollups'
import { transactionRunner } from '../../db/transaction'
import type { DB, PlanRow, PlansTable } from '../../db/types'

const PLAN_SORT_COLUMNS = {
  sortOrder: 'sort_order',
  name: 'name',
  price: 'price_minor',
  createdAt: 'created_at',
} as const

type Executor = Kysely<DB> | Transaction<DB>

/**
 * Members who have access through the plan now, by the access ledger's one rule, from the access
 * rollups (settled first by the callers below) rather than a count over every subscription.
 */
const subscriberCount = (eb: ExpressionBuilder<DB, 'plans'>, now: Date) =>
  planHoldersAt(eb.ref('plans.id'), now).as('subscriber_count')

const settleAccess = (db: Kysely<DB>) => sql`select settle_member_access()`.execute(db)

export function createPlansRepository(db: Kysely<DB>) {
  return {
    transaction: transactionRunner(db),

    listActive(trx: Executor = db): Promise<PlanRow[]> {
      return trx
        .selectFrom('plans')
        .selectAll()
        .where('is_active', '=', true)
        .where('archived_at', 'is', null)
        .orderBy('sort_order')
        .orderBy('created_at')
        .execute()
    },

    findById(id: string, trx: Executor = db): Promise<PlanRow | undefined> {
      return trx.selectFrom('plans').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** One plan with its subscriber count (the admin detail). */
    async findWithSubscriberCount(id: string, now: Date) {
      await settleAccess(db)
      return db
        .selectFrom('plans')
        .selectAll()
        .select((eb) => subscriberCount(eb, now))
        .where('id', '=', id)
        .executeTakeFirst()
    },

    findBySlug(slug: string, trx: Executor = db): Promise<PlanRow | undefined> {
      return trx.selectFrom('plans').selectAll().where('slug', '=', slug).executeTakeFirst()
    },

    insert(plan: Insertable<PlansTable>, trx: Executor = db): Promise<PlanRow> {
      return trx.insertInto('plans').values(plan).returningAll().executeTakeFirstOrThrow()
    },

    update(id: string, changes: Updateable<PlansTable>, trx: Executor = db): Promise<PlanRow | undefined> {
      return trx.updateTable('plans').set(changes).where('id', '=', id).returningAll().executeTakeFirst()
    },

    delete(id: string, trx: Executor = db) {
      return trx.deleteFrom('plans').where('id', '=', id).execute()
    },

    /** Whether anyone ever paid for or held this plan (then it is archived, never deleted). */
    async everUsed(id: string): Promise<boolean> {
      const row = await db
        .selectNoFrom((eb) => [
          eb.exists(eb.selectFrom('subscriptions').select('id').where('plan_id', '=', id)).as('subscribed'),
          eb.exists(eb.selectFrom('payments').select('id').where('plan_id', '=', id)).as('paid'),
        ])
        .executeTakeFirstOrThrow()
      return Boolean(row.subscribed) || Boolean(row.paid)
    },

    async list(query: {
      page: number
      limit: number
      search?: string
      sortBy: keyof typeof PLAN_SORT_COLUMNS
      sortOrder: 'asc' | 'desc'
      includeArchived: boolean
      now: Date
    }) {
      await settleAccess(db)
      let base = db.selectFrom('plans')
      if (!query.includeArchived) base = base.where('archived_at', 'is', null)
      if (query.search) {
        const term = `%${query.search.toLowerCase()}%`
        base = base.where((eb) =>
          eb.or([eb(sql`lower(name)`, 'like', term), eb(sql`lower(slug)`, 'like', term)]),
        )
      }
      const [rows, total] = await Promise.all([
        base
          .selectAll()
          .select((eb) => subscriberCount(eb, query.now))
          .orderBy(PLAN_SORT_COLUMNS[query.sortBy], query.sortOrder)
          .orderBy('id')
          .limit(query.limit)
          .offset((query.page - 1) * query.limit)
          .execute(),
        base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
      ])
      return { rows, total: Number(total.count) }
    },
  }
}
export type PlansRepository = ReturnType<typeof createPlansRepository>
