import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // The signed heads of the record's Merkle tree (RFC 9162): one per ledger size, signed when the entry
  // that made that size was appended, in the same transaction. Append-only like the ledger itself.
  await db.schema
    .createTable('ledger_heads')
    .addColumn('size', 'bigint', (c) => c.primaryKey())
    .addColumn('root_hash', 'text', (c) => c.notNull())
    // Milliseconds since the Unix epoch, as RFC 9162's tree heads.
    .addColumn('timestamp', 'bigint', (c) => c.notNull())
    .addColumn('signature', 'text', (c) => c.notNull())
    .execute()
  await sql`
    create function ledger_heads_are_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'the signed heads are append-only: % is not allowed', tg_op;
    end $$`.execute(db)
  await sql`create trigger ledger_heads_are_append_only before update or delete on ledger_heads
    for each row execute function ledger_heads_are_append_only()`.execute(db)
  await sql`create trigger ledger_heads_no_truncate before truncate on ledger_heads
    for each statement execute function ledger_heads_are_append_only()`.execute(db)

  // PostgreSQL without LEDGER_SIGNING_KEY: the one Ed25519 key every instance signs with, generated
  // by the first instance that starts (under an advisory lock). One row at most.
  await db.schema
    .createTable('ledger_signing_key')
    .addColumn('id', 'integer', (c) => c.primaryKey().check(sql`id = 1`))
    .addColumn('seed', 'text', (c) => c.notNull())
    .addColumn('public_key', 'text', (c) => c.notNull())
    .addColumn('created_at', 'timestamptz', (c) => c.notNull().defaultTo(sql`now()`))
    .execute()
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('ledger_signing_key').execute()
  await db.schema.dropTable('ledger_heads').execute()
  await sql`drop function ledger_heads_are_append_only`.execute(db)
}
