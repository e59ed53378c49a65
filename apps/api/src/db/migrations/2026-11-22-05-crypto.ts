import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema
    .alterTable('payments')
    .addColumn('btcpay_invoice_id', 'text', (c) => c.unique())
    .addColumn('checkout_url', 'text')
    .addColumn('expires_at', 'timestamptz')
    .execute()
  // Crypto does not renew by itself: the end date a renewal reminder was sent for (once per period).
  await db.schema.alterTable('subscriptions').addColumn('renewal_reminder_for', 'timestamptz').execute()
  await sql`create index subscriptions_crypto_end_idx on subscriptions (end_date) where provider = 'crypto' and status = 'active'`.execute(
    db,
  )
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropIndex('subscriptions_crypto_end_idx').execute()
  await db.schema.alterTable('subscriptions').dropColumn('renewal_reminder_for').execute()
  await db.schema
    .alterTable('payments')
    .dropColumn('expires_at')
    .dropColumn('checkout_url')
    .dropColumn('btcpay_invoice_id')
    .execute()
}
