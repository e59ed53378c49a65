import pg from 'pg'
import { createAccessTokens } from '../../apps/api/src/modules/auth/access-tokens'
import { atMost, type Figure, figure } from '../lib/figures'
import type { Section } from '../lib/section'
import { benchJwtSecret, startApp } from '../lib/servers'
import { clientAddress, envNumber, percentile } from '../lib/util'

/**
 * Every list, search and sort the admin console asks for, on the big dataset, one request at a time
 * through the real server: p95 of BENCH_ADMIN_RUNS (20) runs after one unmeasured warm-up, fewer
 * when a query is so slow that its BENCH_ADMIN_BUDGET_S (10 s) runs out first (at least 3).
 * Variants of a query (search terms, members) rotate between runs so no single cached answer wins.
 * A request with no answer after BENCH_ADMIN_TIMEOUT_S (30 s) counts as that long, and its
 * statements are cancelled in the dataset's database so they do not weigh on the next query.
 *
 * BENCH_EXPLAIN=1 loads auto_explain into the app's connections to the big database for this
 * section: every statement slower than 50 ms has its EXPLAIN ANALYZE written to the PostgreSQL
 * server log (/var/log/postgresql/ on Debian). Timing every node slows the queries a little.
 */
type AdminQuery = { label: string; urls: string[]; goalMs?: number }

function adminQueries(memberIds: string[]): AdminQuery[] {
  const q = (label: string, ...urls: string[]): AdminQuery => ({ label, urls })
  const emailFragments = ['4242@', 'son77123', 'garcia9012', '.kim31']
  const nameFragments = ['maria gar', 'ingrid', 'kowalski', 'ann']
  const details = memberIds.slice(0, 20).map((id) => `/admin/users/${id}`)
  return [
    // Members
    q('users: newest (default)', '/admin/users'),
    q('users: by email', '/admin/users?sortBy=email&sortOrder=asc'),
    q('users: by name', '/admin/users?sortBy=name&sortOrder=asc'),
    q('users: oldest, page 200', '/admin/users?sortBy=createdAt&sortOrder=asc&page=200'),
    q('users: by email, page 200', '/admin/users?sortBy=email&sortOrder=asc&page=200'),
    q('users: by name desc, page 200', '/admin/users?sortBy=name&sortOrder=desc&page=200'),
    q('users: admins', '/admin/users?role=admin'),
    q(
      'users: search email fragment',
      ...emailFragments.map((t) => `/admin/users?search=${encodeURIComponent(t)}`),
    ),
    q(
      'users: search name fragment',
      ...nameFragments.map((t) => `/admin/users?search=${encodeURIComponent(t)}`),
    ),
    q('users: search plan name', '/admin/users?search=lifetime'),
    q('users: search, by name, page 2', '/admin/users?search=ann&sortBy=name&sortOrder=asc&page=2'),
    q('users: one member', ...details),
    // Subscriptions
    q('subscriptions: newest (default)', '/admin/subscriptions'),
    q('subscriptions: by start', '/admin/subscriptions?sortBy=startDate'),
    q('subscriptions: by end', '/admin/subscriptions?sortBy=endDate'),
    q('subscriptions: by status', '/admin/subscriptions?sortBy=status'),
    q('subscriptions: by end asc, page 200', '/admin/subscriptions?sortBy=endDate&sortOrder=asc&page=200'),
    q('subscriptions: active', '/admin/subscriptions?status=active'),
    q(
      'subscriptions: active, ending first',
      '/admin/subscriptions?status=active&sortBy=endDate&sortOrder=asc',
    ),
    q('subscriptions: past due', '/admin/subscriptions?status=past_due'),
    q('subscriptions: cancelled', '/admin/subscriptions?status=cancelled'),
    q('subscriptions: expired, page 200', '/admin/subscriptions?status=expired&page=200'),
    q(
      'subscriptions: search member',
      ...emailFragments.map((t) => `/admin/subscriptions?search=${encodeURIComponent(t)}`),
    ),
    // Payments
    q('payments: newest (default)', '/admin/payments'),
    q('payments: by amount', '/admin/payments?sortBy=amount'),
    q('payments: by status', '/admin/payments?sortBy=status'),
    q('payments: oldest, page 200', '/admin/payments?sortBy=createdAt&sortOrder=asc&page=200'),
    q('payments: by amount asc, page 200', '/admin/payments?sortBy=amount&sortOrder=asc&page=200'),
    q('payments: card', '/admin/payments?provider=stripe'),
    q('payments: crypto', '/admin/payments?provider=crypto'),
    q('payments: admin grants', '/admin/payments?provider=admin'),
    q('payments: crypto by amount', '/admin/payments?provider=crypto&sortBy=amount'),
    q('payments: completed', '/admin/payments?status=completed'),
    q('payments: pending', '/admin/payments?status=pending'),
    q('payments: failed', '/admin/payments?status=failed'),
    q('payments: refunded', '/admin/payments?status=refunded'),
    q('payments: partially refunded', '/admin/payments?status=partially_refunded'),
    q('payments: cancelled', '/admin/payments?status=cancelled'),
    q('payments: crypto pending', '/admin/payments?provider=crypto&status=pending'),
    q(
      'payments: search member',
      ...emailFragments.map((t) => `/admin/payments?search=${encodeURIComponent(t)}`),
    ),
    q('payments: search kind', '/admin/payments?search=tip'),
    // Audit log and plans
    q('audit: newest', '/admin/audit'),
    q('audit: page 200', '/admin/audit?page=200'),
    q('audit: one member', ...memberIds.slice(0, 10).map((id) => `/admin/audit?targetId=${id}`)),
    q('plans', '/admin/plans?includeArchived=false&sortBy=sortOrder&sortOrder=asc'),
    { label: 'analytics', urls: ['/admin/analytics'], goalMs: 100 },
  ]
}

/** 1000000 → "1M", 100000 → "100k": the dataset's size as BENCH_MEMBERS and BENCH_PAYMENTS set it. */
const short = (n: number) => (n >= 1e6 ? `${n / 1e6}M` : n >= 1e3 ? `${n / 1e3}k` : String(n))

export const adminSection: Section = {
  name: 'admin',
  aliases: ['lists'],
  title: `admin lists, searches, sorts and analytics, ${short(envNumber('BENCH_MEMBERS', 1_000_000))} members / ${short(envNumber('BENCH_PAYMENTS', 10_000_000))} payments`,
  async run({ dataset, log }) {
    const data = await dataset()
    const runs = envNumber('BENCH_ADMIN_RUNS', 20)
    const budgetMs = envNumber('BENCH_ADMIN_BUDGET_S', 10) * 1000
    const token = await createAccessTokens(benchJwtSecret).sign({
      userId: data.admin.userId,
      role: 'admin',
      sessionId: data.admin.sessionId,
    })
    const explain = process.env.BENCH_EXPLAIN === '1'
    if (explain) await autoExplain(data.databaseUrl, true)
    const app = await startApp({ databaseUrl: data.databaseUrl })
    const figures: Figure[] = []
    const details: Record<string, unknown> = {}
    let request = 0
    const timeoutMs = envNumber('BENCH_ADMIN_TIMEOUT_S', 30) * 1000
    const get = async (url: string): Promise<{ ms: number; body: string } | 'timeout'> => {
      const started = performance.now()
      let response: Response
      try {
        response = await fetch(`${app.url}/discord/api${url}`, {
          headers: { authorization: `Bearer ${token}`, 'x-forwarded-for': clientAddress(request++ % 5000) },
          signal: AbortSignal.timeout(timeoutMs),
        })
      } catch (error) {
        if (error instanceof DOMException && error.name === 'TimeoutError') {
          // The server keeps running the statement after the client gave up: stop it, or it would
          // slow every query measured after it.
          await cancelRunning(data.databaseUrl)
          return 'timeout'
        }
        throw error
      }
      const body = await response.text()
      const ms = performance.now() - started
      if (response.status !== 200) throw new Error(`${url}: ${response.status} ${body.slice(0, 300)}`)
      return { ms, body }
    }
    try {
      for (const query of adminQueries(data.members.map((m) => m.userId))) {
        const firstUrl = query.urls[0]!
        const warm = await get(firstUrl)
        if (warm === 'timeout') {
          log(`${query.label}: over ${timeoutMs / 1000} s, cancelled`)
          figures.push(
            figure(`admin.${query.label}`, query.label, timeoutMs, {
              unit: 'ms',
              goal: atMost(query.goalMs ?? 50),
              note: `timed out: no answer within ${timeoutMs / 1000} s (the statement was cancelled)`,
            }),
          )
          details[query.label] = { urls: query.urls, timedOut: true }
          continue
        }
        const times: number[] = []
        const started = performance.now()
        for (let i = 0; i < runs; i++) {
          if (i >= 3 && performance.now() - started > budgetMs) break
          const result = await get(query.urls[i % query.urls.length]!)
          times.push(result === 'timeout' ? timeoutMs : result.ms)
        }
        const p95 = Math.round(percentile(times, 95))
        const p50 = Math.round(percentile(times, 50))
        const total = /"total":(\d+)/.exec(warm.body)?.[1]
        log(`${query.label}: p95 ${p95} ms`)
        figures.push(
          figure(`admin.${query.label}`, query.label, p95, {
            unit: 'ms',
            goal: atMost(query.goalMs ?? 50),
            note: `p50 ${p50} ms, ${times.length} runs, first ${Math.round(warm.ms)} ms${total ? `, ${total} rows match` : ''}`,
          }),
        )
        details[query.label] = {
          urls: query.urls,
          times: times.map(Math.round),
          firstMs: Math.round(warm.ms),
        }
      }
    } finally {
      await app.stop()
      if (explain) await autoExplain(data.databaseUrl, false)
    }
    return {
      figures,
      details,
      ...(explain ? { notes: ['plans of statements over 50 ms are in the PostgreSQL server log'] } : {}),
    }
  },
}

/** Turns auto_explain on (or off) for new connections to the dataset's database. */
async function autoExplain(databaseUrl: string, on: boolean) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const { rows } = await client.query<{ db: string }>('select current_database() as db')
    const db = rows[0]!.db
    const settings = {
      session_preload_libraries: 'auto_explain',
      'auto_explain.log_min_duration': '50ms',
      'auto_explain.log_analyze': 'on',
      'auto_explain.log_buffers': 'on',
    }
    for (const [name, value] of Object.entries(settings)) {
      await client.query(
        on ? `alter database ${db} set ${name} = '${value}'` : `alter database ${db} reset ${name}`,
      )
    }
  } finally {
    await client.end()
  }
}

/** Cancels the statements still running in the dataset's database (only the bench uses it). */
async function cancelRunning(databaseUrl: string) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    await client.query(
      `select pg_cancel_backend(pid) from pg_stat_activity
       where datname = current_database() and state = 'active' and pid <> pg_backend_pid()`,
    )
  } finally {
    await client.end()
  }
}
