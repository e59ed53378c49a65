import { createHmac } from 'node:crypto'
import Stripe from 'stripe'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Emulator, startEmulator } from '../src/server'
import { type StripeWebhookReceiver, startStripeWebhookReceiver } from './stripe-webhook-receiver'

/**
 * Webhook delivery as the app's endpoint sees it (signed, retried, paused, duplicated, reordered),
 * injected API faults as the SDK sees them, and the /_control/stripe routes other processes use.
 */

const WEBHOOK_SECRET = 'whsec_webhook_tests'

let emulator: Emulator
let stripe: Stripe
let receiver: StripeWebhookReceiver

function client(options: Stripe.StripeConfig = {}): Stripe {
  return new Stripe(emulator.stripe.secretKey, {
    host: '127.0.0.1',
    port: new URL(emulator.url).port,
    protocol: 'http',
    maxNetworkRetries: 0,
    ...options,
  })
}

async function control(method: string, path: string, body?: unknown): Promise<Record<string, unknown>> {
  const response = await fetch(`${emulator.url}/_control/stripe${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    ...(body === undefined ? {} : { body: JSON.stringify(body) }),
  })
  expect(response.status).toBe(200)
  return (await response.json()) as Record<string, unknown>
}

beforeAll(async () => {
  // No webhook URL at start: the app starts after the emulator in dev.
  emulator = await startEmulator({ stripe: { webhookSecret: WEBHOOK_SECRET, webhookRetryDelayMs: 20 } })
  stripe = client()
  receiver = await startStripeWebhookReceiver(stripe, WEBHOOK_SECRET)
})

afterAll(async () => {
  await emulator?.close()
  await receiver?.close()
})

beforeEach(async () => {
  emulator.stripe.setWebhookUrl(receiver.url)
  emulator.stripe.resumeWebhooks()
  await emulator.stripe.flushWebhooks()
  emulator.stripe.reset()
  emulator.stripe.configureWebhooks({ retryDelayMs: 20, maxAttempts: 4 })
  receiver.reset()
})

describe('webhook delivery', () => {
  it('signs every event as Stripe does, so constructEvent accepts it', async () => {
    const customer = await stripe.customers.create({ email: 'hook@example.com' })
    await receiver.waitFor((received) => received.some((r) => r.event.type === 'customer.created'))
    const { event, signature } = receiver.received[0] as (typeof receiver.received)[number]
    expect(receiver.rejected).toEqual([])
    expect(event).toMatchObject({
      object: 'event',
      type: 'customer.created',
      api_version: '2026-10-28.endive',
      livemode: false,
      pending_webhooks: 1,
      data: { object: { id: customer.id, object: 'customer', email: 'hook@example.com' } },
    })
    expect(event.id).toMatch(/^evt_/)
    expect(event.request?.id).toMatch(/^req_/)
    expect(event.request?.idempotency_key).toMatch(/^stripe-node-retry-/)
    expect(signature).toMatch(/^t=\d+,v1=[0-9a-f]{64}$/)

    // The same event is retrievable from the API, with the delivery counted.
    const stored = await stripe.events.retrieve(event.id)
    expect(stored.data.object).toMatchObject({ id: customer.id })
    expect(stored.pending_webhooks).toBe(0)

    // A receiver with another secret rejects it, so the signature is real.
    const [t, v1] = signature.split(',').map((part) => part.split('=')[1])
    const body = JSON.stringify(event, null, 2)
    const wrong = createHmac('sha256', 'whsec_other').update(`${t}.${body}`).digest('hex')
    expect(v1).not.toBe(wrong)
  })

  it('delivers in order of creation and retries a failed delivery with backoff', async () => {
    receiver.respondWith(500, 503)
    await stripe.customers.create({ email: 'one@example.com' })
    await stripe.customers.create({ email: 'two@example.com' })
    await emulator.stripe.flushWebhooks()

    const deliveries = emulator.stripe.deliveries()
    expect(deliveries.map((d) => d.status)).toEqual([500, 503, 200, 200])
    const first = deliveries[0]?.eventId
    const second = deliveries[1]?.eventId
    expect(deliveries.filter((d) => d.eventId === first).map((d) => d.attempt)).toEqual([1, 2])
    // The first attempts go out in order of creation.
    const created = emulator.stripe.events().map((e) => e.id)
    expect([first, second]).toEqual(created)
    expect(
      receiver.received
        .filter((r) => r.status === 200)
        .map((r) => r.event.id)
        .sort(),
    ).toEqual([...created].sort())
  })

  it('gives up after the configured number of attempts, and counts network errors as failures', async () => {
    emulator.stripe.configureWebhooks({ maxAttempts: 2 })
    receiver.respondWith(500, 500)
    await stripe.customers.create({})
    await emulator.stripe.flushWebhooks()
    expect(emulator.stripe.deliveries().map((d) => d.status)).toEqual([500, 500])
    expect(emulator.stripe.state().webhooks.pending).toBe(0)

    emulator.stripe.setWebhookUrl('http://127.0.0.1:9/unreachable')
    await stripe.customers.create({})
    await emulator.stripe.flushWebhooks()
    const failed = emulator.stripe.deliveries().slice(2)
    expect(failed).toHaveLength(2)
    expect(failed.every((d) => d.status === null && !d.ok && typeof d.error === 'string')).toBe(true)
  })

  it('holds deliveries while paused, then flushes them, newest first on request', async () => {
    emulator.stripe.pauseWebhooks()
    const a = await stripe.customers.create({ email: 'a@example.com' })
    const b = await stripe.customers.create({ email: 'b@example.com' })
    const c = await stripe.customers.create({ email: 'c@example.com' })
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(receiver.received).toHaveLength(0)
    expect(emulator.stripe.state().webhooks).toMatchObject({ paused: true, pending: 3 })

    const deliveries = await emulator.stripe.deliverReversed()
    expect(deliveries).toHaveLength(3)
    const order = receiver.received.map((r) => (r.event.data.object as Stripe.Customer).id)
    expect(order).toEqual([c.id, b.id, a.id])

    // Still paused for new events until resumed.
    await stripe.customers.create({})
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(receiver.received).toHaveLength(3)
    emulator.stripe.resumeWebhooks()
    await receiver.waitFor((received) => received.length === 4)
  })

  it('duplicates an event delivery, as Stripe may deliver an event more than once', async () => {
    emulator.stripe.duplicateNextEvent(2, 'customer.created')
    await stripe.customers.create({})
    await emulator.stripe.flushWebhooks()
    const ids = receiver.received.map((r) => r.event.id)
    expect(ids).toHaveLength(3)
    expect(new Set(ids).size).toBe(1)

    emulator.stripe.duplicateEvent(ids[0] as string, 1)
    await emulator.stripe.flushWebhooks()
    expect(receiver.received).toHaveLength(4)
  })

  it('emits the payment, invoice and subscription events the app handles', async () => {
    const customer = await stripe.customers.create({})
    const product = await stripe.products.create({ name: 'Pro' })
    const price = await stripe.prices.create({
      product: product.id,
      currency: 'usd',
      unit_amount: 1000,
      recurring: { interval: 'week' },
    })
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      payment_behavior: 'default_incomplete',
      payment_settings: { save_default_payment_method: 'on_subscription' },
      expand: ['latest_invoice.payments'],
    })
    const pi = (sub.latest_invoice as Stripe.Invoice).payments?.data[0]?.payment.payment_intent as string
    await stripe.paymentIntents.confirm(pi, { payment_method: 'pm_card_visa' })
    emulator.stripe.advance(8 * 86_400)
    await stripe.refunds.create({ payment_intent: pi })
    await stripe.subscriptions.cancel(sub.id)
    await emulator.stripe.flushWebhooks()
    const types = new Set(receiver.types())
    for (const type of [
      'customer.created',
      'customer.subscription.created',
      'customer.subscription.updated',
      'customer.subscription.deleted',
      'invoice.created',
      'invoice.finalized',
      'invoice.paid',
      'invoice.payment_succeeded',
      'payment_intent.created',
      'payment_intent.succeeded',
      'charge.succeeded',
      'charge.refunded',
      'refund.created',
    ]) {
      expect(types, type).toContain(type)
    }
    const refunded = receiver.received.find((r) => r.event.type === 'charge.refunded')?.event
    expect(refunded?.data.object).toMatchObject({ payment_intent: pi, refunded: true })
    const paid = receiver.received
      .filter((r) => r.event.type === 'invoice.paid')
      .map((r) => r.event.data.object)
    expect(paid).toHaveLength(2)
    expect(paid[1]).toMatchObject({
      billing_reason: 'subscription_cycle',
      parent: { subscription_details: { subscription: sub.id } },
    })
  })
})

describe('faults', () => {
  it('answers the next call with a 500 and the SDK raises StripeAPIError', async () => {
    emulator.stripe.fault({ kind: 'error' })
    const error = await stripe.customers.create({}).catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Stripe.errors.StripeAPIError)
    expect(error).toMatchObject({ statusCode: 500 })
    expect(emulator.stripe.state().counts.customers).toBe(0)
    expect((await stripe.customers.create({})).object).toBe('customer')
  })

  it("answers 429 with Stripe's rate-limit error", async () => {
    emulator.stripe.fault({ kind: 'rate_limit', count: 2, method: 'GET', path: '/v1/customers' })
    const created = await stripe.customers.create({})
    for (let i = 0; i < 2; i++) {
      const error = await stripe.customers.retrieve(created.id).catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(Stripe.errors.StripeRateLimitError)
      expect(error).toMatchObject({ statusCode: 429, code: 'rate_limit' })
    }
    expect((await stripe.customers.retrieve(created.id)).id).toBe(created.id)
  })

  it('only hits calls matching the method and path prefix', async () => {
    emulator.stripe.fault({ kind: 'error', path: '/v1/subscriptions', status: 503 })
    await stripe.customers.create({})
    expect(emulator.stripe.faults()).toHaveLength(1)
    const error = await stripe.subscriptions.list().catch((caught: unknown) => caught)
    expect(error).toMatchObject({ statusCode: 503 })
    expect(emulator.stripe.faults()).toHaveLength(0)
  })

  it('delays calls', async () => {
    emulator.stripe.fault({ kind: 'delay', delayMs: 150 })
    const started = Date.now()
    await stripe.customers.list()
    expect(Date.now() - started).toBeGreaterThanOrEqual(140)
  })

  it('lets a retrying SDK through a 500 without creating the object twice', async () => {
    const retrying = client({ maxNetworkRetries: 2 })
    emulator.stripe.fault({ kind: 'error' })
    const customer = await retrying.customers.create({ email: 'retry@example.com' })
    expect(customer.email).toBe('retry@example.com')
    expect(emulator.stripe.state().counts.customers).toBe(1)
  })

  it('drops connections', async () => {
    // The SDK retries one closed connection even without retries, so drop two.
    emulator.stripe.fault({ kind: 'disconnect', count: 2 })
    const error = await stripe.customers.list().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Stripe.errors.StripeConnectionError)
  })
})

describe('control routes and CORS', () => {
  it('offers the controls over HTTP for other processes', async () => {
    await control('POST', '/webhook-url', { url: receiver.url })
    expect(emulator.stripe.webhookUrl).toBe(receiver.url)

    const customer = await stripe.customers.create({})
    const product = await stripe.products.create({ name: 'Pro' })
    const price = await stripe.prices.create({
      product: product.id,
      currency: 'usd',
      unit_amount: 1000,
      recurring: { interval: 'month' },
    })
    const card = await stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id })
    const sub = await stripe.subscriptions.create({
      customer: customer.id,
      items: [{ price: price.id }],
      default_payment_method: card.id,
    })
    expect(sub.status).toBe('active')

    await control('POST', `/subscriptions/${sub.id}/fail-next-renewal`)
    const before = (await control('GET', '/clock')).now as number
    const report = await control('POST', '/clock/advance', { seconds: 32 * 86_400 })
    expect(report.failed).toEqual([sub.id])
    expect((report.now as number) - before).toBeGreaterThanOrEqual(32 * 86_400)

    const state = await control('GET', '/state')
    expect(state).toMatchObject({
      subscriptionsByStatus: { past_due: 1 },
      counts: { customers: 1, subscriptions: 1, invoices: 2 },
      webhookUrl: receiver.url,
    })

    await control('POST', '/faults', { kind: 'error', status: 502, path: '/v1/customers' })
    expect(((await control('GET', '/faults')).faults as unknown[]).length).toBe(1)
    await control('DELETE', '/faults')
    expect(((await control('GET', '/faults')).faults as unknown[]).length).toBe(0)

    await control('POST', '/webhooks/pause')
    await stripe.customers.create({})
    await control('POST', '/webhooks/flush', { order: 'reverse' })
    const deliveries = (await control('GET', '/webhooks/deliveries')).deliveries as Array<{ ok: boolean }>
    expect(deliveries.length).toBeGreaterThan(0)
    await control('POST', '/webhooks/resume')

    const pi = await stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      payment_method: 'pm_card_authenticationRequired',
      confirm: true,
    })
    const authenticated = await control('POST', `/payment_intents/${pi.id}/authenticate`, {
      result: 'success',
    })
    expect(authenticated.paymentIntent).toMatchObject({ status: 'succeeded' })

    await control('POST', '/reset')
    expect(((await control('GET', '/state')).counts as Record<string, number>).customers).toBe(0)
  })

  it('answers CORS preflights for the API and Stripe.js', async () => {
    const preflight = await fetch(`${emulator.url}/v1/payment_intents/pi_123/confirm`, {
      method: 'OPTIONS',
      headers: {
        origin: 'http://localhost:5173',
        'access-control-request-method': 'POST',
        'access-control-request-headers': 'authorization, content-type, idempotency-key',
      },
    })
    expect(preflight.status).toBe(204)
    expect(preflight.headers.get('access-control-allow-origin')).toBe('*')
    const allowed = preflight.headers.get('access-control-allow-headers') ?? ''
    for (const header of ['authorization', 'content-type', 'idempotency-key'])
      expect(allowed).toContain(header)

    const script = await fetch(`${emulator.url}/stripe-js/v3`)
    expect(script.headers.get('content-type')).toContain('application/javascript')
    expect(script.headers.get('access-control-allow-origin')).toBe('*')
    const source = await script.text()
    expect(source).toContain(JSON.stringify(emulator.url))
    expect(source).not.toContain('__EMULATOR_API_BASE__')
  })
})
