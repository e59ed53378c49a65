import { type Kysely, sql } from 'kysely'

/**
 * One name for one concept: the counting tables kept by triggers were "tallies" beside the other
 * "rollups" (member access by day). They become rollups everywhere: tables, their indexes, trigger
 * functions, triggers and compact_rollups(). The functions' bodies name the tables, so each function
 * that mentions one is redefined from its own current definition with the new table names, then
 * renamed itself.
 */
const TABLES = ['payment', 'subscription', 'user'] as const

export async function up(db: Kysely<any>): Promise<void> {
  for (const table of TABLES) {
    await sql.raw(`alter table ${table}_tallies rename to ${table}_rollups`).execute(db)
  }
  await sql`alter index payment_tallies_key rename to payment_rollups_key`.execute(db)
  await sql`alter index subscription_tallies_key rename to subscription_rollups_key`.execute(db)

  const functions = await sql<{ name: string; definition: string }>`
    select p.proname as name, pg_get_functiondef(p.oid) as definition
    from pg_proc p join pg_namespace n on n.oid = p.pronamespace
    where n.nspname = current_schema() and p.prosrc like '%\\_tallies%'`.execute(db)
  for (const { definition } of functions.rows) {
    let renamed = definition
    for (const table of TABLES) renamed = renamed.replaceAll(`${table}_tallies`, `${table}_rollups`)
    await sql.raw(renamed).execute(db)
  }
  await sql`alter function compact_tallies() rename to compact_rollups`.execute(db)

  for (const counted of ['payments', 'subscriptions', 'users'])
    for (const op of ['insert', 'update', 'delete']) {
      await sql.raw(`alter function tally_${counted}_${op}() rename to rollup_${counted}_${op}`).execute(db)
      await sql
        .raw(`alter trigger ${counted}_tally_${op} on ${counted} rename to ${counted}_rollup_${op}`)
        .execute(db)
    }
}
