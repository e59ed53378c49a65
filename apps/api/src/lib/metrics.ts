import { sql } from 'kysely'
import { Counter, collectDefaultMetrics, Gauge, Histogram, Registry } from 'prom-client'
import type { Database } from '../db/database'

/**
 * The Prometheus metrics of one app instance (GET /metrics, plugins/metrics.ts). What happens in this
 * process (requests, job attempts, webhook lag, live streams, pool use) is counted here as it happens;
 * what belongs to the whole deployment (queue depth, the oldest waiting job, jobs that failed for good,
 * open reconciliation findings) is read from the database at scrape time, so every instance reports
 * the same figure for it: aggregate those with max(), not sum().
 */

export type WebhookProvider = 'stripe' | 'btcpay'

export interface Metrics {
  /** One answered request: its route pattern (never the raw URL), method, status and duration. */
  observeRequest(method: string, route: string, status: number, seconds: number): void
  /** A webhook applied: how long after the provider created the event (its own timestamp, seconds). */
  webhookApplied(provider: WebhookProvider, createdAtSeconds: number | undefined): void
  /** One attempt of a job finished. */
  jobAttempt(queue: string, outcome: 'completed' | 'failed'): void
  /** The exposition text, after reading the deployment-wide figures from the database. */
  render(): Promise<{ contentType: string; body: string }>
}

export interface MetricsSources {
  database: Database
  /** Open live-signal streams (server-sent events) of this instance. */
  liveStreams: () => number
  /** How long the scrape may wait on the database before it reports without those figures. */
  databaseTimeoutMs?: number
}

const PREFIX = 'edgeclub_'

export function createMetrics(sources: MetricsSources): Metrics {
  const registry = new Registry()
  collectDefaultMetrics({ register: registry })
  const registers = [registry]

  const requests = new Counter({
    name: `${PREFIX}http_requests_total`,
    help: 'HTTP requests answered, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    registers,
  })
  const latency = new Histogram({
    name: `${PREFIX}http_request_duration_seconds`,
    help: 'Time to answer an HTTP request, by method, route pattern and status code.',
    labelNames: ['method', 'route', 'status'] as const,
    buckets: [0.005, 0.01, 0.025, 0.05, 0.1, 0.25, 0.5, 1, 2.5, 5, 10],
    registers,
  })
  const webhookLag = new Histogram({
    name: `${PREFIX}webhook_lag_seconds`,
    help: "From a provider's event (its own creation time) to the moment this app applied it.",
    labelNames: ['provider'] as const,
    buckets: [0.5, 1, 2, 5, 10, 30, 60, 300, 900, 3600, 21_600, 86_400],
    registers,
  })
  const jobAttempts = new Counter({
    name: `${PREFIX}job_attempts_total`,
    help: 'Job attempts this instance finished, by queue and outcome (failed attempts are retried while tries are left).',
    labelNames: ['queue', 'outcome'] as const,
    registers,
  })
  new Gauge({
    name: `${PREFIX}live_stream_connections`,
    help: 'Open live-signal streams (server-sent events) on this instance.',
    registers,
    collect() {
      this.set(sources.liveStreams())
    },
  })
  const poolConnections = new Gauge({
    name: `${PREFIX}db_pool_connections`,
    help: 'PostgreSQL pool connections of this instance: open (total), idle, and callers waiting for one.',
    labelNames: ['pool', 'state'] as const,
    registers,
  })
  const poolMax = new Gauge({
    name: `${PREFIX}db_pool_max_connections`,
    help: 'The most connections each PostgreSQL pool of this instance opens.',
    labelNames: ['pool'] as const,
    registers,
  })
  const databaseUp = new Gauge({
    name: `${PREFIX}database_up`,
    help: 'Whether the scrape could read the deployment-wide figures from the database (1) or not (0).',
    registers,
  })
  const queueWaiting = new Gauge({
    name: `${PREFIX}job_queue_waiting`,
    help: 'Jobs waiting to run now or later (created or to be retried), by queue. Deployment-wide.',
    labelNames: ['queue'] as const,
    registers,
  })
  const queueActive = new Gauge({
    name: `${PREFIX}job_queue_active`,
    help: 'Jobs running, by queue. Deployment-wide.',
    labelNames: ['queue'] as const,
    registers,
  })
  const queueOldest = new Gauge({
    name: `${PREFIX}job_queue_oldest_waiting_seconds`,
    help: 'How long the job that has been due the longest has waited to start, by queue (0 when none is due). Deployment-wide.',
    labelNames: ['queue'] as const,
    registers,
  })
  const queueFailed = new Gauge({
    name: `${PREFIX}job_queue_failed`,
    help: 'Jobs that used up their tries, kept 7 days, by queue. Deployment-wide.',
    labelNames: ['queue'] as const,
    registers,
  })
  const findings = new Gauge({
    name: `${PREFIX}reconciliation_open_findings`,
    help: 'Open findings of the reconciliation sweep (money a processor holds that the ledger cannot place), by rail and kind. Deployment-wide.',
    labelNames: ['rail', 'kind'] as const,
    registers,
  })

  const timeoutMs = sources.databaseTimeoutMs ?? 2_000

  async function readDatabase(): Promise<void> {
    const db = sources.database.db
    const [queues, open] = await Promise.all([
      sql<{ queue: string; waiting: number; active: number; failed: number; oldest: number }>`
        select q.name as queue,
          count(j.id) filter (where j.state in ('created', 'retry'))::int as waiting,
          count(j.id) filter (where j.state = 'active')::int as active,
          count(j.id) filter (where j.state = 'failed')::int as failed,
          coalesce(extract(epoch from now() - min(j.start_after)
            filter (where j.state in ('created', 'retry') and j.start_after <= now())), 0)::float8 as oldest
        from pgboss.queue q
        left join pgboss.job j on j.name = q.name and j.state in ('created', 'retry', 'active', 'failed')
        group by q.name`.execute(db),
      sql<{ rail: string; kind: string; open: number }>`
        select rail, kind, count(*)::int as open from reconciliation_issues
        where resolved_at is null group by rail, kind`.execute(db),
    ])
    for (const gauge of [queueWaiting, queueActive, queueOldest, queueFailed, findings]) gauge.reset()
    for (const row of queues.rows) {
      queueWaiting.set({ queue: row.queue }, row.waiting)
      queueActive.set({ queue: row.queue }, row.active)
      queueFailed.set({ queue: row.queue }, row.failed)
      queueOldest.set({ queue: row.queue }, Math.max(0, row.oldest))
    }
    for (const row of open.rows) findings.set({ rail: row.rail, kind: row.kind }, row.open)
  }

  return {
    observeRequest(method, route, status, seconds) {
      const labels = { method, route, status: String(status) }
      requests.inc(labels)
      latency.observe(labels, seconds)
    },
    webhookApplied(provider, createdAtSeconds) {
      if (createdAtSeconds === undefined || !Number.isFinite(createdAtSeconds)) return
      webhookLag.observe({ provider }, Math.max(0, Date.now() / 1000 - createdAtSeconds))
    },
    jobAttempt(queue, outcome) {
      jobAttempts.inc({ queue, outcome })
    },
    async render() {
      let timer: NodeJS.Timeout | undefined
      try {
        await Promise.race([
          readDatabase(),
          new Promise((_resolve, reject) => {
            timer = setTimeout(() => reject(new Error('timeout')), timeoutMs)
          }),
        ])
        databaseUp.set(1)
      } catch {
        // The figures read from the database are left out rather than reported stale.
        for (const gauge of [queueWaiting, queueActive, queueOldest, queueFailed, findings]) gauge.reset()
        databaseUp.set(0)
      } finally {
        clearTimeout(timer)
      }
      poolConnections.reset()
      poolMax.reset()
      for (const use of sources.database.poolUse()) {
        poolConnections.set({ pool: use.pool, state: 'total' }, use.total)
        poolConnections.set({ pool: use.pool, state: 'idle' }, use.idle)
        poolConnections.set({ pool: use.pool, state: 'waiting' }, use.waiting)
        poolMax.set({ pool: use.pool }, use.max)
      }
      return { contentType: registry.contentType, body: await registry.metrics() }
    },
  }
}
