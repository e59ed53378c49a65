import type { UserRole } from '@edgeclub/shared'
import { type ExpressionBuilder, type Kysely, sql } from 'kysely'
import { deferredPage } from '../../db/paged-query'
import { createRollups, termMatch, utcDay } from '../../db/rollups'
import type { DB } from '../../db/types'
import { countCapFor, countUpTo, type Total } from '../../lib/pagination'
import { hasAccessAt } from '../subscriptions/access-rule'

/**
 * What the member search looks in: email, name and Discord username joined by a character no search
 * term can hold, so a match lies inside one of them. Written exactly as the users_search_trgm index.
 */
const MEMBER_SEARCH_TEXT = sql.raw(
  `lower(users.email || chr(31) || users.first_name || ' ' || users.last_name || chr(31) || users.discord_username)`,
)

/** Rows up to the end of the page below which a plan-name search probes each member (listUsers). */
const PROBE_PLAN_HOLDERS_UP_TO = 200

const USER_SORTS = {
  createdAt: ['users.created_at'],
  email: ['users.email_normalized'],
  name: ['users.last_name', 'users.first_name'],
} as const

/** Queries behind the admin console's member list and analytics. */
export function createAdminRepository(db: Kysely<DB>) {
  const rollups = createRollups(db)
  /** Whether the user of the row has access at `now`, by the access ledger's one rule. */
  const hasAccess = (eb: ExpressionBuilder<DB, 'users'>, now: Date) =>
    eb.exists(
      eb
        .selectFrom('subscriptions')
        .select('subscriptions.id')
        .whereRef('subscriptions.user_id', '=', 'users.id')
        .where((inner) => hasAccessAt(inner, now)),
    )

  return {
    /**
     * One page of members. The page's ids come from an index alone (each sort has an index ending in
     * the id), then only those rows are read: page 200 costs what page 1 does. A search matches email,
     * name and Discord username by trigram index, or the plan named exactly. The total comes from
     * the maintained rollups unless a search or the page itself says otherwise.
     */
    async listUsers(query: {
      page: number
      limit: number
      search?: string
      sortBy: keyof typeof USER_SORTS
      sortOrder: 'asc' | 'desc'
      role?: UserRole
      now: Date
    }) {
      let matching = db.selectFrom('users')
      if (query.role) matching = matching.where('users.role', '=', query.role)
      const roleOnly = matching
      let countMatching: (() => Promise<Total>) | undefined
      if (query.search) {
        const term = query.search.toLowerCase()
        const contains = `%${term}%`
        // Email, name or Discord username contains the term: one trigram index serves the three.
        const inText = sql<boolean>`${MEMBER_SEARCH_TEXT} like ${contains}`
        // The plans the term names are looked up first, so the planner sees which (and how many).
        const { planIds } = await termMatch(db, term, { statuses: [] })
        // Counted per way of matching, so each uses its own index: the members holding a named plan
        // (distinct, from the plan's index alone), then those found by text who hold none of them,
        // counted no further than the cap (a few letters match tens of thousands of members).
        const cap = countCapFor(query.page, query.limit)
        // Every holder of a named plan (from the plan's (plan_id, user_id) index alone).
        const holders = db
          .selectFrom('subscriptions')
          .select('subscriptions.user_id')
          .where('subscriptions.plan_id', 'in', planIds)
        // The row's member's own subscriptions to a named plan (one probe of that index).
        const namedPlanOf = (eb: ExpressionBuilder<DB, 'users'>) =>
          eb
            .selectFrom('subscriptions')
            .select('subscriptions.id')
            .whereRef('subscriptions.user_id', '=', 'users.id')
            .where('subscriptions.plan_id', 'in', planIds)
        countMatching = async () => {
          if (planIds.length === 0) return countUpTo(db, roleOnly.where(inText).select('users.id'), cap)
          const [byPlan, byTextOnly] = await Promise.all([
            // Distinct members from the plan's (plan_id, user_id) index, already in member order.
            countUpTo(
              db,
              query.role ? roleOnly.where('users.id', 'in', holders).select('users.id') : holders.distinct(),
              cap,
            ),
            // The few found by text: each checked for a named plan through its own subscriptions.
            countUpTo(
              db,
              roleOnly
                .where(inText)
                .where((eb) => eb.not(eb.exists(namedPlanOf(eb))))
                .select('users.id'),
              cap,
            ),
          ])
          const exact = typeof byPlan === 'number' && typeof byTextOnly === 'number'
          const sum = [byPlan, byTextOnly].reduce<number>(
            (total, part) => total + (typeof part === 'number' ? part : part.atLeast),
            0,
          )
          return exact ? sum : { atLeast: sum }
        }
        matching =
          planIds.length === 0
            ? matching.where(inText)
            : matching.where((eb) => {
                // The page walks members in its order until it has its rows. For the first pages that
                // is a few hundred members, each checked through its own subscriptions (a probe of the
                // plan's index; `offset 0` keeps PostgreSQL from hashing instead): 3 ms at 1M members
                // where hashing a popular plan's 50,000 holders first took 30. Deeper pages walk
                // thousands, and there the one hash costs less than a probe each (measured crossover:
                // about page 10 of 20).
                return eb.or([
                  inText,
                  query.page * query.limit <= PROBE_PLAN_HOLDERS_UP_TO
                    ? eb.exists(namedPlanOf(eb).offset(0))
                    : eb('users.id', 'in', holders),
                ])
              })
      }
      const page = deferredPage(db, 'users', matching, USER_SORTS[query.sortBy], query)
      // A search's total is counted beside the page (its own connection) rather than after it: a
      // broad term's count and page each take several milliseconds. A page that turns out to tell the
      // total itself leaves the count unused (a narrow term's count is a few index entries).
      const counted = countMatching?.()
      counted?.catch(() => {})
      const rows = await page
        .inOrder(
          page.from
            .leftJoin('discord_links', 'discord_links.user_id', 'users.id')
            .leftJoin('discord_connections', (join) =>
              join
                .onRef('discord_connections.user_id', '=', 'users.id')
                .on('discord_connections.disconnected_at', 'is', null),
            )
            .leftJoin('telegram_accounts', (join) =>
              join
                .onRef('telegram_accounts.user_id', '=', 'users.id')
                .on('telegram_accounts.disconnected_at', 'is', null),
            )
            .selectAll('users')
            .select([
              'discord_links.state as discord_state',
              'discord_links.role_granted as discord_role_granted',
              'discord_connections.verified_at as discord_verified_at',
              'telegram_accounts.id as telegram_account_id',
              'telegram_accounts.username as telegram_username',
              'telegram_accounts.first_name as telegram_first_name',
            ])
            .select((eb) => hasAccess(eb, query.now).as('has_access')),
        )
        .execute()
      return page.result(rows, () => counted ?? rollups.users(query.role))
    },

    findUserWithLink(id: string, now: Date) {
      return db
        .selectFrom('users')
        .leftJoin('discord_links', 'discord_links.user_id', 'users.id')
        .leftJoin('discord_connections', (join) =>
          join
            .onRef('discord_connections.user_id', '=', 'users.id')
            .on('discord_connections.disconnected_at', 'is', null),
        )
        .leftJoin('telegram_accounts', (join) =>
          join
            .onRef('telegram_accounts.user_id', '=', 'users.id')
            .on('telegram_accounts.disconnected_at', 'is', null),
        )
        .selectAll('users')
        .select([
          'telegram_accounts.id as telegram_account_id',
          'telegram_accounts.username as telegram_username',
          'telegram_accounts.first_name as telegram_first_name',
          'discord_links.state as discord_state',
          'discord_links.role_granted as discord_role_granted',
          'discord_connections.verified_at as discord_verified_at',
          'discord_connections.username as discord_verified_username',
          'discord_links.discord_user_id as discord_user_id',
          'discord_links.last_synced_at as discord_last_synced_at',
          'discord_links.last_error as discord_last_error',
          'discord_links.banned_at as discord_banned_at',
        ])
        .select((eb) => hasAccess(eb, now).as('has_access'))
        .where('users.id', '=', id)
        .executeTakeFirst()
    },

    /**
     * The console's analytics from the rollups, never a scan of payments or subscriptions. USD amounts
     * in minor units. Counts "as of now" add up whole UTC days from the histograms, then look at the
     * rows of the day `now` falls in (and the first day of a window) one by one, so they are exact.
     */
    async analytics(now: Date) {
      await rollups.settleAccess()
      const { date: today, start: todayStart, next: tomorrowStart } = utcDay(now)
      const since30 = new Date(now.getTime() - 30 * 24 * 3600 * 1000)
      const { date: since30Day, next: since30DayEnd } = utcDay(since30)
      const yearAgo = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1))
      const sumOf = (rows: { n: number | string | null }[]) => Number(rows[0]?.n ?? 0)

      const [active, mrr, revenue, newMembers, cancellations, planMix, tips] = await Promise.all([
        sql<{
          n: number
        }>`select (select coalesce(sum(n), 0) from access_days where plan_id is null and day > ${today}::date)
            + (select count(*) from member_access where until > ${now} and until < ${tomorrowStart}) as n`.execute(
          db,
        ),
        // Monthly recurring revenue: renewing card subscriptions, each plan price brought to a month.
        sql<{ minor: number }>`with renewing as (
            select plan_id, sum(n) as n from (
              select plan_id, n from subscription_rollups where metric = 'renew' and day > ${today}::date
              union all
              select plan_id, count(*) from subscriptions
              where status = 'active' and end_date > ${now} and end_date < ${tomorrowStart}
                and provider = 'stripe' and not cancel_at_period_end
              group by plan_id) r
            group by plan_id)
          select coalesce(sum(r.n *
            case p.interval
              when 'week' then p.price_minor * 52.0 / 12 / p.interval_count
              when 'month' then p.price_minor * 1.0 / p.interval_count
              when 'year' then p.price_minor / 12.0 / p.interval_count
              else 0 end), 0)::float8 as minor
          from renewing r join plans p on p.id = r.plan_id where p.currency = 'USD'`.execute(db),
        sql<{
          month: string
          minor: number
        }>`select to_char(month, 'YYYY-MM') as month, sum(net_minor)::int8 as minor
          from payment_rollups
          where status in ('completed', 'partially_refunded') and currency = 'USD' and month >= ${yearAgo}::date
          group by 1 having sum(n) <> 0 order by 1`.execute(db),
        // New members: people whose first access began in the last 30 days.
        sql<{ n: number }>`select
            (select coalesce(sum(n), 0) from first_start_days where day > ${since30Day}::date and day < ${today}::date)
            + (select count(*) from member_access where first_start >= ${since30} and first_start < ${since30DayEnd})
            + (select count(*) from member_access where first_start >= ${todayStart} and first_start <= ${now}) as n`.execute(
          db,
        ),
        sql<{ n: number }>`select
            (select coalesce(sum(n), 0) from subscription_rollups
              where metric = 'churn' and day > ${since30Day}::date and day < ${today}::date)
            + (select count(*) from subscriptions where subscription_churned_at(status, cancelled_at, ended_at) >= ${since30}
                and subscription_churned_at(status, cancelled_at, ended_at) < ${since30DayEnd})
            + (select count(*) from subscriptions where subscription_churned_at(status, cancelled_at, ended_at) >= ${todayStart}
                and subscription_churned_at(status, cancelled_at, ended_at) <= ${now}) as n`.execute(db),
        sql<{ plan_id: string; name: string; slug: string; n: number }>`with holding as (
            select plan_id, sum(n) as n from (
              select plan_id, n from access_days where plan_id is not null and day > ${today}::date
              union all
              select plan_id, count(*) from member_plan_access
              where until > ${now} and until < ${tomorrowStart} group by plan_id) h
            group by plan_id)
          select p.id as plan_id, p.name, p.slug, h.n::int as n
          from holding h join plans p on p.id = h.plan_id where h.n > 0
          order by h.n desc, p.name`.execute(db),
        sql<{
          currency: string
          minor: number
          n: number
        }>`select currency, sum(net_minor)::int8 as minor, sum(n)::int as n
          from payment_rollups where kind = 'tip' and status in ('completed', 'partially_refunded')
          group by currency having sum(n) <> 0 order by currency`.execute(db),
      ])
      const monthStart = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth(), 1))
      const [movements30, movementsMonth, redemptions, reasons] = await Promise.all([
        sql<{ kind: string; n: number }>`select kind, sum(n)::int8 as n from billing_movements
          where day > ${since30Day}::date and kind in ('trial_started', 'trial_converted', 'trial_ended')
          group by kind`.execute(db),
        sql<{ kind: string; minor: number }>`select kind, sum(mrr_minor)::int8 as minor from billing_movements
          where day >= ${monthStart}::date group by kind`.execute(db),
        sql<{ code: string; n: number }>`select c.code, count(*)::int8 as n
          from promo_redemptions r join promo_codes c on c.id = r.promo_code_id
          where r.status = 'redeemed' and r.redeemed_at >= ${since30}
          group by c.code order by 2 desc, c.code limit 20`.execute(db),
        sql<{ reason: string; outcome: string; n: number }>`select reason, outcome, count(*)::int8 as n
          from cancellation_reasons where created_at >= ${since30} group by 1, 2`.execute(db),
      ])
      return {
        activeMembers: sumOf(active.rows),
        mrrMinor: Math.round(Number(mrr.rows[0]?.minor ?? 0)),
        revenue: revenue.rows.map((row) => ({ month: row.month, minor: Number(row.minor) })),
        newMembers: sumOf(newMembers.rows),
        cancellations: sumOf(cancellations.rows),
        planMix: planMix.rows.map((row) => ({
          planId: row.plan_id,
          name: row.name,
          slug: row.slug,
          members: Number(row.n),
        })),
        tips: tips.rows.map((row) => ({
          currency: row.currency,
          minor: Number(row.minor),
          count: Number(row.n),
        })),
        trials: Object.fromEntries(movements30.rows.map((row) => [row.kind, Number(row.n)])) as Record<
          string,
          number
        >,
        movementsMinor: Object.fromEntries(
          movementsMonth.rows.map((row) => [row.kind, Number(row.minor)]),
        ) as Record<string, number>,
        month: monthStart.toISOString().slice(0, 7),
        redemptions: redemptions.rows.map((row) => ({ code: row.code, redemptions: Number(row.n) })),
        reasons: reasons.rows.map((row) => ({ reason: row.reason, outcome: row.outcome, n: Number(row.n) })),
      }
    },

    /** Folds the movement rows into one per day and kind (the totals do not change). */
    async compactMovements(): Promise<void> {
      await sql`with gone as (delete from billing_movements returning *)
        insert into billing_movements (day, kind, mrr_minor, n)
        select day, kind, sum(mrr_minor), sum(n) from gone group by 1, 2`.execute(db)
    },
  }
}
export type AdminRepository = ReturnType<typeof createAdminRepository>
