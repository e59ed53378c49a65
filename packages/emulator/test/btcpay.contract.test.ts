import { createHmac } from 'node:crypto'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  createGreenfieldClient,
  type GreenfieldClient,
  GreenfieldError,
  verifySignature,
} from '../src/btcpay/greenfield-client'
import type {
  InvoiceExpiredEvent,
  InvoiceInvalidEvent,
  InvoiceProcessingEvent,
  InvoiceReceivedPaymentEvent,
  InvoiceSettledEvent,
  WebhookDataCreate,
} from '../src/btcpay/greenfield-types'
import { type Emulator, startEmulator } from '../src/server'
import { startWebhookReceiver, type WebhookReceiver } from './btcpay-webhook-receiver'

/**
 * The emulator's BTCPay Greenfield API and webhooks, seen from outside as the app sees them: a
 * fetch client and an HTTP endpoint receiving signed deliveries.
 */

const SECRET = 'emulator-btcpay-webhook-secret'
const BASE58_ID = /^[1-9A-HJ-NP-Za-km-z]{22}$/

let emulator: Emulator
let receiver: WebhookReceiver
let client: GreenfieldClient
let btcpayUrl: string

beforeAll(async () => {
  receiver = await startWebhookReceiver()
  emulator = await startEmulator({ btcpay: { retryDelaysMs: [30, 60], sweepIntervalMs: 0 } })
  btcpayUrl = `${emulator.url}/btcpay`
  // As in dev: the app starts after the emulator and its webhook URL is set afterwards.
  emulator.btcpay.setWebhookUrl(receiver.url)
  client = createGreenfieldClient({
    baseUrl: btcpayUrl,
    apiKey: emulator.btcpay.apiKey,
    storeId: emulator.btcpay.storeId,
  })
})

afterAll(async () => {
  await emulator?.close()
  await receiver?.close()
})

beforeEach(async () => {
  emulator.btcpay.setWebhookUrl(receiver.url)
  await emulator.btcpay.flush()
  emulator.btcpay.reset()
  receiver.reset()
})

function types(): string[] {
  return receiver.received.map((entry) => entry.payload.type)
}

function received<T>(type: string): T {
  const found = receiver.received.find((entry) => entry.payload.type === type)
  if (!found) throw new Error(`no ${type} received (got ${types().join(', ')})`)
  return found.payload as T
}

async function expectGreenfieldError(promise: Promise<unknown>): Promise<GreenfieldError> {
  const error = await promise.then(
    () => undefined,
    (caught: unknown) => caught,
  )
  expect(error).toBeInstanceOf(GreenfieldError)
  return error as GreenfieldError
}

describe('defaults', () => {
  it('uses the documented credentials', () => {
    expect(emulator.btcpay.apiKey).toBe('emulator-btcpay-key')
    expect(emulator.btcpay.storeId).toBe('EmulatorStore1')
    expect(emulator.btcpay.webhookSecret).toBe(SECRET)
    expect(emulator.btcpay.webhookUrl).toBe(receiver.url)
  })
})

describe('authentication and errors', () => {
  it('answers 401 unauthenticated without a valid `token` API key', async () => {
    const invoices = `${btcpayUrl}/api/v1/stores/${emulator.btcpay.storeId}/invoices`
    for (const authorization of [undefined, 'token wrong-key', `Bearer ${emulator.btcpay.apiKey}`]) {
      const response = await fetch(invoices, { headers: authorization ? { authorization } : {} })
      expect(response.status).toBe(401)
      expect(await response.json()).toEqual({ code: 'unauthenticated', message: expect.any(String) })
    }
    const wrongKey = createGreenfieldClient({
      baseUrl: btcpayUrl,
      apiKey: 'nope',
      storeId: emulator.btcpay.storeId,
    })
    const error = await expectGreenfieldError(wrongKey.createInvoice({ amount: '1', currency: 'USD' }))
    expect(error.status).toBe(401)
    expect(error.code).toBe('unauthenticated')
    expect(emulator.btcpay.state().invoices).toHaveLength(0)
  })

  it('answers 404 store-not-found for another store and invoice-not-found for an unknown invoice', async () => {
    const otherStore = createGreenfieldClient({
      baseUrl: btcpayUrl,
      apiKey: emulator.btcpay.apiKey,
      storeId: 'NoSuchStore',
    })
    const storeError = await expectGreenfieldError(otherStore.getInvoice('x'))
    expect([storeError.status, storeError.code]).toEqual([404, 'store-not-found'])

    const invoiceError = await expectGreenfieldError(client.getInvoice('NoSuchInvoice'))
    expect([invoiceError.status, invoiceError.code]).toEqual([404, 'invoice-not-found'])
  })

  it('answers 422 with [{path, message}] for invalid requests', async () => {
    const negative = await expectGreenfieldError(client.createInvoice({ amount: '-5', currency: 'USD' }))
    expect(negative.status).toBe(422)
    expect(negative.validationErrors).toEqual([
      { path: 'amount', message: 'The amount should be 0 or more.' },
    ])

    const several = await expectGreenfieldError(
      client.createInvoice({
        amount: 'lots',
        currency: 'US Dollars',
        checkout: { expirationMinutes: 0, speedPolicy: 'Warp' as never },
      }),
    )
    expect(several.validationErrors.map((error) => error.path).sort()).toEqual(
      ['amount', 'checkout.expirationMinutes', 'checkout.speedPolicy', 'currency'].sort(),
    )

    const malformed = await fetch(`${btcpayUrl}/api/v1/stores/${emulator.btcpay.storeId}/invoices`, {
      method: 'POST',
      headers: { authorization: `token ${emulator.btcpay.apiKey}`, 'content-type': 'application/json' },
      body: '{"amount": ',
    })
    expect(malformed.status).toBe(422)
    expect(await malformed.json()).toEqual([{ path: '', message: expect.any(String) }])
  })
})

describe('invoices', () => {
  it('creates and reads back an invoice in the Greenfield shape', async () => {
    const metadata = { orderId: 'order-1', userId: 'user-7', planId: 'pro-monthly', itemDesc: 'EdgeClub Pro' }
    const before = Math.floor(Date.now() / 1000)
    const created = await client.createInvoice({
      amount: '29.99',
      currency: 'USD',
      metadata,
      checkout: { redirectURL: 'http://app.local/billing/return', speedPolicy: 'HighSpeed' },
      additionalSearchTerms: ['user-7'],
    })

    expect(created).toMatchObject({
      storeId: 'EmulatorStore1',
      amount: '29.99',
      paidAmount: '0',
      currency: 'USD',
      type: 'Standard',
      status: 'New',
      additionalStatus: 'None',
      archived: false,
      metadata,
      checkout: {
        redirectURL: 'http://app.local/billing/return',
        expirationMinutes: 15,
        speedPolicy: 'HighSpeed',
      },
    })
    expect(created.id).toMatch(BASE58_ID)
    expect(created.checkoutLink).toBe(`${btcpayUrl}/i/${created.id}`)
    expect(created.createdTime).toBeGreaterThanOrEqual(before)
    expect(created.expirationTime - created.createdTime).toBe(15 * 60)
    expect(created.monitoringExpiration - created.expirationTime).toBe(24 * 60 * 60)
    expect(created.availableStatusesForManualMarking).toEqual(['Settled', 'Invalid'])

    expect(await client.getInvoice(created.id)).toEqual(created)

    const [method] = await client.getPaymentMethods(created.id)
    expect(method).toMatchObject({
      paymentMethodId: 'BTC-CHAIN',
      currency: 'BTC',
      rate: '67432.18',
      paymentMethodPaid: '0.00000000',
      activated: true,
      payments: [],
    })
    expect(method!.due).toBe(method!.amount)
    expect(method!.destination).toMatch(/^bcrt1q/)
    // The BTC amount is the fiat amount at the rate, rounded up to the satoshi.
    expect(Number(method!.amount) * Number(method!.rate)).toBeCloseTo(29.99, 2)
  })

  it('accepts a number amount, lowercase currency and a custom expiration', async () => {
    const created = await client.createInvoice({
      amount: 29.99,
      currency: 'usd',
      checkout: { expirationMinutes: 30 },
    })
    expect(created.amount).toBe('29.99')
    expect(created.currency).toBe('USD')
    expect(created.expirationTime - created.createdTime).toBe(30 * 60)
  })

  it('lists invoices newest first, filtered by status, orderId and text, with paging', async () => {
    const first = await client.createInvoice({ amount: '10', currency: 'USD', metadata: { orderId: 'a' } })
    const second = await client.createInvoice({ amount: '20', currency: 'USD', metadata: { orderId: 'b' } })
    const third = await client.createInvoice({
      amount: '30',
      currency: 'USD',
      additionalSearchTerms: ['needle'],
    })
    emulator.btcpay.pay(second.id)

    expect((await client.listInvoices()).map((invoice) => invoice.id)).toEqual([
      third.id,
      second.id,
      first.id,
    ])
    expect((await client.listInvoices({ status: ['Settled'] })).map((invoice) => invoice.id)).toEqual([
      second.id,
    ])
    expect((await client.listInvoices({ status: ['New'] })).map((invoice) => invoice.id)).toEqual([
      third.id,
      first.id,
    ])
    expect((await client.listInvoices({ orderId: ['a'] })).map((invoice) => invoice.id)).toEqual([first.id])
    expect((await client.listInvoices({ textSearch: 'NEEDLE' })).map((invoice) => invoice.id)).toEqual([
      third.id,
    ])
    expect((await client.listInvoices({ skip: 1, take: 1 })).map((invoice) => invoice.id)).toEqual([
      second.id,
    ])
  })
})

describe('webhooks', () => {
  it('pays in full: InvoiceReceivedPayment, InvoiceProcessing, InvoiceSettled, all signed', async () => {
    const metadata = { orderId: 'order-9', userId: 'user-9' }
    const invoice = await client.createInvoice({ amount: '29.99', currency: 'USD', metadata })
    const settled = emulator.btcpay.pay(invoice.id)
    expect(settled.status).toBe('Settled')
    await emulator.btcpay.flush()

    expect(types()).toEqual([
      'InvoiceCreated',
      'InvoiceReceivedPayment',
      'InvoiceProcessing',
      'InvoiceSettled',
    ])
    for (const entry of receiver.received) {
      const header = entry.headers['btcpay-sig']
      expect(header).toMatch(/^sha256=[0-9a-f]{64}$/)
      // Independently of the client's helper: HMAC-SHA256 of the raw bytes, lowercase hex.
      expect(header).toBe(`sha256=${createHmac('sha256', SECRET).update(entry.rawBody).digest('hex')}`)
      expect(verifySignature(entry.rawBody, header, SECRET)).toBe(true)
      expect(entry.headers['content-type']).toMatch(/^application\/json/)
      expect(entry.payload).toMatchObject({
        webhookId: emulator.btcpay.webhookId,
        isRedelivery: false,
        storeId: 'EmulatorStore1',
        invoiceId: invoice.id,
        metadata,
      })
      expect(entry.payload.deliveryId).toMatch(BASE58_ID)
      expect(entry.payload.originalDeliveryId).toBe(entry.payload.deliveryId)
      expect(entry.payload.timestamp).toBeGreaterThanOrEqual(invoice.createdTime)
    }
    expect(new Set(receiver.received.map((entry) => entry.payload.deliveryId)).size).toBe(4)

    const [method] = await client.getPaymentMethods(invoice.id)
    const payment = received<InvoiceReceivedPaymentEvent>('InvoiceReceivedPayment')
    expect(payment).toMatchObject({
      afterExpiration: false,
      paymentMethodId: 'BTC-CHAIN',
      paymentMethod: 'BTC-CHAIN',
      payment: {
        value: method!.amount,
        status: 'Processing',
        destination: method!.destination,
        fee: '0.00000000',
      },
    })
    expect(payment.payment.id).toMatch(/^[0-9a-f]{64}-0$/)
    expect(received<InvoiceProcessingEvent>('InvoiceProcessing').overPaid).toBe(false)
    expect(received<InvoiceSettledEvent>('InvoiceSettled')).toMatchObject({
      manuallyMarked: false,
      overPaid: false,
    })

    expect(await client.getInvoice(invoice.id)).toMatchObject({
      status: 'Settled',
      additionalStatus: 'None',
      paidAmount: '29.99',
    })
    expect(method).toMatchObject({ due: '0.00000000', payments: [{ status: 'Settled' }] })
  })

  it('makes a bad signature detectable', async () => {
    await client.createInvoice({ amount: '5', currency: 'USD' })
    await emulator.btcpay.flush()
    const [entry] = receiver.received
    const header = entry!.headers['btcpay-sig']
    expect(verifySignature(entry!.rawBody, header, SECRET)).toBe(true)

    const tampered = Buffer.from(
      entry!.rawBody.toString('utf8').replace('"isRedelivery":false', '"isRedelivery":true'),
    )
    expect(tampered.equals(entry!.rawBody)).toBe(false)
    expect(verifySignature(tampered, header, SECRET)).toBe(false)
    expect(verifySignature(entry!.rawBody, header, 'another-secret')).toBe(false)
    expect(verifySignature(entry!.rawBody, undefined, SECRET)).toBe(false)
    expect(verifySignature(entry!.rawBody, 'sha256=deadbeef', SECRET)).toBe(false)
    // Re-serialized JSON is different bytes: receivers must verify the raw body.
    expect(verifySignature(JSON.stringify(entry!.payload, null, 2), header, SECRET)).toBe(false)
  })

  it('underpays: InvoiceReceivedPayment only, New/PaidPartial, then expires with partiallyPaid', async () => {
    const invoice = await client.createInvoice({ amount: '40', currency: 'USD' })
    const partial = emulator.btcpay.pay(invoice.id, { fraction: 0.5 })
    expect(partial).toMatchObject({ status: 'New', additionalStatus: 'PaidPartial', paidAmount: '20.00' })
    await emulator.btcpay.flush()
    expect(types()).toEqual(['InvoiceCreated', 'InvoiceReceivedPayment'])

    const [method] = await client.getPaymentMethods(invoice.id)
    expect(Number(method!.due)).toBeCloseTo(Number(method!.amount) / 2, 7)

    // Not yet: a few seconds before the expiration time, measured from the emulator's clock now (its
    // clock runs with real time, and real seconds pass while a loaded machine runs the test).
    emulator.btcpay.advanceClock(invoice.expirationTime - emulator.btcpay.now() - 3)
    expect((await client.getInvoice(invoice.id)).status).toBe('New')
    emulator.btcpay.advanceClock(invoice.expirationTime - emulator.btcpay.now())
    expect(await client.getInvoice(invoice.id)).toMatchObject({
      status: 'Expired',
      additionalStatus: 'PaidPartial',
    })
    await emulator.btcpay.flush()
    expect(types()).toEqual(['InvoiceCreated', 'InvoiceReceivedPayment', 'InvoiceExpired'])
    expect(received<InvoiceExpiredEvent>('InvoiceExpired').partiallyPaid).toBe(true)
  })

  it('expires by control, then takes a late payment (afterExpiration, PaidLate)', async () => {
    const invoice = await client.createInvoice({ amount: '12.50', currency: 'USD' })
    expect(emulator.btcpay.expire(invoice.id)).toMatchObject({ status: 'Expired', additionalStatus: 'None' })
    await emulator.btcpay.flush()
    expect(types()).toEqual(['InvoiceCreated', 'InvoiceExpired'])
    expect(received<InvoiceExpiredEvent>('InvoiceExpired').partiallyPaid).toBe(false)

    expect(emulator.btcpay.pay(invoice.id)).toMatchObject({ status: 'Settled', additionalStatus: 'PaidLate' })
    await emulator.btcpay.flush()
    expect(received<InvoiceReceivedPaymentEvent>('InvoiceReceivedPayment').afterExpiration).toBe(true)
    expect(() => emulator.btcpay.expire(invoice.id)).toThrow(/only a New invoice can expire/)
  })

  it('overpays: Settled/PaidOver with overPaid', async () => {
    const invoice = await client.createInvoice({ amount: '10', currency: 'USD' })
    expect(emulator.btcpay.pay(invoice.id, { fraction: 1.5 })).toMatchObject({
      status: 'Settled',
      additionalStatus: 'PaidOver',
      paidAmount: '15.00',
    })
    await emulator.btcpay.flush()
    expect(received<InvoiceProcessingEvent>('InvoiceProcessing').overPaid).toBe(true)
    expect(received<InvoiceSettledEvent>('InvoiceSettled').overPaid).toBe(true)
    expect(Number((await client.getPaymentMethods(invoice.id))[0]!.due)).toBeLessThan(0)
  })

  it('can stop at Processing and confirm later, or invalidate', async () => {
    const invoice = await client.createInvoice({ amount: '10', currency: 'USD' })
    expect(emulator.btcpay.pay(invoice.id, { confirm: false }).status).toBe('Processing')
    expect(emulator.btcpay.settle(invoice.id).status).toBe('Settled')

    const other = await client.createInvoice({ amount: '10', currency: 'USD' })
    expect(emulator.btcpay.invalidate(other.id)).toMatchObject({
      status: 'Invalid',
      additionalStatus: 'Marked',
    })
    await emulator.btcpay.flush()
    expect(types()).toEqual([
      'InvoiceCreated',
      'InvoiceReceivedPayment',
      'InvoiceProcessing',
      'InvoiceSettled',
      'InvoiceCreated',
      'InvoiceInvalid',
    ])
    expect(received<InvoiceInvalidEvent>('InvoiceInvalid').manuallyMarked).toBe(true)
  })

  it('a Processing invoice that never confirms becomes Invalid when monitoring ends', async () => {
    const invoice = await client.createInvoice({ amount: '10', currency: 'USD' })
    emulator.btcpay.pay(invoice.id, { confirm: false })
    emulator.btcpay.advanceClock(15 * 60 + 24 * 60 * 60)
    expect((await client.getInvoice(invoice.id)).status).toBe('Invalid')
    await emulator.btcpay.flush()
    expect(received<InvoiceInvalidEvent>('InvoiceInvalid').manuallyMarked).toBe(false)
  })

  it('marks an invoice settled through Greenfield (manuallyMarked)', async () => {
    const invoice = await client.createInvoice({ amount: '10', currency: 'USD' })
    const response = await fetch(`${btcpayUrl}/api/v1/stores/EmulatorStore1/invoices/${invoice.id}/status`, {
      method: 'POST',
      headers: { authorization: 'token emulator-btcpay-key', 'content-type': 'application/json' },
      body: JSON.stringify({ status: 'Settled' }),
    })
    expect(response.status).toBe(200)
    expect(await response.json()).toMatchObject({ status: 'Settled', additionalStatus: 'Marked' })
    await emulator.btcpay.flush()
    expect(received<InvoiceSettledEvent>('InvoiceSettled')).toMatchObject({
      manuallyMarked: true,
      overPaid: false,
    })
  })

  it('retries a delivery answered 500 as a redelivery with the same originalDeliveryId', async () => {
    receiver.respondWith(500)
    const invoice = await client.createInvoice({ amount: '10', currency: 'USD' })
    // No flush: the retry must come by itself after the configured backoff.
    await receiver.waitFor((entries) => entries.length >= 2)

    const [failed, retried] = receiver.received
    expect(failed!.status).toBe(500)
    expect(retried!.status).toBe(200)
    expect(retried!.payload).toMatchObject({
      type: 'InvoiceCreated',
      invoiceId: invoice.id,
      isRedelivery: true,
      originalDeliveryId: failed!.payload.deliveryId,
      timestamp: failed!.payload.timestamp,
    })
    expect(retried!.payload.deliveryId).not.toBe(failed!.payload.deliveryId)
    expect(verifySignature(retried!.rawBody, retried!.headers['btcpay-sig'], SECRET)).toBe(true)

    // The receiver has the retry before the sender has read its answer; let the sender settle.
    await emulator.btcpay.flush()
    const log = emulator.btcpay.deliveries()
    expect(log.map((entry) => [entry.status, entry.httpCode, entry.isRedelivery, entry.retry])).toEqual([
      ['HttpError', 500, false, 0],
      ['HttpSuccess', 200, true, 1],
    ])
    expect(log[0]!.errorMessage).toBe('HTTP 500')
  })

  it('gives up after the configured retries, and a failing event does not hold up later ones', async () => {
    receiver.respondWith(500, 503, 502)
    const invoice = await client.createInvoice({ amount: '10', currency: 'USD' })
    emulator.btcpay.pay(invoice.id)
    await emulator.btcpay.flush()
    // As in BTCPay: the retried InvoiceCreated goes behind the events queued meanwhile.
    expect(receiver.received.map((entry) => [entry.payload.type, entry.status])).toEqual([
      ['InvoiceCreated', 500],
      ['InvoiceReceivedPayment', 503],
      ['InvoiceProcessing', 502],
      ['InvoiceSettled', 200],
      ['InvoiceCreated', 200],
      ['InvoiceReceivedPayment', 200],
      ['InvoiceProcessing', 200],
    ])

    receiver.reset()
    emulator.btcpay.reset()
    receiver.respondWith(500, 500, 500, 500)
    await client.createInvoice({ amount: '10', currency: 'USD' })
    await emulator.btcpay.flush()
    // One attempt plus two retries, then no more.
    expect(emulator.btcpay.deliveries().map((entry) => entry.httpCode)).toEqual([500, 500, 500])
    const ids = new Set(emulator.btcpay.deliveries().map((entry) => entry.originalDeliveryId))
    expect(ids.size).toBe(1)
  })

  it('records network failures as Failed', async () => {
    emulator.btcpay.setWebhookUrl('http://127.0.0.1:1/unreachable')
    await client.createInvoice({ amount: '10', currency: 'USD' })
    await emulator.btcpay.flush()
    const log = emulator.btcpay.deliveries()
    expect(log).toHaveLength(3)
    expect(log.every((entry) => entry.status === 'Failed' && entry.httpCode === null)).toBe(true)
    expect(log[0]!.errorMessage).toMatch(/fetch failed/)
  })

  it('duplicates a delivery byte for byte', async () => {
    await client.createInvoice({ amount: '10', currency: 'USD' })
    await emulator.btcpay.flush()
    const original = receiver.received[0]!
    emulator.btcpay.duplicateDelivery(original.payload.deliveryId)
    await emulator.btcpay.flush()

    expect(receiver.received).toHaveLength(2)
    const copy = receiver.received[1]!
    expect(copy.rawBody.equals(original.rawBody)).toBe(true)
    expect(copy.headers['btcpay-sig']).toBe(original.headers['btcpay-sig'])
    expect(emulator.btcpay.deliveries().map((entry) => entry.duplicate)).toEqual([false, true])
  })

  it('holds deliveries while paused, and can deliver them in reverse order', async () => {
    emulator.btcpay.pauseDelivery()
    const invoice = await client.createInvoice({ amount: '10', currency: 'USD' })
    emulator.btcpay.pay(invoice.id)
    await new Promise((resolve) => setTimeout(resolve, 50))
    expect(receiver.received).toHaveLength(0)
    expect(emulator.btcpay.deliveries().every((entry) => entry.status === 'Pending')).toBe(true)

    emulator.btcpay.reversePending()
    await emulator.btcpay.flush()
    expect(types()).toEqual([
      'InvoiceSettled',
      'InvoiceProcessing',
      'InvoiceReceivedPayment',
      'InvoiceCreated',
    ])
    expect(emulator.btcpay.state().deliveryPaused).toBe(false)
  })

  it('refuses to flush while deliveries wait for a webhook URL', async () => {
    emulator.btcpay.setWebhookUrl(undefined)
    await client.createInvoice({ amount: '10', currency: 'USD' })
    await expect(emulator.btcpay.flush()).rejects.toThrow(/wait for a webhook URL/)
    emulator.btcpay.setWebhookUrl(receiver.url)
    await emulator.btcpay.flush()
    expect(types()).toEqual(['InvoiceCreated'])
  })

  it('serves Greenfield webhook management: register, deliveries, redeliver', async () => {
    const headers = { authorization: 'token emulator-btcpay-key', 'content-type': 'application/json' }
    const webhooks = `${btcpayUrl}/api/v1/stores/EmulatorStore1/webhooks`
    const response = await fetch(webhooks, {
      method: 'POST',
      headers,
      body: JSON.stringify({
        url: `${receiver.url}/own`,
        secret: 'app-own-secret',
        authorizedEvents: { everything: false, specificEvents: ['InvoiceSettled'] },
      }),
    })
    expect(response.status).toBe(200)
    const own = (await response.json()) as WebhookDataCreate
    expect(own).toMatchObject({ secret: 'app-own-secret', enabled: true, automaticRedelivery: true })

    const invoice = await client.createInvoice({ amount: '10', currency: 'USD' })
    emulator.btcpay.pay(invoice.id)
    await emulator.btcpay.flush()
    const toOwn = receiver.received.filter((entry) => entry.path.endsWith('/own'))
    expect(toOwn.map((entry) => entry.payload.type)).toEqual(['InvoiceSettled'])
    expect(toOwn[0]!.payload.webhookId).toBe(own.id)
    expect(verifySignature(toOwn[0]!.rawBody, toOwn[0]!.headers['btcpay-sig'], 'app-own-secret')).toBe(true)

    const deliveries = await (await fetch(`${webhooks}/${own.id}/deliveries`, { headers })).json()
    expect(deliveries).toEqual([
      expect.objectContaining({ id: toOwn[0]!.payload.deliveryId, status: 'HttpSuccess', httpCode: 200 }),
    ])
    const redeliver = await fetch(
      `${webhooks}/${own.id}/deliveries/${toOwn[0]!.payload.deliveryId}/redeliver`,
      {
        method: 'POST',
        headers,
      },
    )
    const newId = (await redeliver.json()) as string
    await emulator.btcpay.flush()
    const again = receiver.received.at(-1)!
    expect(again.payload).toMatchObject({
      deliveryId: newId,
      isRedelivery: true,
      originalDeliveryId: toOwn[0]!.payload.deliveryId,
    })

    const listed = (await (await fetch(webhooks, { headers })).json()) as Record<string, unknown>[]
    expect(listed.map((webhook) => webhook.id).sort()).toEqual([emulator.btcpay.webhookId, own.id].sort())
    expect(listed.every((webhook) => !('secret' in webhook))).toBe(true)
    expect((await fetch(`${webhooks}/${own.id}`, { method: 'DELETE', headers })).status).toBe(200)
  })
})

describe('control routes', () => {
  it('drive the same controls over HTTP', async () => {
    const control = `${emulator.url}/_control/btcpay`
    const post = (path: string, body?: unknown) =>
      fetch(`${control}${path}`, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      })

    expect((await post('/webhook-url', { url: 'not a url' })).status).toBe(422)
    expect(await (await post('/webhook-url', { url: receiver.url })).json()).toEqual({
      webhookId: emulator.btcpay.webhookId,
      url: receiver.url,
    })

    const invoice = await client.createInvoice({ amount: '30', currency: 'USD' })
    expect((await post('/deliveries/pause')).status).toBe(200)
    const paid = await post(`/invoices/${invoice.id}/pay`, { fraction: 0.5 })
    expect(await paid.json()).toMatchObject({ status: 'New', additionalStatus: 'PaidPartial' })
    expect(await (await post('/clock/advance', { seconds: 3600 })).json()).toEqual({
      now: expect.any(Number),
    })
    expect((await post(`/invoices/${invoice.id}/settle`)).status).toBe(200)
    expect((await post(`/invoices/${invoice.id}/settle`)).status).toBe(409)
    expect((await post('/invoices/NoSuchInvoice/pay')).status).toBe(404)
    expect((await post('/deliveries/NoSuchDelivery/duplicate')).status).toBe(404)
    expect(await (await post('/deliveries/flush')).json()).toEqual({ ok: true, deliveries: 4 })

    const deliveries = (await (await fetch(`${control}/deliveries`)).json()) as {
      type: string
      httpCode: number
    }[]
    expect(deliveries.map((entry) => [entry.type, entry.httpCode])).toEqual([
      ['InvoiceCreated', 200],
      ['InvoiceReceivedPayment', 200],
      ['InvoiceExpired', 200],
      ['InvoiceSettled', 200],
    ])
    const state = await (await fetch(control)).json()
    expect(state).toMatchObject({
      storeId: 'EmulatorStore1',
      clockOffsetSeconds: 3600,
      invoices: [{ id: invoice.id, status: 'Settled', additionalStatus: 'Marked' }],
    })

    expect((await post('/reset')).status).toBe(200)
    expect(emulator.btcpay.state()).toMatchObject({ invoices: [], clockOffsetSeconds: 0 })
  })
})
