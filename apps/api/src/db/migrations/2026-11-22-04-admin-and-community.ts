import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // Who did what to whom, and whether it worked: every admin action.
  await db.schema
    .createTable('audit_log')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('actor_id', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('actor_email', 'text')
    .addColumn('action', 'text', (c) => c.notNull())
    .addColumn('target_type', 'text', (c) => c.notNull())
    .addColumn('target_id', 'text')
    .addColumn('outcome', 'text', (c) => c.notNull().check(sql`outcome in ('success', 'failure')`))
    .addColumn('details', 'jsonb', (c) => c.notNull().defaultTo(sql`'{}'::jsonb`))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('audit_log_created_idx').on('audit_log').column('created_at').execute()

  // A member's standing in the Discord server, as the role sync last saw it.
  await db.schema
    .createTable('discord_links')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('discord_user_id', 'text')
    .addColumn('state', 'text', (c) =>
      c
        .notNull()
        .defaultTo('unlinked')
        .check(sql`state in ('unlinked', 'invited', 'joined', 'removed', 'kicked', 'banned')`),
    )
    .addColumn('role_granted', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('banned_at', 'timestamptz')
    .addColumn('last_synced_at', 'timestamptz')
    .addColumn('last_error', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('discord_links_discord_user_idx')
    .on('discord_links')
    .column('discord_user_id')
    .execute()

  await db.schema
    .createTable('discord_invites')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('code', 'text', (c) => c.notNull().unique())
    .addColumn('max_uses', 'integer', (c) => c.notNull())
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('revoked_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('discord_invites_user_idx')
    .on('discord_invites')
    .columns(['user_id', 'created_at'])
    .execute()

  // Admin list search and sorting at 100,000 members.
  await sql`create index users_email_lower_idx on users (lower(email) text_pattern_ops)`.execute(db)
  await sql`create index users_last_name_idx on users (lower(last_name), lower(first_name))`.execute(db)
  await db.schema.createIndex('payments_created_idx').on('payments').column('created_at').execute()
  await db.schema
    .createIndex('payments_completed_idx')
    .on('payments')
    .columns(['status', 'completed_at'])
    .execute()
  await db.schema.createIndex('subscriptions_created_idx').on('subscriptions').column('created_at').execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const index of [
    'subscriptions_created_idx',
    'payments_completed_idx',
    'payments_created_idx',
    'users_last_name_idx',
    'users_email_lower_idx',
  ]) {
    await db.schema.dropIndex(index).execute()
  }
  for (const table of ['discord_invites', 'discord_links', 'audit_log'])
    await db.schema.dropTable(table).execute()
}
