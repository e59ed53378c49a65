import { type Expression, type Kysely, type RawBuilder, type SqlBool, sql, type Transaction } from 'kysely'
import type { DB } from './types'

/**
 * Reads of the rollups kept by the 2026-11-24-02 migration: counts of payments, subscriptions and
 * users by their listed attributes (rows of counts, added up here), and each member's access by day.
 * They answer list totals and analytics without scanning the big tables.
 */

/** What a search term names exactly besides members: statuses, kinds, plans (by id). */
export interface TermMatch {
  statuses: string[]
  kinds: string[]
  planIds: string[]
}

export const noMatch = (match: TermMatch | undefined) =>
  !match || match.statuses.length + match.kinds.length + match.planIds.length === 0

const list = (values: string[]) =>
  sql.join(
    values.map((value) => sql`${value}`),
    sql`, `,
  )

/**
 * Rows whose status, kind (when the table has one) or plan is one the term names, as a condition on
 * unqualified columns: it reads the same on a rollup table and on the table it counts.
 */
export function termCondition(match: TermMatch, options: { kinds: boolean }): RawBuilder<SqlBool> {
  const parts: RawBuilder<unknown>[] = []
  if (match.statuses.length > 0) parts.push(sql`status in (${list(match.statuses)})`)
  if (options.kinds && match.kinds.length > 0) parts.push(sql`kind in (${list(match.kinds)})`)
  if (match.planIds.length > 0) parts.push(sql`plan_id in (${list(match.planIds)})`)
  return parts.length === 0 ? sql<SqlBool>`false` : sql<SqlBool>`(${sql.join(parts, sql` or `)})`
}

const where = (conditions: (RawBuilder<unknown> | Expression<SqlBool>)[]) =>
  conditions.length === 0 ? sql`` : sql`where ${sql.join(conditions, sql` and `)}`

export function createRollups(db: Kysely<DB>) {
  const total = async (query: RawBuilder<{ n: number | string | null }>) =>
    Number((await query.execute(db)).rows[0]?.n ?? 0)

  return {
    users(role?: string) {
      return total(sql`select coalesce(sum(n), 0)::int8 as n from user_rollups
        ${where(role ? [sql`role = ${role}`] : [])}`)
    },

    /** Subscriptions with this status (any without), and only those matching `also` when given. */
    subscriptions(filter: { status?: string; also?: RawBuilder<SqlBool> }) {
      const conditions: RawBuilder<unknown>[] = [sql`metric = 'status'`]
      if (filter.status) conditions.push(sql`status = ${filter.status}`)
      if (filter.also) conditions.push(filter.also)
      return total(sql`select coalesce(sum(n), 0)::int8 as n from subscription_rollups ${where(conditions)}`)
    },

    /** Payments with this provider and status (any without), and only those matching `also` when given. */
    payments(filter: { provider?: string; status?: string; also?: RawBuilder<SqlBool> }) {
      const conditions: RawBuilder<unknown>[] = []
      if (filter.provider) conditions.push(sql`provider = ${filter.provider}`)
      if (filter.status) conditions.push(sql`status = ${filter.status}`)
      if (filter.also) conditions.push(filter.also)
      return total(sql`select coalesce(sum(n), 0)::int8 as n from payment_rollups ${where(conditions)}`)
    },

    /** Folds the members whose subscriptions changed into their access rollups (see the migration). */
    async settleAccess(): Promise<number> {
      const { rows } = await sql<{ n: number }>`select settle_member_access() as n`.execute(db)
      return Number(rows[0]?.n ?? 0)
    },

    /** Folds the rollup count rows into one per key. */
    async compact(): Promise<void> {
      await sql`select compact_rollups()`.execute(db)
    },
  }
}
export type Rollups = ReturnType<typeof createRollups>

/** The statuses, kinds and plans a search term names exactly (plans by name, any case). */
export async function termMatch(
  db: Kysely<DB>,
  term: string,
  names: { statuses: readonly string[]; kinds?: readonly string[] },
): Promise<TermMatch> {
  const plans = await db.selectFrom('plans').select('id').where(sql`lower(name)`, '=', term).execute()
  return {
    statuses: names.statuses.includes(term) ? [term] : [],
    kinds: names.kinds?.includes(term) ? [term] : [],
    planIds: plans.map((plan) => plan.id),
  }
}

/** The start of the UTC day of a moment, and the day as PostgreSQL's date literal. */
export function utcDay(at: Date): { start: Date; next: Date; date: string } {
  const start = new Date(Date.UTC(at.getUTCFullYear(), at.getUTCMonth(), at.getUTCDate()))
  return { start, next: new Date(start.getTime() + 24 * 3600 * 1000), date: start.toISOString().slice(0, 10) }
}

/**
 * Members who have access through a plan at `now`, from the settled access rollups (call
 * settle_member_access() first): whole days after today from the histogram, today's one by one.
 */
export function planHoldersAt(planId: Expression<string>, now: Date): RawBuilder<number> {
  const today = utcDay(now)
  return sql<number>`((select coalesce(sum(n), 0) from access_days where plan_id = ${planId} and day > ${today.date}::date)
    + (select count(*) from member_plan_access
       where plan_id = ${planId} and until > ${now} and until < ${today.next}))::int`
}

export type BillingMovement = DB['billing_movements']['kind'] extends infer K ? K : never

/**
 * One movement of the owner's numbers (a trial started, a member paid for the first time, upgraded,
 * churned...), appended in the transaction of the change; the rollups job compacts them.
 */
export async function recordBillingMovement(
  trx: Kysely<DB> | Transaction<DB>,
  movement: { kind: BillingMovement; at: Date; mrrMinor?: number },
): Promise<void> {
  await trx
    .insertInto('billing_movements')
    .values({
      day: utcDay(movement.at).date,
      kind: movement.kind,
      mrr_minor: Math.round(movement.mrrMinor ?? 0),
      n: 1,
    })
    .execute()
}

/** A plan's price brought to one month (weekly × 52 / 12, yearly / 12), in minor units; lifetime: 0. */
export function monthlyMinor(plan: {
  interval: string
  interval_count: number
  price_minor: number
}): number {
  switch (plan.interval) {
    case 'week':
      return (plan.price_minor * 52) / 12 / plan.interval_count
    case 'month':
      return plan.price_minor / plan.interval_count
    case 'year':
      return plan.price_minor / 12 / plan.interval_count
    default:
      return 0
  }
}
