import type { Kysely, SelectQueryBuilder } from 'kysely'
import { type Total, totalOf } from '../lib/pagination'
import type { DB } from './types'

/** What `orderBy` needs of a query whatever its tables (the columns are checked by their sort tables). */
interface Orderable {
  orderBy(column: string, order: 'asc' | 'desc'): Orderable
}

/** The tables the admin console pages through (each has sort indexes ending in its id). */
type PagedTable = 'payments' | 'subscriptions' | 'users'

export interface PageRequest {
  page: number
  limit: number
  sortOrder: 'asc' | 'desc'
}

/**
 * The admin lists' one way to read a page of a big table (a deferred join): the page's ids come from a
 * sort index alone (`sortColumns`, then the id to break ties), and only those rows are read and joined
 * to what the page shows. Deep pages stay cheap because the offset walks an index, not the rows.
 *
 * `from` is the table joined to the page of ids, ready for the list's joins and columns; `inOrder`
 * gives any query on it the page's order; `result` counts the total only when the page cannot tell it.
 */
export function deferredPage<T extends PagedTable>(
  db: Kysely<DB>,
  table: T,
  filtered: SelectQueryBuilder<DB, T, object>,
  sortColumns: readonly string[],
  request: PageRequest,
) {
  // Column names come from each repository's own sort table; Kysely cannot type a name picked at run time.
  const columns = [...sortColumns, `${table}.id`]
  const inOrder = <Q>(query: Q): Q => {
    let next = query as unknown as Orderable
    for (const column of columns) next = next.orderBy(column, request.sortOrder)
    return next as unknown as Q
  }
  // Typed as one of the three tables (they share what this needs, a uuid `id`); the names used at
  // run time are the real table's.
  const base = filtered as unknown as SelectQueryBuilder<DB, 'users', object>
  const ids = inOrder(base.select(`${table}.id` as 'users.id'))
    .limit(request.limit)
    .offset((request.page - 1) * request.limit)
  const from = db
    .selectFrom(ids.as('page'))
    .innerJoin(table as 'users', `${table}.id` as 'users.id', 'page.id') as unknown as SelectQueryBuilder<
    DB,
    T,
    object
  >
  return {
    from,
    inOrder,
    /** The page's rows and the list's total (counted by `count` only when the page cannot tell it). */
    async result<Row, C extends Total = number>(rows: Row[], count: () => Promise<C>) {
      return { rows, total: await totalOf(request.page, request.limit, rows.length, count) }
    },
  }
}
