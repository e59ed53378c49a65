import { createHmac, randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BillingHarness, createBillingHarness, eventually } from './helpers/billing'
import { openEventStream } from './helpers/event-stream'
import { register } from './helpers/members'
import { freePort } from './helpers/server-process'
import { createTestApp } from './helpers/test-app'

/**
 * GET /metrics (Prometheus text format): behind METRICS_TOKEN on the app's port, or on a listener of
 * its own (METRICS_PORT); absent when neither is set.
 */

const TOKEN = 'metrics-token-for-tests-0123456789'

/** The value of one series, or undefined when it is not exposed. */
function seriesValue(text: string, series: string): number | undefined {
  const line = text.split('\n').find((candidate) => candidate.startsWith(`${series} `))
  return line === undefined ? undefined : Number(line.slice(series.length + 1))
}

describe('metrics behind METRICS_TOKEN', () => {
  let h: BillingHarness
  let origin: string

  beforeAll(async () => {
    // Mail goes to a port nobody listens on, so mail jobs fail and are retried.
    const deadSmtp = `smtp://127.0.0.1:${await freePort()}`
    h = await createBillingHarness({ crypto: true, env: { METRICS_TOKEN: TOKEN, SMTP_URL: deadSmtp } })
    origin = new URL(h.webhookUrl).origin
  })
  afterAll(async () => {
    await h?.close()
  })

  const scrape = async () => {
    const response = await fetch(`${origin}/metrics`, { headers: { authorization: `Bearer ${TOKEN}` } })
    expect(response.status).toBe(200)
    expect(response.headers.get('content-type')).toContain('text/plain')
    return response.text()
  }

  it('refuses a scrape without the token or with another one, and is not in the API documentation', async () => {
    const bare = await fetch(`${origin}/metrics`)
    expect(bare.status).toBe(401)
    expect(bare.headers.get('www-authenticate')).toBe('Bearer')
    expect(await bare.json()).toMatchObject({ success: false, error: 'UNAUTHORIZED' })
    const wrong = await fetch(`${origin}/metrics`, {
      headers: { authorization: 'Bearer not-the-token-at-all' },
    })
    expect(wrong.status).toBe(401)
    const spec = (await (await fetch(`${origin}/discord/api/openapi.json`)).json()) as { paths: object }
    expect(Object.keys(spec.paths)).not.toContain('/metrics')
  })

  it('counts requests and their latency by route pattern and status, never by raw URL', async () => {
    for (let index = 0; index < 3; index++) await fetch(`${origin}/discord/api/subscriptions/plans`)
    await fetch(`${origin}/discord/api/no-such-route-${randomUUID()}`)
    const text = await scrape()
    const plans = 'method="GET",route="/discord/api/subscriptions/plans",status="200"'
    expect(seriesValue(text, `edgeclub_http_requests_total{${plans}}`)).toBe(3)
    expect(seriesValue(text, `edgeclub_http_request_duration_seconds_count{${plans}}`)).toBe(3)
    expect(text).not.toContain('no-such-route')
    expect(text).toMatch(/edgeclub_http_requests_total\{method="GET",route="[^"]*",status="404"\} 1/)
    // Node's own figures come along (memory, event loop).
    expect(text).toContain('process_resident_memory_bytes')
  })

  it('reports queue depth, the oldest waiting job and failed attempts per queue', async () => {
    const member = await register(h.t.app)
    await h.t.app.inject({
      method: 'POST',
      url: '/discord/api/auth/forgot-password',
      payload: { email: member.user.email },
    })
    const failed = 'edgeclub_job_attempts_total{queue="auth.password-reset",outcome="failed"}'
    const waiting = 'edgeclub_job_queue_waiting{queue="auth.password-reset"}'
    // The attempt is counted as it throws, a moment before the runner stores the retry: a scrape in
    // between sees the job still running. So wait for both: the failed attempt, then the reset mail
    // waiting for its retry (10 s away).
    const text = await eventually(
      scrape,
      (scraped) => (seriesValue(scraped, failed) ?? 0) >= 1 && (seriesValue(scraped, waiting) ?? 0) >= 1,
      20_000,
    )
    // Every queue is listed, empty ones at 0.
    expect(seriesValue(text, 'edgeclub_job_queue_waiting{queue="signals.discord"}')).toBe(0)
    expect(seriesValue(text, 'edgeclub_job_queue_oldest_waiting_seconds{queue="signals.discord"}')).toBe(0)
    expect(seriesValue(text, 'edgeclub_job_queue_failed{queue="email"}')).toBe(0)
    expect(seriesValue(text, 'edgeclub_database_up')).toBe(1)
  })

  it('measures webhook lag from the event’s creation to its application, per provider', async () => {
    const created = Math.floor(Date.now() / 1000) - 45
    const stripeEvent = JSON.stringify({
      id: `evt_metrics_${randomUUID().slice(0, 8)}`,
      object: 'event',
      type: 'customer.created',
      created,
      data: { object: { id: 'cus_metrics', object: 'customer' } },
    })
    const stripeAnswer = await fetch(h.webhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'stripe-signature': h.stripe.webhooks.generateTestHeaderString({
          payload: stripeEvent,
          secret: h.emulator.stripe.webhookSecret,
        }),
      },
      body: stripeEvent,
    })
    expect(stripeAnswer.status).toBe(200)
    const btcpayEvent = JSON.stringify({
      deliveryId: `metrics-${randomUUID()}`,
      type: 'StoreCreated',
      timestamp: Math.floor(Date.now() / 1000) - 5,
    })
    const btcpayAnswer = await fetch(h.btcpayWebhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'btcpay-sig': `sha256=${createHmac('sha256', h.emulator.btcpay.webhookSecret).update(btcpayEvent).digest('hex')}`,
      },
      body: btcpayEvent,
    })
    expect(btcpayAnswer.status).toBe(200)

    const text = await scrape()
    expect(seriesValue(text, 'edgeclub_webhook_lag_seconds_count{provider="stripe"}')).toBe(1)
    expect(seriesValue(text, 'edgeclub_webhook_lag_seconds_bucket{le="30",provider="stripe"}')).toBe(0)
    expect(seriesValue(text, 'edgeclub_webhook_lag_seconds_bucket{le="60",provider="stripe"}')).toBe(1)
    expect(seriesValue(text, 'edgeclub_webhook_lag_seconds_bucket{le="2",provider="btcpay"}')).toBe(0)
    expect(seriesValue(text, 'edgeclub_webhook_lag_seconds_bucket{le="10",provider="btcpay"}')).toBe(1)
  })

  it('counts live-signal streams and open reconciliation findings', async () => {
    const member = await register(h.t.app)
    const before = seriesValue(await scrape(), 'edgeclub_live_stream_connections') ?? -1
    const stream = await openEventStream(`${origin}/discord/api/signals/stream`, member.accessToken)
    try {
      expect(seriesValue(await scrape(), 'edgeclub_live_stream_connections')).toBe(before + 1)
    } finally {
      stream.close()
    }
    await h.t.database.db
      .insertInto('reconciliation_issues')
      .values({ rail: 'card', object_id: `pi_metrics_${randomUUID()}`, kind: 'unmatched', detail: 'test' })
      .execute()
    expect(
      seriesValue(await scrape(), 'edgeclub_reconciliation_open_findings{rail="card",kind="unmatched"}'),
    ).toBe(1)
  })
})

describe('metrics on a listener of their own (METRICS_PORT)', () => {
  it('serves GET /metrics there only, and nothing is collected without either setting', async () => {
    const port = await freePort()
    const t = await createTestApp({ env: { METRICS_PORT: String(port) } })
    try {
      expect((await t.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404)
      await t.app.inject({ method: 'GET', url: '/discord/api/subscriptions/plans' })
      const response = await fetch(`http://127.0.0.1:${port}/metrics`)
      expect(response.status).toBe(200)
      expect(await response.text()).toContain(
        'edgeclub_http_requests_total{method="GET",route="/discord/api/subscriptions/plans",status="200"} 1',
      )
      expect((await fetch(`http://127.0.0.1:${port}/other`)).status).toBe(404)
    } finally {
      await t.close()
    }
    await expect(fetch(`http://127.0.0.1:${port}/metrics`)).rejects.toThrow()

    const plain = await createTestApp()
    try {
      expect((await plain.app.inject({ method: 'GET', url: '/metrics' })).statusCode).toBe(404)
      expect(plain.app.metrics).toBeNull()
    } finally {
      await plain.close()
    }
  })
})
