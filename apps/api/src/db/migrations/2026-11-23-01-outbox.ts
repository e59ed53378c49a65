import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // Side effects that are done, by business key: a job that runs again does not repeat its effect.
  await db.schema
    .createTable('job_effects')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('queue', 'text', (c) => c.notNull())
    .addColumn('done_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('job_effects_done_idx').on('job_effects').column('done_at').execute()
  // One reset link per request however often its email is retried (a retry is not a new request).
  await db.schema.alterTable('password_resets').addColumn('request_key', 'text').execute()
  await db.schema
    .createIndex('password_resets_request_idx')
    .on('password_resets')
    .columns(['user_id', 'request_key'])
    .execute()
  // What the reconciliation sweep found paid at a processor but could not match to the ledger.
  await db.schema
    .createTable('reconciliation_issues')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('rail', 'text', (c) => c.notNull())
    .addColumn('object_id', 'text', (c) => c.notNull().unique())
    .addColumn('kind', 'text', (c) => c.notNull())
    .addColumn('amount_minor', 'integer')
    .addColumn('currency', 'text')
    .addColumn('detail', 'text', (c) => c.notNull())
    .addColumn('first_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('last_seen_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('resolved_at', 'timestamptz')
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('reconciliation_issues').execute()
  await db.schema.dropIndex('password_resets_request_idx').execute()
  await db.schema.alterTable('password_resets').dropColumn('request_key').execute()
  await db.schema.dropTable('job_effects').execute()
}
