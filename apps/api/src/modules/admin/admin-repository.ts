import type { UserRole } from '@edgeclub/shared'
import { type ExpressionBuilder, type Kysely, sql } from 'kysely'
import type { DB } from '../../db/types'
import { hasAccessAt, hasAccessSql } from '../subscriptions/access-rule'

const USER_SORTS = {
  createdAt: ['users.created_at'],
  email: ['users.email_normalized'],
  name: ['users.last_name', 'users.first_name'],
} as const

/** Queries behind the admin console's member list and analytics. */
export function createAdminRepository(db: Kysely<DB>) {
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
    async listUsers(query: {
      page: number
      limit: number
      search?: string
      sortBy: keyof typeof USER_SORTS
      sortOrder: 'asc' | 'desc'
      role?: UserRole
      now: Date
    }) {
      let base = db.selectFrom('users')
      if (query.role) base = base.where('users.role', '=', query.role)
      if (query.search) {
        const term = query.search.toLowerCase()
        const contains = `%${term}%`
        base = base.where((eb) =>
          eb.or([
            eb(sql`lower(users.email)`, 'like', contains),
            eb(sql`lower(users.first_name || ' ' || users.last_name)`, 'like', contains),
            eb(sql`lower(users.discord_username)`, 'like', contains),
            eb(
              'users.id',
              'in',
              eb
                .selectFrom('subscriptions')
                .select('subscriptions.user_id')
                .where(
                  'subscriptions.plan_id',
                  'in',
                  eb.selectFrom('plans').select('id').where(sql`lower(name)`, '=', term),
                ),
            ),
          ]),
        )
      }
      let ordered = base
        .leftJoin('discord_links', 'discord_links.user_id', 'users.id')
        .leftJoin('discord_connections', (join) =>
          join
            .onRef('discord_connections.user_id', '=', 'users.id')
            .on('discord_connections.disconnected_at', 'is', null),
        )
        .selectAll('users')
        .select([
          'discord_links.state as discord_state',
          'discord_links.role_granted as discord_role_granted',
          'discord_connections.verified_at as discord_verified_at',
        ])
        .select((eb) => hasAccess(eb, query.now).as('has_access'))
      for (const column of USER_SORTS[query.sortBy]) ordered = ordered.orderBy(column, query.sortOrder)
      const [rows, total] = await Promise.all([
        ordered
          .orderBy('users.id', query.sortOrder)
          .limit(query.limit)
          .offset((query.page - 1) * query.limit)
          .execute(),
        base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow(),
      ])
      return { rows, total: Number(total.count) }
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
        .selectAll('users')
        .select([
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

    /** The console's analytics, in one round of queries. USD amounts in minor units. */
    async analytics(now: Date) {
      const since30 = new Date(now.getTime() - 30 * 24 * 3600 * 1000)
      const yearAgo = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1))
      const [active, mrr, revenue, newMembers, cancellations, planMix, tips] = await Promise.all([
        sql<{ n: number }>`select count(distinct subscriptions.user_id)::int as n from subscriptions
          where ${hasAccessSql(now)}`.execute(db),
        // Monthly recurring revenue: renewing card subscriptions, each plan price brought to a month.
        sql<{ minor: number }>`select coalesce(sum(
            case p.interval
              when 'week' then p.price_minor * 52.0 / 12 / p.interval_count
              when 'month' then p.price_minor * 1.0 / p.interval_count
              when 'year' then p.price_minor / 12.0 / p.interval_count
              else 0 end), 0)::float8 as minor
          from subscriptions s join plans p on p.id = s.plan_id
          where s.provider = 'stripe' and s.status = 'active' and not s.cancel_at_period_end
            and s.end_date > ${now} and p.currency = 'USD'`.execute(db),
        sql<{
          month: string
          minor: number
        }>`select to_char(date_trunc('month', completed_at), 'YYYY-MM') as month,
            sum(amount_minor - amount_refunded_minor)::int8 as minor
          from payments
          where status in ('completed', 'partially_refunded') and currency = 'USD' and completed_at >= ${yearAgo}
          group by 1 order by 1`.execute(db),
        // New members: people whose first access began in the last 30 days.
        sql<{ n: number }>`select count(*)::int as n from (
            select user_id, min(start_date) as first_start from subscriptions group by user_id) f
          where f.first_start >= ${since30} and f.first_start <= ${now}`.execute(db),
        sql<{ n: number }>`select count(*)::int as n from subscriptions
          where (cancelled_at >= ${since30} and cancelled_at <= ${now})
             or (cancelled_at is null and status in ('expired', 'cancelled') and ended_at >= ${since30} and ended_at <= ${now})`.execute(
          db,
        ),
        sql<{
          plan_id: string
          name: string
          slug: string
          n: number
        }>`select p.id as plan_id, p.name, p.slug, count(distinct subscriptions.user_id)::int as n
          from subscriptions join plans p on p.id = subscriptions.plan_id
          where ${hasAccessSql(now)}
          group by p.id, p.name, p.slug order by n desc, p.name`.execute(db),
        sql<{
          currency: string
          minor: number
          n: number
        }>`select currency, sum(amount_minor - amount_refunded_minor)::int8 as minor, count(*)::int as n
          from payments where kind = 'tip' and status in ('completed', 'partially_refunded')
          group by currency order by currency`.execute(db),
      ])
      return {
        activeMembers: Number(active.rows[0]?.n ?? 0),
        mrrMinor: Math.round(Number(mrr.rows[0]?.minor ?? 0)),
        revenue: revenue.rows.map((row) => ({ month: row.month, minor: Number(row.minor) })),
        newMembers: Number(newMembers.rows[0]?.n ?? 0),
        cancellations: Number(cancellations.rows[0]?.n ?? 0),
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
      }
    },
  }
}
export type AdminRepository = ReturnType<typeof createAdminRepository>
