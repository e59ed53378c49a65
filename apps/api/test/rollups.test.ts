import { type Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DB } from '../src/db/types'
import { hasAccessSql } from '../src/modules/subscriptions/access-rule'
import { as, login, type Session } from './helpers/members'
import { createTestApp, type TestApp, testClock } from './helpers/test-app'

const API = '/discord/api'
const ADMIN = { email: 'rollups.ops@edgeclub.test', password: 'Ops$ecret-rollups1' }
const HOUR = 3600 * 1000
const DAY = 24 * HOUR

/**
 * Totals and analytics come from rollups kept by triggers and settled from a queue of changed members.
 * Whatever the rows go through (inserts, status changes, refunds, deletions, time passing across
 * midnight), every figure must equal what a scan of the tables says at that moment: the queries below
 * are the scans the rollups replaced.
 */
async function scanned(db: Kysely<DB>, now: Date) {
  const since30 = new Date(now.getTime() - 30 * DAY)
  const yearAgo = new Date(Date.UTC(now.getUTCFullYear(), now.getUTCMonth() - 11, 1))
  const one = async <T>(query: ReturnType<typeof sql<T>>) => (await query.execute(db)).rows
  const [active] = await one(
    sql<{
      n: number
    }>`select count(distinct user_id)::int as n from subscriptions where ${hasAccessSql(now)}`,
  )
  const [mrr] = await one(sql<{ minor: number }>`select coalesce(sum(
      case p.interval when 'week' then p.price_minor * 52.0 / 12 / p.interval_count
        when 'month' then p.price_minor * 1.0 / p.interval_count
        when 'year' then p.price_minor / 12.0 / p.interval_count else 0 end), 0)::float8 as minor
    from subscriptions s join plans p on p.id = s.plan_id
    where s.provider = 'stripe' and s.status = 'active' and not s.cancel_at_period_end
      and s.end_date > ${now} and p.currency = 'USD'`)
  const revenue = await one(sql<{ month: string; minor: number }>`select
      to_char(date_trunc('month', completed_at at time zone 'UTC'), 'YYYY-MM') as month,
      sum(amount_minor - amount_refunded_minor)::int8 as minor
    from payments where status in ('completed', 'partially_refunded') and currency = 'USD'
      and completed_at >= ${yearAgo} group by 1 order by 1`)
  const [fresh] = await one(sql<{ n: number }>`select count(*)::int as n from (
      select user_id, min(start_date) as first_start from subscriptions group by user_id) f
    where f.first_start >= ${since30} and f.first_start <= ${now}`)
  const [cancelled] = await one(sql<{ n: number }>`select count(*)::int as n from subscriptions
    where (cancelled_at >= ${since30} and cancelled_at <= ${now})
      or (cancelled_at is null and status in ('expired', 'cancelled') and ended_at >= ${since30} and ended_at <= ${now})`)
  const mix = await one(sql<{ plan_id: string; n: number }>`select plan_id, count(distinct user_id)::int as n
    from subscriptions where ${hasAccessSql(now)} group by plan_id order by plan_id`)
  const tips = await one(sql<{ currency: string; minor: number; n: number }>`select currency,
      sum(amount_minor - amount_refunded_minor)::int8 as minor, count(*)::int as n
    from payments where kind = 'tip' and status in ('completed', 'partially_refunded')
    group by currency order by currency`)
  return {
    activeMembers: Number(active?.n ?? 0),
    mrrMinor: Math.round(Number(mrr?.minor ?? 0)),
    revenue: Object.fromEntries(revenue.map((row) => [row.month, Number(row.minor)])),
    newMembers30d: Number(fresh?.n ?? 0),
    cancellations30d: Number(cancelled?.n ?? 0),
    planMix: Object.fromEntries(mix.map((row) => [row.plan_id, Number(row.n)])),
    tips: Object.fromEntries(tips.map((row) => [row.currency, [Number(row.minor), Number(row.n)]])),
  }
}

describe('rollups agree with a scan of the tables', () => {
  let t: TestApp
  let admin: Session | undefined
  const clock = testClock()
  let plans: { id: string; price_minor: number }[]

  beforeAll(async () => {
    t = await createTestApp({ clock, env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } })
    plans = await t.database.db.selectFrom('plans').select(['id', 'price_minor']).orderBy('slug').execute()
  })
  afterAll(() => t.close())

  const get = async (url: string) => {
    const response = await as(t.app, admin?.accessToken ?? '', { method: 'GET', url: `${API}${url}` })
    expect(response.statusCode, `${url} ${response.body}`).toBe(200)
    return response.json().data
  }

  /** The analytics and list totals, each beside what a scan says. */
  async function agree(moment: string) {
    // Signed in again each time: the clock moves past the access token's life.
    admin = await login(t.app, ADMIN.email, ADMIN.password)
    const now = clock.now()
    const expected = await scanned(t.database.db, now)
    const analytics = await get('/admin/analytics')
    expect(analytics.activeMembers, `${moment}: active members`).toBe(expected.activeMembers)
    expect(Math.round(analytics.mrr * 100), `${moment}: MRR`).toBe(expected.mrrMinor)
    expect(analytics.newMembers30d, `${moment}: new members`).toBe(expected.newMembers30d)
    expect(analytics.cancellations30d, `${moment}: cancellations`).toBe(expected.cancellations30d)
    const revenue = Object.fromEntries(
      (analytics.revenueByMonth as { month: string; amount: number }[])
        .filter((row) => row.amount !== 0)
        .map((row) => [row.month, Math.round(row.amount * 100)]),
    )
    expect(revenue, `${moment}: revenue by month`).toEqual(
      Object.fromEntries(Object.entries(expected.revenue).filter(([, minor]) => minor !== 0)),
    )
    expect(
      Object.fromEntries(
        (analytics.planMix as { planId: string; members: number }[]).map((row) => [row.planId, row.members]),
      ),
      `${moment}: plan mix`,
    ).toEqual(expected.planMix)
    expect(
      Object.fromEntries(
        (analytics.tips as { currency: string; amount: number; count: number }[]).map((row) => [
          row.currency,
          [Math.round(row.amount * 100), row.count],
        ]),
      ),
      `${moment}: tips`,
    ).toEqual(expected.tips)

    const db = t.database.db
    const count = async (table: 'payments' | 'subscriptions' | 'users', where = sql`true`) =>
      Number(
        (
          await sql<{ n: number }>`select count(*)::int as n from ${sql.table(table)} where ${where}`.execute(
            db,
          )
        ).rows[0]?.n,
      )
    // limit=1 so that the total has to be counted (a page that is not full tells it by itself).
    const totals: [string, number][] = [
      ['/admin/users?limit=1', await count('users')],
      ['/admin/users?limit=1&role=admin', await count('users', sql`role = 'admin'`)],
      ['/admin/subscriptions?limit=1', await count('subscriptions')],
      ['/admin/subscriptions?limit=1&status=active', await count('subscriptions', sql`status = 'active'`)],
      ['/admin/payments?limit=1', await count('payments')],
      [
        '/admin/payments?limit=1&provider=stripe&status=completed',
        await count('payments', sql`provider = 'stripe' and status = 'completed'`),
      ],
      ['/admin/payments?limit=1&search=tip', await count('payments', sql`kind = 'tip'`)],
      ['/admin/subscriptions?limit=1&search=expired', await count('subscriptions', sql`status = 'expired'`)],
      // Members by text (email, name, Discord username), and by a plan's name.
      [
        '/admin/users?limit=1&search=roll',
        await count(
          'users',
          sql`lower(email || ' ' || first_name || ' ' || last_name || ' ' || discord_username) like '%roll%'`,
        ),
      ],
      [
        '/admin/users?limit=1&search=monthly',
        await count(
          'users',
          sql`id in (select user_id from subscriptions join plans on plans.id = subscriptions.plan_id where lower(plans.name) = 'monthly')`,
        ),
      ],
    ]
    for (const [url, total] of totals)
      expect((await get(url)).pagination.total, `${moment}: ${url}`).toBe(total)
  }

  let n = 0
  async function member(daysAgo: number) {
    n += 1
    const created = new Date(clock.now().getTime() - daysAgo * DAY)
    const row = await t.database.db
      .insertInto('users')
      .values({
        email: `rollup${n}@example.com`,
        email_normalized: `rollup${n}@example.com`,
        password_hash: 'not-a-hash',
        first_name: 'Roll',
        last_name: `Up${n}`,
        discord_username: `rollup_${n}`,
        created_at: created,
      })
      .returning('id')
      .executeTakeFirstOrThrow()
    return row.id
  }

  it('after inserts, changes, refunds, expiry, deletion and time passing, every figure matches the scan', async () => {
    const db = t.database.db
    const at = (days: number) => new Date(clock.now().getTime() + days * DAY)
    const [lifetime, monthly, weekly, yearly] = plans as [
      { id: string; price_minor: number },
      { id: string; price_minor: number },
      { id: string; price_minor: number },
      { id: string; price_minor: number },
    ]
    const subscription = (userId: string, values: Record<string, unknown>) =>
      db
        .insertInto('subscriptions')
        .values({
          user_id: userId,
          plan_id: monthly.id,
          provider: 'stripe',
          status: 'active',
          start_date: at(-3),
          end_date: at(27),
          ...values,
        } as never)
        .returning('id')
        .executeTakeFirstOrThrow()
    const payment = (userId: string, values: Record<string, unknown>) =>
      db
        .insertInto('payments')
        .values({
          user_id: userId,
          plan_id: monthly.id,
          kind: 'subscription',
          provider: 'stripe',
          status: 'completed',
          amount_minor: monthly.price_minor,
          currency: 'USD',
          completed_at: at(-1),
          ...values,
        } as never)
        .returning('id')
        .executeTakeFirstOrThrow()

    const a = await member(40)
    const b = await member(10)
    const c = await member(2)
    const d = await member(1)
    await subscription(a, { start_date: at(-40), end_date: at(-10), status: 'expired', ended_at: at(-10) })
    const aNow = await subscription(a, { start_date: at(-10), end_date: at(20) })
    await subscription(b, { plan_id: weekly.id, start_date: at(-10), end_date: at(0.2) })
    await subscription(b, { plan_id: yearly.id, provider: 'admin', start_date: at(0.2), end_date: at(30) })
    const cPast = await subscription(c, { status: 'past_due', end_date: at(-1), grace_until: at(0.5) })
    await subscription(d, { plan_id: lifetime.id, provider: 'crypto', end_date: null, start_date: at(-1) })
    await payment(a, { completed_at: at(-40) })
    const aRenewal = await payment(a, { kind: 'renewal' })
    await payment(b, { kind: 'tip', plan_id: null, amount_minor: 500, currency: 'EUR' })
    const bTip = await payment(b, {
      kind: 'tip',
      plan_id: null,
      amount_minor: 700,
      status: 'pending',
      completed_at: null,
    })
    await payment(c, { provider: 'crypto', status: 'failed', completed_at: null })
    await agree('after the inserts')

    // A pending tip paid, a renewal half refunded, a cancellation, a grace period ending in the past.
    await db
      .updateTable('payments')
      .set({ status: 'completed', completed_at: at(0) })
      .where('id', '=', bTip.id)
      .execute()
    await db
      .updateTable('payments')
      .set({ status: 'partially_refunded', amount_refunded_minor: Math.floor(monthly.price_minor / 2) })
      .where('id', '=', aRenewal.id)
      .execute()
    await db
      .updateTable('subscriptions')
      .set({ cancel_at_period_end: true, cancelled_at: at(0) })
      .where('id', '=', aNow.id)
      .execute()
    await db
      .updateTable('subscriptions')
      .set({ grace_until: at(-0.1) })
      .where('id', '=', cPast.id)
      .execute()
    await agree('after the changes')

    // Across midnight and a day later: windows and "as of now" move with the clock alone.
    clock.advance(14 * HOUR)
    await agree('14 hours later')
    clock.advance(DAY)
    await agree('a day later')
    const ended = await t.app.services.access.expireEnded()
    expect(ended).toBeGreaterThan(0)
    await agree('after the expiry job')

    // A member deleted: their rows go by cascade, and with them their part of every figure.
    await db.deleteFrom('users').where('id', '=', b).execute()
    await agree('after a deletion')

    // The tallies folded into one row per key say the same.
    await t.app.services.rollups.compact()
    await agree('after compaction')
    clock.advance(40 * DAY)
    await agree('forty days later')
  })
})
