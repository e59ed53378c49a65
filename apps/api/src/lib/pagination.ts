import type { SelectQueryBuilder } from 'kysely'
import type { DB } from '../db/types'

/** The pagination block of every list response: where this page is and how many there are. */
export function pages(page: number, limit: number, total: number) {
  return { page, limit, total, pages: Math.ceil(total / limit) }
}

/**
 * The total of a list, counted only when the page cannot tell it: a page with rows but fewer than
 * the limit is the last one, and an empty first page means none. Otherwise `count()` answers.
 */
export async function totalOf(
  page: number,
  limit: number,
  rowsOnPage: number,
  count: () => Promise<number>,
): Promise<number> {
  if (rowsOnPage > 0 && rowsOnPage < limit) return (page - 1) * limit + rowsOnPage
  if (rowsOnPage === 0 && page === 1) return 0
  return count()
}

/** How many rows a filtered query (no select yet) matches. */
export async function countRows<T extends keyof DB>(qb: SelectQueryBuilder<DB, T, object>): Promise<number> {
  const { count } = await qb.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()
  return Number(count)
}
