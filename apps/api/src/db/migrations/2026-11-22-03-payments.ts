import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  await db.schema.alterTable('users').addColumn('stripe_customer_id', 'text').execute()
  await db.schema
    .createIndex('users_stripe_customer_idx')
    .unique()
    .on('users')
    .column('stripe_customer_id')
    .execute()

  // Every charge a member makes or starts: plan checkouts, renewals, lifetime purchases and tips.
  await db.schema
    .createTable('payments')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('plan_id', 'uuid', (c) => c.references('plans.id'))
    .addColumn('kind', 'text', (c) =>
      c.notNull().check(sql`kind in ('subscription', 'renewal', 'lifetime', 'tip', 'grant')`),
    )
    .addColumn('provider', 'text', (c) =>
      c.notNull().defaultTo('stripe').check(sql`provider in ('stripe', 'crypto', 'admin')`),
    )
    .addColumn('status', 'text', (c) =>
      c
        .notNull()
        .check(
          sql`status in ('pending', 'completed', 'failed', 'cancelled', 'refunded', 'partially_refunded')`,
        ),
    )
    .addColumn('amount_minor', 'integer', (c) => c.notNull().check(sql`amount_minor >= 0`))
    .addColumn('amount_refunded_minor', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('currency', 'text', (c) => c.notNull())
    .addColumn('message', 'text')
    .addColumn('failure_message', 'text')
    .addColumn('stripe_payment_intent_id', 'text', (c) => c.unique())
    .addColumn('stripe_client_secret', 'text')
    .addColumn('stripe_invoice_id', 'text', (c) => c.unique())
    .addColumn('stripe_subscription_id', 'text')
    .addColumn('stripe_charge_id', 'text')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('completed_at', 'timestamptz')
    .execute()
  await db.schema
    .createIndex('payments_user_created_idx')
    .on('payments')
    .columns(['user_id', 'created_at'])
    .execute()
  await db.schema
    .createIndex('payments_status_created_idx')
    .on('payments')
    .columns(['status', 'created_at'])
    .execute()
  await db.schema.createIndex('payments_charge_idx').on('payments').column('stripe_charge_id').execute()
  // One open checkout per member and plan: a double click reuses it instead of charging twice.
  await sql`create unique index payments_one_pending_checkout on payments (user_id, plan_id, provider)
    where status = 'pending' and kind in ('subscription', 'lifetime')`.execute(db)

  // The access ledger: who has access until when. Every rail writes it; all readers read it.
  await db.schema
    .createTable('subscriptions')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('user_id', 'uuid', (c) => c.notNull().references('users.id').onDelete('cascade'))
    .addColumn('plan_id', 'uuid', (c) => c.notNull().references('plans.id'))
    .addColumn('provider', 'text', (c) => c.notNull().check(sql`provider in ('stripe', 'crypto', 'admin')`))
    .addColumn('status', 'text', (c) =>
      c.notNull().check(sql`status in ('active', 'past_due', 'cancelled', 'expired')`),
    )
    .addColumn('start_date', 'timestamptz', (c) => c.notNull())
    // Null: lifetime access.
    .addColumn('end_date', 'timestamptz')
    .addColumn('grace_until', 'timestamptz')
    .addColumn('cancel_at_period_end', 'boolean', (c) => c.notNull().defaultTo(false))
    .addColumn('cancelled_at', 'timestamptz')
    .addColumn('ended_at', 'timestamptz')
    .addColumn('stripe_subscription_id', 'text', (c) => c.unique())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('updated_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
  await db.schema
    .createIndex('subscriptions_user_idx')
    .on('subscriptions')
    .columns(['user_id', 'created_at'])
    .execute()
  await db.schema
    .createIndex('subscriptions_status_end_idx')
    .on('subscriptions')
    .columns(['status', 'end_date'])
    .execute()

  // Each paid period, once per payment: the proof that a payment granted access exactly once.
  await db.schema
    .createTable('subscription_periods')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('subscription_id', 'uuid', (c) =>
      c.notNull().references('subscriptions.id').onDelete('cascade'),
    )
    .addColumn('payment_id', 'uuid', (c) =>
      c.notNull().unique().references('payments.id').onDelete('cascade'),
    )
    .addColumn('start_date', 'timestamptz', (c) => c.notNull())
    .addColumn('end_date', 'timestamptz')
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()

  // Stripe events seen, for operators and for a cheap duplicate check; handling stays idempotent anyway.
  await db.schema
    .createTable('webhook_events')
    .addColumn('id', 'text', (c) => c.primaryKey())
    .addColumn('provider', 'text', (c) => c.notNull())
    .addColumn('type', 'text', (c) => c.notNull())
    .addColumn('received_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .addColumn('processed_at', 'timestamptz')
    .addColumn('attempts', 'integer', (c) => c.notNull().defaultTo(0))
    .addColumn('last_error', 'text')
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['webhook_events', 'subscription_periods', 'subscriptions', 'payments']) {
    await db.schema.dropTable(table).execute()
  }
  await db.schema.alterTable('users').dropColumn('stripe_customer_id').execute()
}
