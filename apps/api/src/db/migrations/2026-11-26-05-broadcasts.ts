import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // A broadcast has an identity: the admin's form names it (or the server does), so sending the same
  // one again is recognised and refused, and a new one really goes out on every channel.
  await db.schema
    .createTable('broadcasts')
    .addColumn('id', 'uuid', (c) => c.primaryKey())
    .addColumn('title', 'text')
    .addColumn('message', 'text', (c) => c.notNull())
    .addColumn('also_email', 'boolean', (c) => c.notNull())
    .addColumn('author_id', 'uuid', (c) => c.references('users.id').onDelete('set null'))
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema.createIndex('broadcasts_created_idx').on('broadcasts').column('created_at').execute()
  // What each channel did with it: one row per channel (discord, email; others join the same way).
  await db.schema
    .createTable('broadcast_deliveries')
    .addColumn('broadcast_id', 'uuid', (c) => c.notNull().references('broadcasts.id').onDelete('cascade'))
    .addColumn('channel', 'text', (c) => c.notNull())
    .addColumn('status', 'text', (c) => c.notNull().check(sql`status in ('sent', 'queued')`))
    // The channel's own id for what it posted (a Discord message id), if any.
    .addColumn('external_id', 'text')
    // How many it went to (emails queued), if the channel counts recipients.
    .addColumn('recipients', 'integer')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addPrimaryKeyConstraint('broadcast_deliveries_pkey', ['broadcast_id', 'channel'])
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('broadcast_deliveries').execute()
  await db.schema.dropTable('broadcasts').execute()
}
