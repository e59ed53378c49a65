import pg from 'pg'
import { buildApp } from '../apps/api/src/app'
import { loadConfig } from '../apps/api/src/config'
import { openDatabase } from '../apps/api/src/db/database'
import { migrateToLatest } from '../apps/api/src/db/migrate'
import { seedPlans } from '../apps/api/src/db/seed'
import { percentile, tempDir } from './util'

/** The admin lists at 100,000 members and 1,000,000 payments on PostgreSQL: p95 per query (issue 6). */
export async function benchLists(serverUrl: string) {
  const name = 'edgeclub_bench'
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  await admin.query(`drop database if exists ${name} with (force)`)
  await admin.query(`create database ${name}`)
  await admin.end()
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  const databaseUrl = url.toString()

  const started = Date.now()
  const database = await openDatabase({ databaseUrl })
  await migrateToLatest(database.db)
  await seedPlans(database.db)
  await database.close()
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  await client.query(`insert into users (email, email_normalized, password_hash, first_name, last_name, discord_username, created_at)
    select 'member' || g || '@example.com', 'member' || g || '@example.com', 'x', 'First' || g, 'Last' || (g % 5000), 'disc_' || g,
      now() - (g || ' minutes')::interval
    from generate_series(1, 100000) g`)
  await client.query(`with u as (select id, row_number() over (order by id) as rn from users),
      p as (select id, price_minor, interval, row_number() over (order by sort_order) as rn from plans)
    insert into subscriptions (user_id, plan_id, provider, status, start_date, end_date, created_at)
    select u.id, p.id, 'stripe', case when u.rn % 3 = 0 then 'expired' else 'active' end,
      now() - interval '20 days', case when p.interval = 'lifetime' then null else now() + ((u.rn % 300) || ' days')::interval end,
      now() - ((u.rn % 700) || ' days')::interval
    from u join p on p.rn = (u.rn % 4) + 1`)
  await client.query(`with u as (select id, row_number() over (order by id) as rn from users),
      p as (select id, price_minor, row_number() over (order by sort_order) as rn from plans)
    insert into payments (user_id, plan_id, kind, provider, status, amount_minor, currency, created_at, completed_at)
    select u.id, p.id, case when g % 10 = 0 then 'subscription' else 'renewal' end,
      case when g % 25 = 0 then 'crypto' else 'stripe' end,
      case when g % 20 = 0 then 'failed' else 'completed' end, p.price_minor, 'USD',
      now() - ((g % 730) || ' days')::interval, now() - ((g % 730) || ' days')::interval
    from generate_series(1, 1000000) g
    join u on u.rn = (g % 100000) + 1
    join p on p.rn = (g % 4) + 1`)
  await client.query('analyze')
  await client.end()
  const seedSeconds = Math.round((Date.now() - started) / 1000)

  const config = loadConfig({
    NODE_ENV: 'production',
    JWT_SECRET: 'z'.repeat(40),
    DATA_DIR: await tempDir(),
    DATABASE_URL: databaseUrl,
    LOG_LEVEL: 'warn',
    ADMIN_EMAIL: 'bench@edgeclub.test',
    ADMIN_PASSWORD: 'Bench$Admin123',
  })
  config.limits.globalPerMinute = 10_000_000
  config.limits.auth.loginPer15Min = 1000
  const app = await buildApp(config)
  try {
    const login = await app.inject({
      method: 'POST',
      url: '/discord/api/auth/login',
      payload: { email: 'bench@edgeclub.test', password: 'Bench$Admin123' },
    })
    const token = login.json().data.tokens.accessToken as string
    const queries: Record<string, string[]> = {
      'users: newest': ['/admin/users?limit=20'],
      'users: search email': [
        '/admin/users?search=member4242',
        '/admin/users?search=member77',
        '/admin/users?search=member9',
      ],
      'users: sort by name, page 200': ['/admin/users?sortBy=name&sortOrder=asc&page=200&limit=50'],
      'subscriptions: active, newest': ['/admin/subscriptions?status=active&limit=20'],
      'payments: newest': ['/admin/payments?limit=20'],
      'payments: crypto, by amount': ['/admin/payments?provider=crypto&sortBy=amount&limit=20'],
      'payments: search member': ['/admin/payments?search=member4242&limit=20'],
      analytics: ['/admin/analytics'],
    }
    const results: Record<string, { p50: number; p95: number }> = {}
    for (const [label, urls] of Object.entries(queries)) {
      const times: number[] = []
      for (let i = 0; i < 20; i++) {
        const url = urls[i % urls.length]!
        const start = performance.now()
        const response = await app.inject({
          method: 'GET',
          url: `/discord/api${url}`,
          headers: { authorization: `Bearer ${token}` },
        })
        times.push(performance.now() - start)
        if (response.statusCode !== 200)
          throw new Error(`${url}: ${response.statusCode} ${response.body.slice(0, 200)}`)
      }
      results[label] = { p50: Math.round(percentile(times, 50)), p95: Math.round(percentile(times, 95)) }
    }
    return {
      scale: '100,000 members, 100,000 subscriptions, 1,000,000 payments (PostgreSQL)',
      seedSeconds,
      milliseconds: results,
    }
  } finally {
    await app.close()
  }
}
