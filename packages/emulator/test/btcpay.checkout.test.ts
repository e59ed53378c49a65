import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Browser, chromium } from 'playwright-core'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createGreenfieldClient, type GreenfieldClient } from '../src/btcpay/greenfield-client'
import { type Emulator, startEmulator } from '../src/server'
import { startWebhookReceiver, type WebhookReceiver } from './btcpay-webhook-receiver'

/** The checkout page in a real browser, the way a member meets it after choosing crypto. */

let emulator: Emulator
let receiver: WebhookReceiver
let client: GreenfieldClient
let browser: Browser
let app: http.Server
let appUrl: string

beforeAll(async () => {
  // A stand-in for EdgeClub's return page.
  app = http.createServer((req, res) => {
    const body = `<!doctype html><html lang="en"><head><title>EdgeClub</title></head><body><h1>Welcome back</h1><p>${
      new URL(req.url ?? '/', 'http://x').searchParams.get('invoice') ?? ''
    }</p></body></html>`
    res.writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
    res.end(body)
  })
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  appUrl = `http://127.0.0.1:${(app.address() as AddressInfo).port}`

  receiver = await startWebhookReceiver()
  emulator = await startEmulator({
    btcpay: { webhookUrl: receiver.url, retryDelaysMs: [20], sweepIntervalMs: 0 },
  })
  client = createGreenfieldClient({
    baseUrl: `${emulator.url}/btcpay`,
    apiKey: emulator.btcpay.apiKey,
    storeId: emulator.btcpay.storeId,
  })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
})

afterAll(async () => {
  await browser?.close()
  await emulator?.close()
  await receiver?.close()
  await new Promise<void>((resolve) => (app ? app.close(() => resolve()) : resolve()))
})

describe('checkout page', () => {
  it('underpays, pays in full, shows Payment received and returns to EdgeClub', async () => {
    const invoice = await client.createInvoice({
      amount: '29.99',
      currency: 'USD',
      metadata: { orderId: 'order-42', itemDesc: 'EdgeClub Pro, monthly' },
      checkout: { redirectURL: `${appUrl}/billing/return?invoice={InvoiceId}` },
    })
    const page = await browser.newPage()
    const response = await page.goto(invoice.checkoutLink)
    expect(response?.headers()['content-security-policy']).toContain("default-src 'none'")

    await expect.poll(() => page.title()).toContain('EdgeClub')
    expect(await page.getByText('EdgeClub', { exact: true }).isVisible()).toBe(true)
    expect(await page.getByRole('heading', { level: 1 }).textContent()).toBe('Pay 29.99 USD')
    expect(await page.getByRole('status').textContent()).toContain('Status: New')
    expect(await page.getByText('29.99 USD', { exact: true }).isVisible()).toBe(true)

    await page.getByRole('button', { name: 'Pay half (underpay)' }).click()
    await page.getByRole('heading', { name: 'Partially paid' }).waitFor()
    expect(await page.getByRole('status').textContent()).toContain('New (PaidPartial)')

    await page.getByRole('button', { name: 'Pay in full' }).click()
    await page.getByRole('heading', { name: 'Payment received' }).waitFor()
    expect(await page.getByRole('status').textContent()).toContain('Settled')
    expect(await page.getByRole('button', { name: 'Pay in full' }).count()).toBe(0)

    const back = page.getByRole('link', { name: 'Return to EdgeClub' })
    expect(await back.getAttribute('href')).toBe(`${appUrl}/billing/return?invoice=${invoice.id}`)
    await back.click()
    await page.getByRole('heading', { name: 'Welcome back' }).waitFor()
    expect(page.url()).toBe(`${appUrl}/billing/return?invoice=${invoice.id}`)
    await page.close()

    expect((await client.getInvoice(invoice.id)).status).toBe('Settled')
    await emulator.btcpay.flush()
    expect(receiver.received.map((entry) => entry.payload.type)).toEqual([
      'InvoiceCreated',
      'InvoiceReceivedPayment',
      'InvoiceReceivedPayment',
      'InvoiceProcessing',
      'InvoiceSettled',
    ])
  })

  it('lets an invoice expire', async () => {
    const invoice = await client.createInvoice({ amount: '5', currency: 'USD' })
    const page = await browser.newPage()
    await page.goto(invoice.checkoutLink)
    await page.getByRole('button', { name: 'Let it expire' }).click()
    await page.getByRole('heading', { name: 'Invoice expired' }).waitFor()
    expect(await page.getByRole('button').count()).toBe(0)
    await page.close()
    expect((await client.getInvoice(invoice.id)).status).toBe('Expired')
  })

  it('redirects straight back when redirectAutomatically is set', async () => {
    const invoice = await client.createInvoice({
      amount: '5',
      currency: 'USD',
      checkout: { redirectURL: `${appUrl}/billing/return?invoice={InvoiceId}`, redirectAutomatically: true },
    })
    const page = await browser.newPage()
    await page.goto(invoice.checkoutLink)
    await page.getByRole('button', { name: 'Pay in full' }).click()
    await page.getByRole('heading', { name: 'Welcome back' }).waitFor()
    expect(page.url()).toBe(`${appUrl}/billing/return?invoice=${invoice.id}`)
    await page.close()
  })
})
