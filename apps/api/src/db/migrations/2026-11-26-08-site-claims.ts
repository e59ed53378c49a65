import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // The landing and register pages' claims, as the owner sets them. One row at most; a null text
  // means the page's own default (the texts the pages always had).
  await sql`create table site_claims (
    id boolean primary key default true check (id),
    members text,
    ai_accuracy text,
    win_rate text,
    track_record text,
    show_record_figures boolean not null default false,
    updated_at timestamptz not null default now())`.execute(db)
}
