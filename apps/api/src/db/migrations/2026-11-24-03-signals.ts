import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // Analysts publish and settle signals, and have no other admin power.
  await sql`alter table users drop constraint if exists users_role_check`.execute(db)
  await sql`alter table users add constraint users_role_check check (role in ('member', 'analyst', 'admin'))`.execute(
    db,
  )

  await db.schema
    .createTable('signals')
    .addColumn('id', 'uuid', (c) => c.primaryKey().defaultTo(sql`gen_random_uuid()`))
    .addColumn('kind', 'text', (c) => c.notNull().check(sql`kind in ('pick', 'signal')`))
    // The content exactly as published (json keeps its text as it was), and the salt of its commitment.
    .addColumn('content', 'json', (c) => c.notNull())
    .addColumn('salt', 'text', (c) => c.notNull())
    .addColumn('commitment', 'text', (c) => c.notNull().unique())
    .addColumn('category', 'text', (c) => c.notNull())
    .addColumn('starts_at', 'timestamptz')
    .addColumn('expires_at', 'timestamptz')
    .addColumn('stake', 'double precision', (c) => c.notNull())
    .addColumn('status', 'text', (c) =>
      c.notNull().defaultTo('open').check(sql`status in ('open', 'settled', 'void')`),
    )
    .addColumn('result', 'text', (c) => c.check(sql`result in ('won', 'lost', 'push', 'closed')`))
    .addColumn('profit_units', 'double precision')
    .addColumn('exit_price', 'double precision')
    .addColumn('void_reason', 'text')
    .addColumn('published_seq', 'bigint', (c) => c.notNull().unique())
    .addColumn('published_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('settled_by', 'uuid', (c) => c.references('users.id'))
    .addColumn('published_at', 'timestamptz', (c) => c.notNull())
    .addColumn('settled_at', 'timestamptz')
    .execute()
  await db.schema.createIndex('signals_status_idx').on('signals').columns(['status', 'kind']).execute()
  await db.schema.createIndex('signals_settled_idx').on('signals').column('settled_at').execute()

  // Published content never changes: a correction is a void and a new signal.
  await sql`
    create function signals_content_is_final() returns trigger language plpgsql as $$
    begin
      if new.kind is distinct from old.kind or new.content::text is distinct from old.content::text
        or new.salt is distinct from old.salt or new.commitment is distinct from old.commitment
        or new.category is distinct from old.category or new.stake is distinct from old.stake
        or new.starts_at is distinct from old.starts_at or new.expires_at is distinct from old.expires_at
        or new.published_seq is distinct from old.published_seq or new.published_at is distinct from old.published_at then
        raise exception 'a published signal cannot be changed; void it and publish a new one';
      end if;
      if old.status <> 'open' then
        raise exception 'a settled or void signal cannot be changed';
      end if;
      return new;
    end $$`.execute(db)
  await sql`create trigger signals_content_is_final before update on signals
    for each row execute function signals_content_is_final()`.execute(db)
  await sql`
    create function signals_are_kept() returns trigger language plpgsql as $$
    begin
      raise exception 'signals are kept for the record';
    end $$`.execute(db)
  await sql`create trigger signals_are_kept before delete on signals
    for each row execute function signals_are_kept()`.execute(db)

  // The public ledger: append-only, one hash chain.
  await db.schema
    .createTable('signal_ledger')
    .addColumn('seq', 'bigint', (c) => c.primaryKey())
    .addColumn('type', 'text', (c) => c.notNull().check(sql`type in ('publish', 'settle', 'void')`))
    .addColumn('signal_id', 'uuid', (c) => c.notNull().references('signals.id'))
    .addColumn('at', 'text', (c) => c.notNull())
    .addColumn('prev_hash', 'text', (c) => c.notNull())
    .addColumn('hash', 'text', (c) => c.notNull().unique())
    .addColumn('data', 'json', (c) => c.notNull())
    .execute()
  await sql`
    create function signal_ledger_is_append_only() returns trigger language plpgsql as $$
    begin
      raise exception 'the signal ledger is append-only: % is not allowed', tg_op;
    end $$`.execute(db)
  await sql`create trigger signal_ledger_is_append_only before update or delete on signal_ledger
    for each row execute function signal_ledger_is_append_only()`.execute(db)
  await sql`create trigger signal_ledger_no_truncate before truncate on signal_ledger
    for each statement execute function signal_ledger_is_append_only()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await db.schema.dropTable('signal_ledger').execute()
  await sql`drop function signal_ledger_is_append_only`.execute(db)
  await db.schema.dropTable('signals').execute()
  await sql`drop function signals_content_is_final`.execute(db)
  await sql`drop function signals_are_kept`.execute(db)
  await sql`alter table users drop constraint if exists users_role_check`.execute(db)
  await sql`alter table users add constraint users_role_check check (role in ('member', 'admin'))`.execute(db)
}
