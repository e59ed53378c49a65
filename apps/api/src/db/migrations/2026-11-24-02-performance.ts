import { type Kysely, sql } from 'kysely'

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // Every instance keeps the users of live sessions in memory for a few seconds. A change to a user or
  // to one of their sessions, by any process, is announced on 'auth_changed' with the user's id (sent
  // at commit, once per user and transaction), and every instance forgets that user on hearing it.
  await sql`
    create function announce_auth_change() returns trigger language plpgsql as $$
    begin
      if tg_table_name = 'users' then
        perform pg_notify('auth_changed', coalesce(new.id, old.id)::text);
      else
        perform pg_notify('auth_changed', coalesce(new.user_id, old.user_id)::text);
      end if;
      return null;
    end $$`.execute(db)
  await sql`create trigger users_announce_change after update or delete on users
    for each row execute function announce_auth_change()`.execute(db)
  // A session's last use moving is no change to who may sign in with it.
  await sql`create trigger sessions_announce_change after update of revoked_at, user_id or delete on sessions
    for each row execute function announce_auth_change()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  await sql`drop trigger if exists sessions_announce_change on sessions`.execute(db)
  await sql`drop trigger if exists users_announce_change on users`.execute(db)
  await sql`drop function if exists announce_auth_change()`.execute(db)
}
