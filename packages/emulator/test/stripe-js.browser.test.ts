import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { type Browser, chromium, type Page } from 'playwright-core'
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Emulator, startEmulator } from '../src/server'

/**
 * The fake Stripe.js in a real browser, on a page with a strict Content-Security-Policy (no inline
 * scripts or styles): a person types a card into the card Element by its labels and pays; a 3-D
 * Secure card goes through the in-page challenge.
 */

const PAGE_SCRIPT = `
const params = new URLSearchParams(location.search)
window.__violations = []
document.addEventListener('securitypolicyviolation', (event) => {
  window.__violations.push(event.violatedDirective + ' ' + event.blockedURI)
})
const stripe = Stripe(params.get('pk'))
const elements = stripe.elements()
const card = elements.create('card', { style: { base: { fontSize: '16px', color: '#1a1f36' } } })
card.mount('#card')
window.__changes = []
card.on('change', (event) => {
  window.__changes.push(event)
  document.getElementById('error').textContent = event.error ? event.error.message : ''
})
card.on('ready', () => { document.body.dataset.ready = 'true' })
document.getElementById('pay').addEventListener('submit', async (event) => {
  event.preventDefault()
  document.getElementById('error').textContent = ''
  const data = { payment_method: { card, billing_details: { name: document.getElementById('name').value } } }
  if (params.get('mode') === 'setup') {
    const result = await stripe.confirmCardSetup(params.get('cs'), data)
    if (result.error) document.getElementById('error').textContent = result.error.message
    else document.getElementById('result').textContent = 'Card saved: ' + result.setupIntent.status
    return
  }
  const result = await stripe.confirmCardPayment(params.get('cs'), data)
  if (result.error) document.getElementById('error').textContent = result.error.message
  else document.getElementById('result').textContent = 'Payment ' + result.paymentIntent.status
})
`

let emulator: Emulator
let stripe: Stripe
let browser: Browser
let site: http.Server
let siteUrl: string

beforeAll(async () => {
  emulator = await startEmulator()
  stripe = new Stripe(emulator.stripe.secretKey, {
    host: '127.0.0.1',
    port: new URL(emulator.url).port,
    protocol: 'http',
    maxNetworkRetries: 0,
  })
  site = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://site.local')
    if (url.pathname === '/app.js') {
      res.writeHead(200, { 'content-type': 'application/javascript' }).end(PAGE_SCRIPT)
      return
    }
    const scriptSrc =
      url.searchParams.get('via') === 'js.stripe.com'
        ? 'https://js.stripe.com/v3'
        : `${emulator.url}/stripe-js/v3`
    res
      .writeHead(200, {
        'content-type': 'text/html; charset=utf-8',
        'content-security-policy': `default-src 'none'; script-src 'self' ${emulator.url} https://js.stripe.com; connect-src ${emulator.url}; style-src 'self'; base-uri 'none'; form-action 'self'`,
      })
      .end(
        `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Checkout</title>` +
          `<script src="${scriptSrc}"></script><script src="/app.js" defer></script></head>` +
          `<body><main><form id="pay"><label for="name">Name on card</label><input id="name" value="Card Holder">` +
          `<div id="card"></div><button type="submit">Pay</button><p id="error" role="alert"></p>` +
          `<p id="result" role="status"></p></form></main></body></html>`,
      )
  })
  await new Promise<void>((resolve) => site.listen(0, '127.0.0.1', resolve))
  siteUrl = `http://127.0.0.1:${(site.address() as AddressInfo).port}`
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
}, 30_000)

afterAll(async () => {
  await browser?.close()
  await new Promise<void>((resolve) => {
    site?.closeAllConnections()
    site?.close(() => resolve())
  })
  await emulator?.close()
})

async function checkout(options: { via?: string } = {}) {
  const pi = await stripe.paymentIntents.create({
    amount: 2900,
    currency: 'usd',
    allowed_payment_method_types: ['card'],
  })
  const page = await browser.newPage()
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  if (options.via === 'js.stripe.com') {
    // How an end-to-end test points the real Stripe.js URL at the emulator.
    await page.route('https://js.stripe.com/v3', async (route) => {
      route.fulfill({ response: await route.fetch({ url: `${emulator.url}/stripe-js/v3` }) })
    })
  }
  const query = new URLSearchParams({ pk: emulator.stripe.publishableKey, cs: pi.client_secret ?? '' })
  if (options.via) query.set('via', options.via)
  await page.goto(`${siteUrl}/?${query}`)
  await page.waitForSelector('body[data-ready="true"]')
  return { pi, page, consoleErrors }
}

/** The card form in setup mode: a SetupIntent for a customer, confirmed with confirmCardSetup. */
async function saveCardPage() {
  const customer = await stripe.customers.create({ email: 'saver@example.com' })
  const si = await stripe.setupIntents.create({ customer: customer.id, usage: 'off_session' })
  const page = await browser.newPage()
  const consoleErrors: string[] = []
  page.on('console', (message) => {
    if (message.type() === 'error') consoleErrors.push(message.text())
  })
  const query = new URLSearchParams({
    pk: emulator.stripe.publishableKey,
    cs: si.client_secret ?? '',
    mode: 'setup',
  })
  await page.goto(`${siteUrl}/?${query}`)
  await page.waitForSelector('body[data-ready="true"]')
  return { customer, si, page, consoleErrors }
}

async function typeCard(page: Page, number: string, expiry = '12 / 34', cvc = '123', zip = '10001') {
  await page.getByLabel('Card number').pressSequentially(number)
  await page.getByLabel('Expiration date').fill(expiry)
  await page.getByLabel('Security code').fill(cvc)
  await page.getByLabel('ZIP').fill(zip)
}

async function expectCleanCsp(page: Page, consoleErrors: string[]) {
  expect(
    await page.evaluate(() => (globalThis as unknown as { __violations: string[] }).__violations),
  ).toEqual([])
  expect(consoleErrors.filter((text) => text.includes('Content Security Policy'))).toEqual([])
}

describe('fake Stripe.js', () => {
  it('takes a typed card and confirms the PaymentIntent', async () => {
    const { pi, page, consoleErrors } = await checkout()
    const number = page.getByLabel('Card number')
    await expect.poll(() => number.getAttribute('placeholder')).toBe('1234 1234 1234 1234')
    await typeCard(page, '4242 4242 4242 4242')
    expect(await number.inputValue()).toBe('4242 4242 4242 4242')
    expect(await page.getByLabel('Expiration date').inputValue()).toBe('12 / 34')
    const last = await page.evaluate(() => {
      const changes = (globalThis as unknown as { __changes: Array<Record<string, unknown>> }).__changes
      return changes.at(-1)
    })
    expect(last).toMatchObject({
      elementType: 'card',
      complete: true,
      empty: false,
      brand: 'visa',
      value: { postalCode: '10001' },
    })
    expect(await page.locator('#card').getAttribute('class')).toContain('StripeElement--complete')

    await page.getByRole('button', { name: 'Pay' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Payment succeeded')
    const paid = await stripe.paymentIntents.retrieve(pi.id, { expand: ['payment_method'] })
    expect(paid.status).toBe('succeeded')
    expect(paid.payment_method).toMatchObject({
      card: { last4: '4242', exp_month: 12, exp_year: 2034, brand: 'visa' },
      billing_details: { name: 'Card Holder', address: { postal_code: '10001' } },
    })
    await expectCleanCsp(page, consoleErrors)
    await page.close()
  })

  it("validates like Stripe's card field and shows declines", async () => {
    const { page, consoleErrors } = await checkout()
    const alert = page.getByRole('alert')
    await page.getByRole('button', { name: 'Pay' }).click()
    await expect.poll(() => alert.textContent()).toBe('Your card number is incomplete.')

    await page.getByLabel('Card number').fill('4242 4242 4242 4241')
    await expect.poll(() => alert.textContent()).toBe('Your card number is invalid.')
    expect(await page.getByLabel('Card number').getAttribute('aria-invalid')).toBe('true')
    await page.getByLabel('Card number').fill('4242 42')
    await page.getByLabel('Expiration date').focus()
    await expect.poll(() => alert.textContent()).toBe('Your card number is incomplete.')
    await page.getByLabel('Card number').fill('4000 0000 0000 0002')
    await page.getByLabel('Expiration date').fill('12 / 20')
    await expect.poll(() => alert.textContent()).toBe("Your card's expiration year is in the past.")
    await page.getByLabel('Expiration date').fill('1')
    await page.getByLabel('Security code').focus()
    await expect.poll(() => alert.textContent()).toBe("Your card's expiration date is incomplete.")
    await page.getByLabel('Expiration date').fill('12 / 34')
    await page.getByLabel('Security code').fill('1')
    await page.getByLabel('ZIP').focus()
    await expect.poll(() => alert.textContent()).toBe("Your card's security code is incomplete.")
    await page.getByLabel('Security code').fill('123')
    await page.getByLabel('ZIP').fill('10001')
    await expect.poll(() => alert.textContent()).toBe('')

    await page.getByRole('button', { name: 'Pay' }).click()
    await expect.poll(() => alert.textContent()).toBe('Your card was declined.')
    await expectCleanCsp(page, consoleErrors)
    await page.close()
  })

  it('groups an American Express number 4-6-5 and wants its four-digit security code', async () => {
    const { pi, page } = await checkout()
    const number = page.getByLabel('Card number')
    await number.pressSequentially('378282246310005999')
    expect(await number.inputValue()).toBe('3782 822463 10005')
    await page.getByLabel('Expiration date').fill('12 / 34')
    await page.getByLabel('Security code').fill('123')
    await page.getByLabel('ZIP').focus()
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe("Your card's security code is incomplete.")
    await page.getByLabel('Security code').fill('1234')
    await page.getByLabel('ZIP').fill('10001')
    await page.getByRole('button', { name: 'Pay' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Payment succeeded')
    const paid = await stripe.paymentIntents.retrieve(pi.id, { expand: ['payment_method'] })
    expect(paid.payment_method).toMatchObject({ card: { brand: 'amex', last4: '0005' } })
    await page.close()
  })

  it('runs the 3-D Secure dialog, loaded as https://js.stripe.com/v3 routed to the emulator', async () => {
    const { pi, page, consoleErrors } = await checkout({ via: 'js.stripe.com' })
    await typeCard(page, '4000 0025 0000 3155')
    await page.getByRole('button', { name: 'Pay' }).click()
    const dialog = page.getByRole('dialog', { name: 'Authenticate your payment' })
    await dialog.waitFor()
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('requires_action')
    await dialog.getByRole('button', { name: 'Complete authentication' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Payment succeeded')
    expect(await dialog.count()).toBe(0)
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('succeeded')
    await expectCleanCsp(page, consoleErrors)
    await page.close()
  })

  it('reports a failed 3-D Secure challenge with Stripe’s message', async () => {
    const { pi, page } = await checkout()
    await typeCard(page, '4000 0025 0000 3155')
    await page.getByRole('button', { name: 'Pay' }).click()
    await page
      .getByRole('dialog', { name: 'Authenticate your payment' })
      .getByRole('button', { name: 'Fail authentication' })
      .click()
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toBe(
        'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
      )
    expect((await stripe.paymentIntents.retrieve(pi.id)).status).toBe('requires_payment_method')
    await page.close()
  })

  it('saves a typed card with confirmCardSetup and attaches it to the customer', async () => {
    const { customer, si, page, consoleErrors } = await saveCardPage()
    await typeCard(page, '5555 5555 5555 4444')
    await page.getByRole('button', { name: 'Pay' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Card saved: succeeded')
    const saved = await stripe.setupIntents.retrieve(si.id, { expand: ['payment_method'] })
    expect(saved.status).toBe('succeeded')
    expect(saved.payment_method).toMatchObject({
      customer: customer.id,
      card: { brand: 'mastercard', last4: '4444' },
      billing_details: { name: 'Card Holder', address: { postal_code: '10001' } },
    })
    await expectCleanCsp(page, consoleErrors)
    await page.close()
  })

  it('runs 3-D Secure for a card that needs it on setup, and shows a declined card', async () => {
    const { si, page } = await saveCardPage()
    await typeCard(page, '4000 0000 0000 0002')
    await page.getByRole('button', { name: 'Pay' }).click()
    await expect.poll(() => page.getByRole('alert').textContent()).toBe('Your card was declined.')

    await page.getByLabel('Card number').fill('4000 0025 0000 3155')
    await page.getByRole('button', { name: 'Pay' }).click()
    const dialog = page.getByRole('dialog', { name: 'Authenticate your payment' })
    await dialog.waitFor()
    expect((await stripe.setupIntents.retrieve(si.id)).status).toBe('requires_action')
    await dialog.getByRole('button', { name: 'Complete authentication' }).click()
    await expect.poll(() => page.getByRole('status').textContent()).toBe('Card saved: succeeded')
    const retrieved = await page.evaluate(async (secret) => {
      const instance = (
        globalThis as unknown as { Stripe: (key: string) => Record<string, (s: string) => Promise<unknown>> }
      ).Stripe('pk_test_emulator')
      return instance.retrieveSetupIntent?.(secret)
    }, si.client_secret ?? '')
    expect(retrieved).toMatchObject({ setupIntent: { id: si.id, status: 'succeeded' } })
    await page.close()
  })

  it('looks like Stripe.js to @stripe/stripe-js and @stripe/react-stripe-js', async () => {
    const { page } = await checkout()
    const surface = await page.evaluate(() => {
      const StripeCtor = (
        globalThis as unknown as { Stripe: ((key: string) => Record<string, unknown>) & { version: string } }
      ).Stripe
      const instance = StripeCtor('pk_test_emulator')
      const elements = (instance.elements as () => Record<string, (...args: unknown[]) => unknown>)()
      const card = elements.create?.('card') as Record<string, unknown>
      return {
        version: StripeCtor.version,
        methods: [
          'elements',
          'createToken',
          'createPaymentMethod',
          'confirmCardPayment',
          'retrievePaymentIntent',
          'confirmCardSetup',
          'retrieveSetupIntent',
          'handleCardSetup',
          'handleNextAction',
          '_registerWrapper',
          'registerAppInfo',
        ].filter((name) => typeof instance[name] === 'function').length,
        elementMethods: [
          'mount',
          'unmount',
          'destroy',
          'on',
          'off',
          'once',
          'update',
          'focus',
          'blur',
          'clear',
        ].filter((name) => typeof card[name] === 'function').length,
        found: elements.getElement?.('card') === card,
      }
    })
    expect(surface).toEqual({ version: 'endive', methods: 11, elementMethods: 10, found: true })
    await page.close()
  })
})
