import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // Discord accounts members proved are theirs (OAuth2 identify). A disconnect keeps the row with
  // disconnected_at set: the history shows which accounts a member held, and it counts disconnects.
  // No OAuth2 token is stored: the callback uses the access token once and drops it.
  await db.schema
    .createTable('discord_connections')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('discord_user_id', 'text', (c) => c.notNull())
    .addColumn('username', 'text', (c) => c.notNull())
    .addColumn('verified_at', 'timestamptz', (c) => c.notNull())
    .addColumn('disconnected_at', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  // One live connection per member, and a Discord account connected to at most one member.
  await sql`create unique index discord_connections_user_live_idx on discord_connections (user_id)
    where disconnected_at is null`.execute(db)
  await sql`create unique index discord_connections_discord_live_idx on discord_connections (discord_user_id)
    where disconnected_at is null`.execute(db)
  await db.schema
    .createIndex('discord_connections_user_idx')
    .on('discord_connections')
    .columns(['user_id', 'disconnected_at'])
    .execute()

  // Connect Discord attempts: the OAuth2 state (stored hashed), single use, bound to the member who
  // started it, short-lived.
  await db.schema
    .createTable('discord_oauth_states')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('state_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('discord_oauth_states_user_idx')
    .on('discord_oauth_states')
    .columns(['user_id', 'created_at'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('discord_oauth_states').execute()
  await db.schema.dropTable('discord_connections').execute()
}
