import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // Each email's send, in steps: 'sending' is written (and committed) before the SMTP conversation
  // starts, 'accepted' once the server took the message. A retried job finds 'accepted' and sends
  // nothing; it finds 'sending' only if a crash cut the one send that was in flight. No address or
  // content is kept: the business key and the Message-ID are enough to tell one message from another.
  await db.schema
    .createTable('mail_deliveries')
    .addColumn('key', 'text', (c) => c.primaryKey())
    .addColumn('message_id', 'text', (c) => c.notNull())
    .addColumn('state', 'text', (c) => c.notNull().check(sql`state in ('sending', 'accepted', 'failed')`))
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('started_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('accepted_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('mail_deliveries_started_idx')
    .on('mail_deliveries')
    .column('started_at')
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('mail_deliveries').execute()
}
