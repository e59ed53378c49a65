import { type RawBuilder, sql } from 'kysely'

/**
 * `column = any($1::uuid[])`: a list of ids sent as one array parameter, so a statement about 15,000
 * live streams or every member is one statement whatever their number (an `in` list is a parameter
 * per id, and PostgreSQL takes at most 65,535), on PostgreSQL and PGlite alike.
 */
export function isAnyOf(column: string, ids: readonly string[]): RawBuilder<boolean> {
  return sql<boolean>`${sql.ref(column)} = any(${ids}::uuid[])`
}
