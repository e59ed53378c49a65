import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // The club's places: Discord roles and Telegram chats a plan can grant. Ids from the platforms are
  // text (Telegram's chat ids are negative 52-bit numbers; Discord's are 64-bit snowflakes).
  await db.schema
    .createTable('places')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('discord_role', 'telegram_chat')`))
    .addColumn('external_id', 'text', (c) => c.notNull())
    .addColumn('title', 'text', (c) => c.notNull())
    // Telegram chats: the signal categories posted there (null: all of them).
    .addColumn('signal_categories', 'jsonb')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('archived_at', 'timestamptz')
    .execute()
  await sql`create unique index places_kind_external_live_idx on places (kind, external_id)
    where archived_at is null`.execute(db)

  // What a plan grants, per kind: null is every place of that kind (so plans made before places keep
  // working), else a JSON array of place ids (categories: of names). A plan without a row grants all.
  await db.schema
    .createTable('plan_places')
    .addColumn('plan_id', 'uuid', (c) => c.primaryKey().references('plans.id').onDelete('cascade'))
    .addColumn('discord_roles', 'jsonb')
    .addColumn('telegram_chats', 'jsonb')
    .addColumn('signal_categories', 'jsonb')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  // Telegram accounts members tied through the bot's deep link; a disconnect keeps the row as history.
  await db.schema
    .createTable('telegram_accounts')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('telegram_user_id', 'text', (c) => c.notNull())
    .addColumn('username', 'text')
    .addColumn('first_name', 'text', (c) => c.notNull())
    // It was another member's until now (the bot says so when it answers the Start).
    .addColumn('moved', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('connected_at', 'timestamptz', (c) => c.notNull())
    .addColumn('welcomed_at', 'timestamptz')
    .addColumn('disconnected_at', 'timestamptz')
    .execute()
  // One live account per member and one member per Telegram account ("one each way").
  await sql`create unique index telegram_accounts_user_live_idx on telegram_accounts (user_id)
    where disconnected_at is null`.execute(db)
  await sql`create unique index telegram_accounts_telegram_live_idx on telegram_accounts (telegram_user_id)
    where disconnected_at is null`.execute(db)

  // Connect Telegram: the deep link's start token, stored hashed, single use, short-lived.
  await db.schema
    .createTable('telegram_connect_tokens')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('token_hash', 'text', (c) => c.notNull().unique())
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('expires_at', 'timestamptz', (c) => c.notNull())
    .addColumn('used_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('telegram_connect_tokens_user_idx')
    .on('telegram_connect_tokens')
    .columns(['user_id', 'created_at'])
    .execute()

  // The member's standing on Telegram, whichever account they hold: reminders by bot, and a ban.
  await db.schema
    .createTable('telegram_members')
    .addColumn('user_id', 'uuid', (c) => c.primaryKey().references('users.id').onDelete('cascade'))
    .addColumn('reminders', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('banned_at', 'timestamptz')
    .addColumn('banned_telegram_user_id', 'text')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  // Where a member stands in each chat: their personal join link sent, in, removed, declined, banned.
  await db.schema
    .createTable('telegram_chat_members')
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('place_id', 'uuid', (c) => c.notNull().references('places.id').onDelete('cascade'))
    .addColumn('telegram_user_id', 'text')
    .addColumn('state', 'text', (c) =>
      c.notNull().check(sql`state in ('link-sent', 'member', 'removed', 'declined', 'banned')`),
    )
    .addColumn('invite_link', 'text')
    .addColumn('joined_at', 'timestamptz')
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('telegram_chat_members_pk', ['user_id', 'place_id'])
    .execute()
  await db.schema
    .createIndex('telegram_chat_members_account_idx')
    .on('telegram_chat_members')
    .columns(['telegram_user_id', 'place_id'])
    .execute()

  // Telegram's flood limits, shared by every instance: one token bucket per scope (the whole bot,
  // or one chat), refilled by elapsed time when a send takes a token.
  await db.schema
    .createTable('telegram_send_buckets')
    .addColumn('scope', 'text', (c) => c.primaryKey())
    .addColumn('tokens', 'double precision', (c) => c.notNull())
    .addColumn('refilled_at', 'timestamptz', (c) => c.notNull())
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('telegram_send_buckets').execute()
  await db.schema.dropTable('telegram_chat_members').execute()
  await db.schema.dropTable('telegram_members').execute()
  await db.schema.dropTable('telegram_connect_tokens').execute()
  await db.schema.dropTable('telegram_accounts').execute()
  await db.schema.dropTable('plan_places').execute()
  await db.schema.dropTable('places').execute()
}
