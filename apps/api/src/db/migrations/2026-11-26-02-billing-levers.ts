import { type Kysely, sql } from 'kysely'

/**
 * What a club owner runs revenue with: trials, promo codes, plan changes, pauses and the
 * reasons members give when they cancel.
 */
export async function up(db: Kysely<any>): Promise<void> {
  // ---- trials: a recurring plan may start with free days; one trial per member and per card, ever.
  await sql`alter table plans add column trial_days integer not null default 0
    check (trial_days between 0 and 90)`.execute(db)
  await sql`alter table users add column trial_used_at timestamptz`.execute(db)
  await sql`create table trial_cards (
    fingerprint text primary key,
    user_id uuid not null references users(id) on delete cascade,
    created_at timestamptz not null default now())`.execute(db)
  await sql`alter table subscriptions add column trial_ends_at timestamptz`.execute(db)

  // ---- pause: no charge and no access from the end of the paid period until the resume date.
  await sql`alter table subscriptions add column paused_at timestamptz`.execute(db)
  await sql`alter table subscriptions add column resumes_at timestamptz`.execute(db)
  await sql`alter table subscriptions drop constraint subscriptions_status_check`.execute(db)
  await sql`alter table subscriptions add constraint subscriptions_status_check
    check (status in ('active', 'past_due', 'paused', 'cancelled', 'expired'))`.execute(db)

  // ---- plan changes: a downgrade waits for the renewal (a Stripe subscription schedule).
  await sql`alter table subscriptions add column scheduled_plan_id uuid references plans(id)`.execute(db)
  await sql`alter table subscriptions add column scheduled_change_at timestamptz`.execute(db)
  await sql`alter table subscriptions add column stripe_schedule_id text`.execute(db)

  // ---- payments know what they paid for and with which code; a zero trial start is a payment too.
  await sql`alter table payments drop constraint payments_kind_check`.execute(db)
  await sql`alter table payments add constraint payments_kind_check
    check (kind in ('subscription', 'renewal', 'lifetime', 'tip', 'grant', 'upgrade'))`.execute(db)

  // ---- promo codes: a code is a Stripe coupon + promotion code for card; crypto applies the same
  // discount on our side. Redemptions are counted here, not at Stripe: one held by an open checkout
  // counts while that checkout can still be paid, so the last one goes to exactly one member.
  await sql`create table promo_codes (
    id uuid primary key default gen_random_uuid(),
    code text not null,
    percent_off numeric(5, 2) check (percent_off > 0 and percent_off <= 100),
    amount_off_minor integer check (amount_off_minor > 0),
    currency text,
    duration text not null check (duration in ('once', 'repeating', 'forever')),
    duration_in_months integer check (duration_in_months between 1 and 36),
    audience text not null default 'anyone' check (audience in ('anyone', 'new', 'returning')),
    plan_ids uuid[],
    expires_at timestamptz,
    max_redemptions integer check (max_redemptions > 0),
    active boolean not null default true,
    stripe_coupon_id text,
    stripe_promotion_code_id text,
    created_by uuid references users(id) on delete set null,
    created_at timestamptz not null default now(),
    deactivated_at timestamptz,
    check ((percent_off is null) <> (amount_off_minor is null)),
    check (amount_off_minor is null or currency is not null),
    check ((duration = 'repeating') = (duration_in_months is not null)))`.execute(db)
  await sql`create unique index promo_codes_code_key on promo_codes (upper(code))`.execute(db)
  // One redemption per member and code: held by a checkout, then redeemed by its payment, or let go.
  await sql`create table promo_redemptions (
    id uuid primary key default gen_random_uuid(),
    promo_code_id uuid not null references promo_codes(id) on delete cascade,
    user_id uuid not null references users(id) on delete cascade,
    payment_id uuid references payments(id) on delete set null,
    status text not null check (status in ('held', 'redeemed', 'released')),
    created_at timestamptz not null default now(),
    redeemed_at timestamptz,
    unique (promo_code_id, user_id))`.execute(db)
  await sql`alter table payments add column promo_code_id uuid references promo_codes(id)`.execute(db)
  await sql`alter table payments add column discount_minor integer not null default 0`.execute(db)
  // A trial's checkout saves a card (a SetupIntent) instead of taking a payment.
  await sql`alter table payments add column stripe_setup_intent_id text unique`.execute(db)
  await sql`create index payments_promo_code_idx on payments (promo_code_id) where promo_code_id is not null`.execute(
    db,
  )

  // ---- cancelling: the member's reason, and what the owner offered them to stay.
  await sql`create table cancellation_reasons (
    id uuid primary key default gen_random_uuid(),
    user_id uuid not null references users(id) on delete cascade,
    subscription_id uuid references subscriptions(id) on delete set null,
    reason text not null,
    detail text,
    offer text check (offer in ('code', 'pause')),
    outcome text not null check (outcome in ('cancelled', 'kept')),
    created_at timestamptz not null default now())`.execute(db)
  await sql`create index cancellation_reasons_created_idx on cancellation_reasons (created_at)`.execute(db)
  // The owner's win-back offer at cancel: a retention code, a pause, both or neither (one row).
  await sql`create table billing_settings (
    id boolean primary key default true check (id),
    retention_promo_code_id uuid references promo_codes(id) on delete set null,
    retention_offers_pause boolean not null default false,
    updated_at timestamptz not null default now())`.execute(db)
  await sql`insert into billing_settings (id) values (true)`.execute(db)

  // ---- the owner's numbers: movements of revenue, appended in the transaction of the change (like
  // the other rollups: writers only insert; the rollups job folds them into one row per key).
  // kind: trial_started, trial_converted, trial_ended, new, reactivated, expansion, contraction,
  // churned; mrr_minor: the monthly amount it moved (USD plans), 0 for the trial counts.
  await sql`create table billing_movements (
    day date not null,
    kind text not null,
    mrr_minor bigint not null default 0,
    n bigint not null default 1)`.execute(db)
  await sql`create index billing_movements_day_idx on billing_movements (day, kind)`.execute(db)
}
