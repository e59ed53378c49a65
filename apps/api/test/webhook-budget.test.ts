import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type CryptoHarness, createCryptoHarness } from './helpers/crypto'

const DELIVERIES = 1_000

/** Sends `count` requests, `parallel` at a time, and returns every status. */
async function inBatches(count: number, parallel: number, send: (i: number) => Promise<Response>) {
  const statuses: number[] = []
  for (let start = 0; start < count; start += parallel) {
    const batch = await Promise.all(
      Array.from({ length: Math.min(parallel, count - start) }, (_, offset) => send(start + offset)),
    )
    for (const response of batch) {
      statuses.push(response.status)
      await response.body?.cancel()
    }
  }
  return statuses
}

describe('webhook deliveries and the per-IP API budget', () => {
  let h: CryptoHarness
  beforeAll(async () => {
    h = await createCryptoHarness({
      configure: (config) => {
        // The production budget: 600 requests a minute per address.
        config.limits.globalPerMinute = 600
      },
    })
  })
  afterAll(() => h.close())

  /** Deliveries recorded (each handled once) whose id matches `pattern`. */
  const recorded = async (pattern: string) => {
    const row = await h.t.database.db
      .selectFrom('webhook_events')
      .select((eb) => eb.fn.countAll<number>().as('n'))
      .where('id', 'like', pattern)
      .executeTakeFirstOrThrow()
    return Number(row.n)
  }

  /** What is left of this address's API budget after one more API call. */
  const budgetLeft = async () => {
    const response = await fetch(h.webhookUrl.replace('/webhooks/stripe', '/config'))
    expect(response.status).toBe(200)
    return Number(response.headers.get('x-ratelimit-remaining'))
  }

  const statusesOf = (statuses: number[]) =>
    statuses.reduce<Record<number, number>>((counts, status) => {
      counts[status] = (counts[status] ?? 0) + 1
      return counts
    }, {})

  it(`accepts ${DELIVERIES} signed Stripe deliveries from one address, which keeps its API budget`, async () => {
    const run = Date.now()
    const statuses = await inBatches(DELIVERIES, 25, (i) => {
      const payload = JSON.stringify({
        id: `evt_budget_${run}_${i}`,
        object: 'event',
        type: 'customer.created',
        data: { object: { id: `cus_budget_${i}` } },
      })
      const signature = h.stripe.webhooks.generateTestHeaderString({
        payload,
        secret: h.emulator.stripe.webhookSecret,
      })
      return fetch(h.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': signature },
        body: payload,
      })
    })
    expect(statusesOf(statuses)).toEqual({ 200: DELIVERIES })
    expect(await recorded(`evt_budget_${run}_%`)).toBe(DELIVERIES)
    expect(await budgetLeft()).toBeGreaterThanOrEqual(595)
  }, 180_000)

  it(`accepts ${DELIVERIES} signed BTCPay deliveries from one address, which keeps its API budget`, async () => {
    const run = Date.now()
    const statuses = await inBatches(DELIVERIES, 25, (i) => {
      const body = JSON.stringify({ deliveryId: `budget-${run}-${i}`, type: 'PaymentRequestCreated' })
      return fetch(h.btcpayWebhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'btcpay-sig': `sha256=${createHmac('sha256', h.emulator.btcpay.webhookSecret).update(body).digest('hex')}`,
        },
        body,
      })
    })
    expect(statusesOf(statuses)).toEqual({ 200: DELIVERIES })
    expect(await recorded(`budget-${run}-%`)).toBe(DELIVERIES)
    expect(await budgetLeft()).toBeGreaterThanOrEqual(590)
  }, 180_000)
})
