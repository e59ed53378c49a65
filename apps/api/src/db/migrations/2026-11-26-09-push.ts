import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // One row per browser (device) a member turned notifications on in; the push service's endpoint
  // names it, so the same browser subscribing again (or for another member) is the same row.
  await db.schema
    .createTable('push_subscriptions')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('endpoint', 'text', (c) => c.notNull().unique())
    .addColumn('p256dh', 'text', (c) => c.notNull())
    .addColumn('auth', 'text', (c) => c.notNull())
    // Which kinds notify ('picks', 'signals', 'results') and which sports' picks (empty: all).
    .addColumn('kinds', 'jsonb', (c) => c.notNull())
    .addColumn('sports', 'jsonb', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('push_subscriptions_user_idx')
    .on('push_subscriptions')
    .column('user_id')
    .execute()
  // The VAPID key pair when no VAPID_* variables are set and several instances share PostgreSQL: the
  // first instance makes it under an advisory lock, every other one reads the same (decision 023).
  await db.schema
    .createTable('push_vapid_keys')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('private_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('push_vapid_keys').execute()
  await db.schema.dropTable('push_subscriptions').execute()
}
