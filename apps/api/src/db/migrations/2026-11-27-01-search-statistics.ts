import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // The member search's text (users_search_trgm's expression) keeps a 1,000-value histogram instead
  // of 100. PostgreSQL estimates how many members a fragment matches by testing it against that
  // histogram: with 100 values every fragment under 1% of members came out as 100 rows, so a common
  // first name (4,700 of 1M members) was read through the trigram index, a heap block per match, and
  // sorted (65 ms cold), where walking the list's order stops after the page's 20 (6 ms). Decision
  // 015. Takes effect at the table's next ANALYZE (autovacuum's, or the operator's).
  await sql`alter index users_search_trgm alter column 1 set statistics 1000`.execute(db)
}
