import type { Kysely, SelectQueryBuilder } from 'kysely'
import type { DB } from '../db/types'

/** How many matches a list counts, or that there are at least this many (a capped count). */
export type Total = number | { atLeast: number }

/** The pagination block of every list response: where this page is and how many there are. */
export function pages(page: number, limit: number, total: Total) {
  const count = typeof total === 'number' ? total : total.atLeast
  return {
    page,
    limit,
    total: count,
    pages: Math.ceil(count / limit),
    ...(typeof total === 'number' ? {} : { atLeast: true as const }),
  }
}

/**
 * A broad text search (three letters can match a fiftieth of a million members) is counted this far
 * and no further, or one past the page asked for when that is deeper: counting every match means
 * reading every matching row, a tenth of a second and more on a big table, for a number nobody
 * needs exactly ("1,000+" says it).
 */
export const COUNT_CAP = 1_000

/** How many rows a query answers, counting no further than `cap` (then: at least `cap`). */
export async function countUpTo(
  db: Kysely<DB>,
  rows: SelectQueryBuilder<DB, keyof DB, object>,
  cap: number,
): Promise<Total> {
  const { count } = await db
    .selectFrom(rows.limit(cap + 1).as('rows'))
    .select((eb) => eb.fn.countAll<number>().as('count'))
    .executeTakeFirstOrThrow()
  const found = Number(count)
  return found > cap ? { atLeast: cap } : found
}

/** The cap for a list's page: COUNT_CAP, or the rows up to the end of a deeper page. */
export const countCapFor = (page: number, limit: number) => Math.max(COUNT_CAP, page * limit)

/**
 * The total of a list, counted only when the page cannot tell it: a page with rows but fewer than
 * the limit is the last one, and an empty first page means none. Otherwise `count()` answers.
 */
export async function totalOf<C extends Total>(
  page: number,
  limit: number,
  rowsOnPage: number,
  count: () => Promise<C>,
): Promise<C | number> {
  if (rowsOnPage > 0 && rowsOnPage < limit) return (page - 1) * limit + rowsOnPage
  if (rowsOnPage === 0 && page === 1) return 0
  return count()
}

/** How many rows a filtered query (no select yet) matches. */
export async function countRows<T extends keyof DB>(qb: SelectQueryBuilder<DB, T, object>): Promise<number> {
  const { count } = await qb.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()
  return Number(count)
}
