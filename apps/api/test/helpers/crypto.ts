import { createServer, type Server } from 'node:http'
import type { AddressInfo } from 'node:net'
import { expect } from 'vitest'
import { type BillingHarness, createBillingHarness } from './billing'
import { as } from './members'
import type { TestAppOptions } from './test-app'

const API = '/discord/api'

/** The billing harness with the emulator's BTCPay wired in (see billing.ts). */
export type CryptoHarness = BillingHarness

export function createCryptoHarness(options: TestAppOptions = {}): Promise<CryptoHarness> {
  return createBillingHarness({ ...options, crypto: true })
}

export interface CryptoCheckoutData {
  checkoutUrl: string
  invoiceId: string
  paymentId: string
  amount: number
  currency: string
  expiresAt: string
}

export async function planIdOf(h: CryptoHarness, slug: string): Promise<string> {
  const row = await h.t.database.db
    .selectFrom('plans')
    .select('id')
    .where('slug', '=', slug)
    .executeTakeFirstOrThrow()
  return row.id
}

export function createCrypto(h: CryptoHarness, token: string, planId: string, extra: object = {}) {
  return as(h.t.app, token, {
    method: 'POST',
    url: `${API}/payments/create-crypto`,
    payload: { planId, ...extra },
  })
}

export async function cryptoCheckout(h: CryptoHarness, token: string, slug: string) {
  const response = await createCrypto(h, token, await planIdOf(h, slug))
  expect(response.statusCode, response.body).toBe(200)
  return response.json().data as CryptoCheckoutData
}

export function paymentRow(h: CryptoHarness, id: string) {
  return h.t.database.db.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
}

export async function periodsOf(h: CryptoHarness, userId: string): Promise<number> {
  const rows = await h.t.database.db
    .selectFrom('subscription_periods')
    .innerJoin('subscriptions', 'subscriptions.id', 'subscription_periods.subscription_id')
    .select('subscription_periods.id')
    .where('subscriptions.user_id', '=', userId)
    .execute()
  return rows.length
}

/**
 * Stands between the emulator and the app, noting the order events arrive in, and losing answers:
 * requests matching `fail` are passed to the app (which handles them) but answered 503, so BTCPay
 * believes the delivery failed and redelivers.
 */
export async function startLossyProxy(
  target: string,
  fail: (body: { type?: string; isRedelivery?: boolean }) => boolean = () => false,
): Promise<{ url: string; seen: string[]; close(): Promise<void> }> {
  const seen: string[] = []
  const server: Server = createServer(async (request, response) => {
    const chunks: Buffer[] = []
    for await (const chunk of request) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks)
    const forwarded = await fetch(target, {
      method: 'POST',
      headers: {
        'content-type': String(request.headers['content-type'] ?? 'application/json'),
        'btcpay-sig': String(request.headers['btcpay-sig'] ?? ''),
      },
      body,
    })
    const text = await forwarded.text()
    const event = JSON.parse(body.toString('utf8'))
    seen.push(String(event.type))
    const lose = fail(event)
    response.writeHead(lose ? 503 : forwarded.status, { 'content-type': 'application/json' })
    response.end(lose ? '{"lost":true}' : text)
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  return {
    url: `http://127.0.0.1:${port}/`,
    seen,
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  }
}
