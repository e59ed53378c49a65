import { type Kysely, sql } from 'kysely'

/**
 * Performance at a million members (docs/decisions/015-performance-at-scale.md):
 * 1. signed-in users kept in memory are forgotten everywhere when they change (NOTIFY 'auth_changed');
 * 2. substring search of email, name and Discord username by trigram indexes (pg_trgm);
 * 3. indexes that give every admin sort its order, with the id, so a deep page reads an index only;
 * 4. rollups that answer list totals and analytics without scanning payments or subscriptions:
 *    tallies written by statement triggers in the same transaction as the rows they count, and each
 *    member's access (until when, since when) settled from a queue of changed members.
 */

// Frozen in time: later changes go in new migrations, never here.
export async function up(db: Kysely<any>): Promise<void> {
  // ---- 1. Signed-in users kept in memory (modules/auth/session-cache.ts)
  // A change to a user or to one of their sessions, by any process, is announced with the user's id
  // (sent at commit, once per user and transaction); every instance forgets that user on hearing it.
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

  // ---- 2. Substring search
  await sql`create extension if not exists pg_trgm`.execute(db)
  await sql`create index users_email_trgm on users using gin (lower(email) gin_trgm_ops)`.execute(db)
  // The admin's member search looks in email, name and Discord username at once: one index over the
  // three, joined by a character no search term can hold (control characters are refused), so a match
  // is always inside one of them.
  await sql`create index users_search_trgm on users using gin
    (lower(email || chr(31) || first_name || ' ' || last_name || chr(31) || discord_username) gin_trgm_ops)`.execute(
    db,
  )
  await sql`create index users_discord_trgm on users using gin (lower(discord_username) gin_trgm_ops)`.execute(
    db,
  )

  // ---- 3. Sorted lists: each sort's columns, then the id (the tiebreak), so that a page far down a
  // sorted list is found in the index alone and only its own rows are read.
  const indexes: [string, string][] = [
    ['users_created_sort', 'users (created_at, id)'],
    ['users_email_sort', 'users (email_normalized, id)'],
    ['users_name_sort', 'users (last_name, first_name, id)'],
    ['users_role_created_sort', 'users (role, created_at, id)'],
    ['subscriptions_created_sort', 'subscriptions (created_at, id)'],
    ['subscriptions_start_sort', 'subscriptions (start_date, id)'],
    ['subscriptions_end_sort', 'subscriptions (end_date, id)'],
    ['subscriptions_status_created_sort', 'subscriptions (status, created_at, id)'],
    ['subscriptions_status_start_sort', 'subscriptions (status, start_date, id)'],
    ['subscriptions_status_end_sort', 'subscriptions (status, end_date, id)'],
    ['subscriptions_plan_user_idx', 'subscriptions (plan_id, user_id)'],
    ['payments_created_sort', 'payments (created_at, id)'],
    ['payments_amount_sort', 'payments (amount_minor, id)'],
    ['payments_status_created_sort', 'payments (status, created_at, id)'],
    ['payments_provider_created_sort', 'payments (provider, created_at, id)'],
    ['audit_log_created_sort', 'audit_log (created_at, id)'],
    ['audit_log_target_idx', 'audit_log (target_id, created_at)'],
  ]
  for (const [name, on] of indexes) await sql.raw(`create index ${name} on ${on}`).execute(db)
  // Replaced by the sort indexes above, which lead with the same columns.
  for (const name of [
    'users_created_at_idx',
    'subscriptions_created_idx',
    'subscriptions_status_end_idx',
    'payments_created_idx',
    'payments_status_created_idx',
    'audit_log_created_idx',
  ])
    await sql.raw(`drop index if exists ${name}`).execute(db)

  // ---- 4. Rollups
  // Tallies: rows of counts to add up (a change adds a row of differences, never updates one, so
  // concurrent writers never wait on each other); compact_tallies() folds them now and then.
  await sql`create table payment_tallies (
    provider text not null, status text not null, kind text not null, plan_id uuid, currency text not null,
    -- The UTC month it was completed in (revenue by month), null while not completed.
    month date,
    n bigint not null, net_minor bigint not null)`.execute(db)
  await sql`create index payment_tallies_key on payment_tallies (provider, status, kind)`.execute(db)
  await sql`create table subscription_tallies (
    -- 'status': subscriptions per status and plan; 'churn': per UTC day they were cancelled or ended;
    -- 'renew': renewing card subscriptions per plan and UTC day their period ends.
    metric text not null, status text, plan_id uuid, day date, n bigint not null)`.execute(db)
  await sql`create index subscription_tallies_key on subscription_tallies (metric, day)`.execute(db)
  await sql`create table user_tallies (role text not null, n bigint not null)`.execute(db)

  // The one rule of access (modules/subscriptions/access-rule.ts) as the moment access ends: active
  // until its end date (lifetime: never), past due until its grace ends, otherwise none. A subscription
  // gives access at t exactly when this is later than t.
  await sql`create function subscription_access_until(status text, end_date timestamptz, grace_until timestamptz)
    returns timestamptz language sql immutable parallel safe as $$
      select case when status = 'active' then coalesce(end_date, 'infinity'::timestamptz)
        when status = 'past_due' then grace_until end $$`.execute(db)
  // When a subscription counts as a cancellation: its cancellation, or its end if it ended without one.
  await sql`create function subscription_churned_at(status text, cancelled_at timestamptz, ended_at timestamptz)
    returns timestamptz language sql immutable parallel safe as $$
      select case when cancelled_at is not null then cancelled_at
        when status in ('expired', 'cancelled') then ended_at end $$`.execute(db)
  await sql`create index subscriptions_churn_idx on subscriptions
    (subscription_churned_at(status, cancelled_at, ended_at))`.execute(db)
  await sql`create function utc_day(moment timestamptz) returns date language sql immutable parallel safe as $$
      select (moment at time zone 'UTC')::date $$`.execute(db)

  // Each counted table gets a trigger per operation over that statement's transition tables: the
  // changed rows, old ones counted -1 and new ones +1, as `changed`.
  const ops = {
    insert: 'select *, 1 as sign from new_rows',
    update: 'select *, -1 as sign from old_rows union all select *, 1 from new_rows',
    delete: 'select *, -1 as sign from old_rows',
  } as const
  const referencing = {
    insert: 'referencing new table as new_rows',
    update: 'referencing old table as old_rows new table as new_rows',
    delete: 'referencing old table as old_rows',
  } as const
  const tallyTriggers = async (table: string, body: (changed: string) => string) => {
    for (const op of ['insert', 'update', 'delete'] as const) {
      await sql
        .raw(`create function tally_${table}_${op}() returns trigger language plpgsql as $$
          begin
            ${body(ops[op])};
            return null;
          end $$`)
        .execute(db)
      await sql
        .raw(`create trigger ${table}_tally_${op} after ${op} on ${table} ${referencing[op]}
          for each statement execute function tally_${table}_${op}()`)
        .execute(db)
    }
  }

  await tallyTriggers(
    'payments',
    (changed) => `with changed as (${changed})
      insert into payment_tallies (provider, status, kind, plan_id, currency, month, n, net_minor)
      select provider, status, kind, plan_id, currency, date_trunc('month', completed_at at time zone 'UTC')::date,
        sum(sign), sum(sign * (amount_minor - amount_refunded_minor)::bigint)
      from changed
      group by 1, 2, 3, 4, 5, 6
      having sum(sign) <> 0 or sum(sign * (amount_minor - amount_refunded_minor)::bigint) <> 0`,
  )

  // Members whose access may have moved (until when, on which plan, since when): settled into
  // member_access by settle_member_access(), which reads their subscriptions as they are by then.
  await sql`create table member_access_changes (user_id uuid not null)`.execute(db)
  await tallyTriggers(
    'subscriptions',
    (changed) => `with changed as (${changed}),
      tallied as (
        insert into subscription_tallies (metric, status, plan_id, day, n)
        select metric, status, plan_id, day, sum(n) from (
          select 'status' as metric, status, plan_id, null::date as day, sign as n from changed
          union all
          select 'churn', null, null, utc_day(subscription_churned_at(status, cancelled_at, ended_at)), sign
          from changed where subscription_churned_at(status, cancelled_at, ended_at) is not null
          union all
          select 'renew', null, plan_id, utc_day(end_date), sign from changed
          where provider = 'stripe' and status = 'active' and not cancel_at_period_end and end_date is not null
        ) d
        group by metric, status, plan_id, day
        having sum(n) <> 0
        returning 1)
      insert into member_access_changes (user_id)
      select user_id from (
        select user_id, plan_id, subscription_access_until(status, end_date, grace_until) as until, start_date,
          sum(sign) as n
        from changed group by 1, 2, 3, 4
      ) moved
      where n <> 0
      group by user_id`,
  )

  await tallyTriggers(
    'users',
    (changed) => `with changed as (${changed})
      insert into user_tallies (role, n)
      select role, sum(sign) from changed group by role having sum(sign) <> 0`,
  )

  // Each member's access as of their last settled change: until when (null: none), since when they
  // first had a subscription; and per plan. Histograms count them per UTC day, so "how many now" is
  // a sum over days plus an exact look at today's (and, for windows, the first day's) rows.
  await sql`create table member_access (
    user_id uuid primary key, until timestamptz, first_start timestamptz not null)`.execute(db)
  await sql`create index member_access_until_idx on member_access (until)`.execute(db)
  await sql`create index member_access_first_idx on member_access (first_start)`.execute(db)
  await sql`create table member_plan_access (
    user_id uuid not null, plan_id uuid not null, until timestamptz not null, primary key (user_id, plan_id))`.execute(
    db,
  )
  await sql`create index member_plan_access_until_idx on member_plan_access (plan_id, until)`.execute(db)
  // plan_id null: any plan. 'infinity' is the day of lifetime access.
  await sql`create table access_days (plan_id uuid, day date not null, n bigint not null)`.execute(db)
  await sql`create unique index access_days_key on access_days (coalesce(plan_id, '00000000-0000-0000-0000-000000000000'), day)`.execute(
    db,
  )
  await sql`create table first_start_days (day date primary key, n bigint not null)`.execute(db)

  // Settles the queued members (one settler at a time): their access is read again from their
  // subscriptions, and the histograms move by the difference. Every queued change it takes was
  // committed before this statement began, so its subscriptions are visible to the same statement.
  await sql`
    create function settle_member_access() returns integer language plpgsql as $$
    declare settled integer;
    begin
      perform pg_advisory_xact_lock(7263001);
      with taken as (delete from member_access_changes returning user_id),
      members as (select distinct user_id from taken),
      fresh as (
        select m.user_id, max(subscription_access_until(s.status, s.end_date, s.grace_until)) as until,
          min(s.start_date) as first_start
        from members m join subscriptions s on s.user_id = m.user_id group by m.user_id),
      fresh_plan as (
        select m.user_id, s.plan_id, max(subscription_access_until(s.status, s.end_date, s.grace_until)) as until
        from members m join subscriptions s on s.user_id = m.user_id
        group by m.user_id, s.plan_id
        having max(subscription_access_until(s.status, s.end_date, s.grace_until)) is not null),
      old as (select a.* from member_access a join members m on m.user_id = a.user_id),
      old_plan as (select a.* from member_plan_access a join members m on m.user_id = a.user_id),
      access_moves as (
        select plan_id, day, sum(n) as n from (
          select null::uuid as plan_id, utc_day(until) as day, -1 as n from old where until is not null
          union all select null, utc_day(until), 1 from fresh where until is not null
          union all select plan_id, utc_day(until), -1 from old_plan
          union all select plan_id, utc_day(until), 1 from fresh_plan
        ) d group by plan_id, day having sum(n) <> 0),
      moved_access as (
        insert into access_days as a (plan_id, day, n) select plan_id, day, n from access_moves
        on conflict (coalesce(plan_id, '00000000-0000-0000-0000-000000000000'), day)
        do update set n = a.n + excluded.n returning 1),
      first_moves as (
        select day, sum(n) as n from (
          select utc_day(first_start) as day, -1 as n from old
          union all select utc_day(first_start), 1 from fresh
        ) d group by day having sum(n) <> 0),
      moved_first as (
        insert into first_start_days as f (day, n) select day, n from first_moves
        on conflict (day) do update set n = f.n + excluded.n returning 1),
      kept as (
        insert into member_access as a (user_id, until, first_start) select user_id, until, first_start from fresh
        on conflict (user_id) do update set until = excluded.until, first_start = excluded.first_start
        returning 1),
      dropped as (
        delete from member_access a using members m
        where a.user_id = m.user_id and not exists (select 1 from fresh f where f.user_id = m.user_id)
        returning 1),
      kept_plan as (
        insert into member_plan_access as a (user_id, plan_id, until) select user_id, plan_id, until from fresh_plan
        on conflict (user_id, plan_id) do update set until = excluded.until returning 1),
      dropped_plan as (
        delete from member_plan_access a using old_plan o
        where a.user_id = o.user_id and a.plan_id = o.plan_id
          and not exists (select 1 from fresh_plan f where f.user_id = o.user_id and f.plan_id = o.plan_id)
        returning 1)
      select count(*) into settled from members;
      delete from access_days where n = 0;
      delete from first_start_days where n = 0;
      return settled;
    end $$`.execute(db)

  // Folds each tally table's rows into one row per key (the totals do not change).
  await sql`
    create function compact_tallies() returns void language plpgsql as $$
    begin
      perform pg_advisory_xact_lock(7263002);
      with gone as (delete from payment_tallies returning *)
      insert into payment_tallies (provider, status, kind, plan_id, currency, month, n, net_minor)
      select provider, status, kind, plan_id, currency, month, sum(n), sum(net_minor) from gone
      group by 1, 2, 3, 4, 5, 6 having sum(n) <> 0 or sum(net_minor) <> 0;
      with gone as (delete from subscription_tallies returning *)
      insert into subscription_tallies (metric, status, plan_id, day, n)
      select metric, status, plan_id, day, sum(n) from gone group by 1, 2, 3, 4 having sum(n) <> 0;
      with gone as (delete from user_tallies returning *)
      insert into user_tallies (role, n) select role, sum(n) from gone group by role having sum(n) <> 0;
    end $$`.execute(db)

  // Every rollup computed again from the tables (after a bulk load with the triggers off, or here, for
  // the rows that exist already).
  await sql`
    create function rebuild_rollups() returns void language plpgsql as $$
    begin
      perform pg_advisory_xact_lock(7263001);
      perform pg_advisory_xact_lock(7263002);
      delete from payment_tallies;
      insert into payment_tallies (provider, status, kind, plan_id, currency, month, n, net_minor)
      select provider, status, kind, plan_id, currency, date_trunc('month', completed_at at time zone 'UTC')::date,
        count(*), sum(amount_minor - amount_refunded_minor) from payments group by 1, 2, 3, 4, 5, 6;
      delete from subscription_tallies;
      insert into subscription_tallies (metric, status, plan_id, day, n)
      select 'status', status, plan_id, null::date, count(*) from subscriptions group by 2, 3
      union all
      select 'churn', null, null, utc_day(subscription_churned_at(status, cancelled_at, ended_at)), count(*)
      from subscriptions where subscription_churned_at(status, cancelled_at, ended_at) is not null group by 4
      union all
      select 'renew', null, plan_id, utc_day(end_date), count(*) from subscriptions
      where provider = 'stripe' and status = 'active' and not cancel_at_period_end and end_date is not null
      group by 3, 4;
      delete from user_tallies;
      insert into user_tallies (role, n) select role, count(*) from users group by role;
      delete from member_access_changes;
      delete from member_access;
      insert into member_access (user_id, until, first_start)
      select user_id, max(subscription_access_until(status, end_date, grace_until)), min(start_date)
      from subscriptions group by user_id;
      delete from member_plan_access;
      insert into member_plan_access (user_id, plan_id, until)
      select user_id, plan_id, max(subscription_access_until(status, end_date, grace_until))
      from subscriptions group by user_id, plan_id
      having max(subscription_access_until(status, end_date, grace_until)) is not null;
      delete from access_days;
      insert into access_days (plan_id, day, n)
      select null::uuid, utc_day(until), count(*) from member_access where until is not null group by 2
      union all
      select plan_id, utc_day(until), count(*) from member_plan_access group by 1, 2;
      delete from first_start_days;
      insert into first_start_days (day, n) select utc_day(first_start), count(*) from member_access group by 1;
    end $$`.execute(db)
  await sql`select rebuild_rollups()`.execute(db)
}

export async function down(db: Kysely<any>): Promise<void> {
  for (const table of ['payments', 'subscriptions', 'users'])
    for (const op of ['insert', 'update', 'delete']) {
      await sql.raw(`drop trigger if exists ${table}_tally_${op} on ${table}`).execute(db)
      await sql.raw(`drop function if exists tally_${table}_${op}()`).execute(db)
    }
  for (const fn of ['rebuild_rollups()', 'compact_tallies()', 'settle_member_access()'])
    await sql.raw(`drop function if exists ${fn}`).execute(db)
  for (const table of [
    'first_start_days',
    'access_days',
    'member_plan_access',
    'member_access',
    'member_access_changes',
    'user_tallies',
    'subscription_tallies',
    'payment_tallies',
  ])
    await sql.raw(`drop table if exists ${table}`).execute(db)
  await sql`drop index if exists subscriptions_churn_idx`.execute(db)
  for (const fn of [
    'utc_day(timestamptz)',
    'subscription_churned_at(text, timestamptz, timestamptz)',
    'subscription_access_until(text, timestamptz, timestamptz)',
  ])
    await sql.raw(`drop function if exists ${fn}`).execute(db)
  await sql`create index if not exists users_created_at_idx on users (created_at)`.execute(db)
  await sql`create index if not exists subscriptions_created_idx on subscriptions (created_at)`.execute(db)
  await sql`create index if not exists subscriptions_status_end_idx on subscriptions (status, end_date)`.execute(
    db,
  )
  await sql`create index if not exists payments_created_idx on payments (created_at)`.execute(db)
  await sql`create index if not exists payments_status_created_idx on payments (status, created_at)`.execute(
    db,
  )
  await sql`create index if not exists audit_log_created_idx on audit_log (created_at)`.execute(db)
  for (const name of [
    'users_created_sort',
    'users_email_sort',
    'users_name_sort',
    'users_role_created_sort',
    'subscriptions_created_sort',
    'subscriptions_start_sort',
    'subscriptions_end_sort',
    'subscriptions_status_created_sort',
    'subscriptions_status_start_sort',
    'subscriptions_status_end_sort',
    'subscriptions_plan_user_idx',
    'payments_created_sort',
    'payments_amount_sort',
    'payments_status_created_sort',
    'payments_provider_created_sort',
    'audit_log_created_sort',
    'audit_log_target_idx',
    'users_email_trgm',
    'users_search_trgm',
    'users_discord_trgm',
  ])
    await sql.raw(`drop index if exists ${name}`).execute(db)
  await sql`drop trigger if exists sessions_announce_change on sessions`.execute(db)
  await sql`drop trigger if exists users_announce_change on users`.execute(db)
  await sql`drop function if exists announce_auth_change()`.execute(db)
}
