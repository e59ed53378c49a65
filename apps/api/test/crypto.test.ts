import { createHmac } from 'node:crypto'
import { cryptoMessages } from '@edgeclub/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  BtcpayError,
  createBtcpayClient,
  parseBtcpayEvent,
  verifyBtcpaySignature,
} from '../src/integrations/btcpay/btcpay-client'
import { eventually } from './helpers/billing'
import {
  type CryptoHarness,
  createCrypto,
  createCryptoHarness,
  cryptoCheckout,
  paymentRow,
  periodsOf,
  planIdOf,
  startLossyProxy,
} from './helpers/crypto'
import { as, register } from './helpers/members'
import { createTestApp } from './helpers/test-app'

const API = '/discord/api'
const DAY = 24 * 3600 * 1000

describe('crypto payments through BTCPay', () => {
  let h: CryptoHarness

  beforeAll(async () => {
    h = await createCryptoHarness()
  })
  afterAll(async () => {
    await h?.close()
  })

  const status = async (token: string) =>
    (await as(h.t.app, token, { method: 'GET', url: `${API}/subscriptions/status` })).json().data
  const history = async (token: string, query = '') =>
    (await as(h.t.app, token, { method: 'GET', url: `${API}/payments/history${query}` })).json().data
  const webhookEvents = (ids: string[]) =>
    h.t.database.db.selectFrom('webhook_events').selectAll().where('id', 'in', ids).execute()
  const deliveriesOf = (invoiceId: string, type?: string) =>
    h.emulator.btcpay
      .deliveries()
      .filter((d) => d.invoiceId === invoiceId && (type === undefined || d.type === type))
  const signedPost = (body: string, secret = h.emulator.btcpay.webhookSecret) =>
    fetch(h.btcpayWebhookUrl, {
      method: 'POST',
      headers: {
        'content-type': 'application/json',
        'btcpay-sig': `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`,
      },
      body,
    })

  describe('our BTCPay client (contract, against the emulator)', () => {
    const client = () =>
      createBtcpayClient({
        url: `${h.emulator.url}/btcpay`,
        apiKey: h.emulator.btcpay.apiKey,
        storeId: h.emulator.btcpay.storeId,
      })

    it('creates and reads invoices as Greenfield describes them', async () => {
      const invoice = await client().createInvoice({
        amount: '12.50',
        currency: 'USD',
        metadata: { orderId: 'order-1', paymentId: 'order-1' },
        redirectUrl: 'http://club.test/dashboard?tab=payments',
        expirationMinutes: 15,
      })
      expect(invoice).toMatchObject({
        status: 'New',
        amount: '12.50',
        currency: 'USD',
        storeId: h.emulator.btcpay.storeId,
        metadata: { orderId: 'order-1', paymentId: 'order-1' },
      })
      expect(invoice.checkoutLink).toContain(`/btcpay/i/${invoice.id}`)
      expect(invoice.expirationTime - invoice.createdTime).toBe(15 * 60)
      expect(h.emulator.btcpay.invoice(invoice.id)?.checkout.redirectURL).toBe(
        'http://club.test/dashboard?tab=payments',
      )
      expect(await client().getInvoice(invoice.id)).toEqual(invoice)
    })

    it('turns refusals and outages into BtcpayErrors with the status and code', async () => {
      const invoice = await client().createInvoice({
        amount: '1.00',
        currency: 'USD',
        metadata: {},
        redirectUrl: 'http://club.test/',
        expirationMinutes: 15,
      })
      const wrongKey = createBtcpayClient({
        url: `${h.emulator.url}/btcpay`,
        apiKey: 'nope',
        storeId: h.emulator.btcpay.storeId,
      })
      await expect(wrongKey.getInvoice(invoice.id)).rejects.toMatchObject({
        status: 401,
        code: 'unauthenticated',
      })
      await expect(client().getInvoice('NoSuchInvoice')).rejects.toMatchObject({
        status: 404,
        code: 'invoice-not-found',
      })
      const otherStore = createBtcpayClient({
        url: `${h.emulator.url}/btcpay`,
        apiKey: h.emulator.btcpay.apiKey,
        storeId: 'SomeoneElsesStore',
      })
      await expect(otherStore.getInvoice(invoice.id)).rejects.toMatchObject({
        status: 404,
        code: 'store-not-found',
      })
      await expect(
        client().createInvoice({
          amount: '-5',
          currency: 'USD',
          metadata: {},
          redirectUrl: 'http://club.test/',
          expirationMinutes: 15,
        }),
      ).rejects.toMatchObject({ status: 422 })
      const down = createBtcpayClient({ url: 'http://127.0.0.1:9', apiKey: 'k', storeId: 's' })
      const error = await down.getInvoice('x').catch((caught: unknown) => caught)
      expect(error).toBeInstanceOf(BtcpayError)
      expect(error).toMatchObject({ status: 0, message: expect.stringContaining('unreachable') })
    })

    it('verifies BTCPay-Sig on the exact bytes BTCPay sent', async () => {
      const invoice = await client().createInvoice({
        amount: '2.00',
        currency: 'USD',
        metadata: {},
        redirectUrl: 'http://club.test/',
        expirationMinutes: 15,
      })
      await h.emulator.btcpay.flush()
      const delivery = deliveriesOf(invoice.id, 'InvoiceCreated')[0]!
      const raw = Buffer.from(delivery.body)
      const secret = h.emulator.btcpay.webhookSecret
      expect(verifyBtcpaySignature(raw, delivery.signature!, secret)).toBe(true)
      expect(verifyBtcpaySignature(raw, delivery.signature!, 'another-secret')).toBe(false)
      expect(verifyBtcpaySignature(Buffer.from(`${delivery.body} `), delivery.signature!, secret)).toBe(false)
      expect(verifyBtcpaySignature(raw, undefined, secret)).toBe(false)
      expect(verifyBtcpaySignature(raw, 'sha256=zz', secret)).toBe(false)
      expect(parseBtcpayEvent(raw)).toMatchObject({
        type: 'InvoiceCreated',
        invoiceId: invoice.id,
        deliveryId: delivery.id,
        originalDeliveryId: delivery.id,
        isRedelivery: false,
      })
      expect(parseBtcpayEvent(Buffer.from('not json'))).toBeUndefined()
    })
  })

  it('API-16 creates an invoice for the plan price (never the client amount), reused while open', async () => {
    const member = await register(h.t.app)
    const planId = await planIdOf(h, 'monthly')
    const response = await createCrypto(h, member.accessToken, planId, { amount: 1 })
    expect(response.statusCode, response.body).toBe(200)
    const first = response.json().data
    expect(first).toMatchObject({
      amount: 39.99,
      currency: 'USD',
      checkoutUrl: expect.stringContaining('/btcpay/i/'),
    })
    const minutes = (Date.parse(first.expiresAt) - Date.now()) / 60_000
    expect(minutes).toBeGreaterThan(25)
    expect(minutes).toBeLessThanOrEqual(30)
    const invoice = h.emulator.btcpay.invoice(first.invoiceId)!
    expect(invoice).toMatchObject({ amount: '39.99', currency: 'USD' })
    expect(invoice.checkout.redirectURL).toBe(`${h.t.config.appOrigin}/dashboard?tab=payments`)
    expect(await paymentRow(h, first.paymentId)).toMatchObject({
      provider: 'crypto',
      status: 'pending',
      amount_minor: 3999,
      btcpay_invoice_id: first.invoiceId,
    })

    const again = await cryptoCheckout(h, member.accessToken, 'monthly')
    expect(again).toEqual(first)
    const listed = await history(member.accessToken)
    expect(listed.items).toHaveLength(1)
    expect(listed.items[0]).toMatchObject({
      provider: 'crypto',
      status: 'pending',
      checkoutUrl: first.checkoutUrl,
      expiresAt: first.expiresAt,
      stripeClientSecret: null,
    })
  })

  it('a double click opens one invoice and one pending payment', async () => {
    const member = await register(h.t.app)
    const planId = await planIdOf(h, 'yearly')
    const [a, b] = await Promise.all([
      createCrypto(h, member.accessToken, planId),
      createCrypto(h, member.accessToken, planId),
    ])
    expect(a.statusCode, a.body).toBe(200)
    expect(b.statusCode, b.body).toBe(200)
    expect(a.json().data.invoiceId).toBe(b.json().data.invoiceId)
    const rows = await h.t.database.db
      .selectFrom('payments')
      .select('id')
      .where('user_id', '=', member.user.id)
      .execute()
    expect(rows).toHaveLength(1)
  })

  it('a settled invoice grants the same access as a card, once, however often BTCPay tells us', async () => {
    const member = await register(h.t.app)
    const invoice = await cryptoCheckout(h, member.accessToken, 'monthly')
    h.emulator.btcpay.pay(invoice.invoiceId)
    await h.emulator.btcpay.flush()
    await eventually(
      () => status(member.accessToken),
      (s) => s.hasAccess,
    )
    const settled = deliveriesOf(invoice.invoiceId, 'InvoiceSettled')
    for (const delivery of settled) h.emulator.btcpay.duplicateDelivery(delivery.id)
    h.emulator.btcpay.duplicateDelivery(settled[0]!.id)
    await h.emulator.btcpay.flush()

    expect(await paymentRow(h, invoice.paymentId)).toMatchObject({
      status: 'completed',
      failure_message: null,
    })
    expect(await periodsOf(h, member.user.id)).toBe(1)
    const s = await status(member.accessToken)
    expect(s.activeSubscription).toMatchObject({ provider: 'crypto', status: 'active' })
    const start = Date.parse(s.activeSubscription.startDate)
    const end = new Date(start)
    end.setUTCMonth(end.getUTCMonth() + 1)
    expect(Date.parse(s.activeSubscription.endDate)).toBe(end.getTime())

    // Recorded once per original delivery, as provider 'btcpay'.
    const events = await webhookEvents(deliveriesOf(invoice.invoiceId).map((d) => d.originalDeliveryId))
    expect(events.length).toBeGreaterThanOrEqual(3)
    expect(events.every((e) => e.provider === 'btcpay' && e.processed_at !== null)).toBe(true)
    expect(events.find((e) => e.id === settled[0]!.id)?.attempts).toBe(2)

    const byCrypto = await history(member.accessToken, '?provider=crypto')
    expect(byCrypto.items).toHaveLength(1)
    expect(byCrypto.items[0]).toMatchObject({ provider: 'crypto', status: 'completed', checkoutUrl: null })
    expect((await history(member.accessToken, '?provider=stripe')).items).toHaveLength(0)
  })

  it('events out of order change nothing twice: settled first, then the earlier ones', async () => {
    const member = await register(h.t.app)
    const invoice = await cryptoCheckout(h, member.accessToken, 'weekly')
    await h.emulator.btcpay.flush()
    const proxy = await startLossyProxy(h.btcpayWebhookUrl)
    h.emulator.btcpay.setWebhookUrl(proxy.url)
    try {
      h.emulator.btcpay.pauseDelivery()
      h.emulator.btcpay.pay(invoice.invoiceId)
      h.emulator.btcpay.reversePending()
      await h.emulator.btcpay.flush()
    } finally {
      h.emulator.btcpay.setWebhookUrl(h.btcpayWebhookUrl)
      await proxy.close()
    }
    expect(proxy.seen).toEqual(['InvoiceSettled', 'InvoiceProcessing', 'InvoiceReceivedPayment'])
    expect(await paymentRow(h, invoice.paymentId)).toMatchObject({
      status: 'completed',
      failure_message: null,
    })
    expect(await periodsOf(h, member.user.id)).toBe(1)
  })

  it('a delivery whose answer was lost comes back as a redelivery and is recorded once', async () => {
    const member = await register(h.t.app)
    const invoice = await cryptoCheckout(h, member.accessToken, 'weekly')
    await h.emulator.btcpay.flush()
    let lost = 0
    const proxy = await startLossyProxy(h.btcpayWebhookUrl, (event) => {
      if (event.type !== 'InvoiceSettled' || event.isRedelivery) return false
      lost += 1
      return true
    })
    h.emulator.btcpay.setWebhookUrl(proxy.url)
    try {
      h.emulator.btcpay.pay(invoice.invoiceId)
      await h.emulator.btcpay.flush()
    } finally {
      h.emulator.btcpay.setWebhookUrl(h.btcpayWebhookUrl)
      await proxy.close()
    }
    expect(lost).toBe(1)
    const settled = deliveriesOf(invoice.invoiceId, 'InvoiceSettled')
    const redelivery = settled.find((d) => d.isRedelivery)!
    expect(redelivery.id).not.toBe(redelivery.originalDeliveryId)
    const events = await webhookEvents(settled.map((d) => d.id))
    expect(events).toHaveLength(1)
    expect(events[0]).toMatchObject({ id: redelivery.originalDeliveryId, provider: 'btcpay', attempts: 1 })
    expect(await paymentRow(h, invoice.paymentId)).toMatchObject({ status: 'completed' })
    expect(await periodsOf(h, member.user.id)).toBe(1)
  })

  it('a bad or missing signature is refused and changes nothing', async () => {
    const member = await register(h.t.app)
    const invoice = await cryptoCheckout(h, member.accessToken, 'weekly')
    h.emulator.btcpay.pay(invoice.invoiceId, { confirm: false })
    const body = JSON.stringify({
      deliveryId: 'forged-delivery-1',
      originalDeliveryId: 'forged-delivery-1',
      type: 'InvoiceSettled',
      invoiceId: invoice.invoiceId,
      storeId: h.emulator.btcpay.storeId,
    })
    // Even were the invoice settled at BTCPay, a forged event must not be the one to tell us.
    const forged = await signedPost(body, 'not-the-secret')
    expect(forged.status).toBe(400)
    expect(await forged.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR' })
    const unsigned = await fetch(h.btcpayWebhookUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body,
    })
    expect(unsigned.status).toBe(400)
    expect(await webhookEvents(['forged-delivery-1'])).toHaveLength(0)
    expect(await paymentRow(h, invoice.paymentId)).toMatchObject({ status: 'pending' })
    expect(await periodsOf(h, member.user.id)).toBe(0)
  })

  it('Processing shows as pending until BTCPay settles it', async () => {
    const member = await register(h.t.app)
    const invoice = await cryptoCheckout(h, member.accessToken, 'weekly')
    h.emulator.btcpay.pay(invoice.invoiceId, { confirm: false })
    await h.emulator.btcpay.flush()
    expect(await paymentRow(h, invoice.paymentId)).toMatchObject({
      status: 'pending',
      failure_message: cryptoMessages.processing,
    })
    expect((await status(member.accessToken)).hasAccess).toBe(false)
    h.emulator.btcpay.settle(invoice.invoiceId)
    await h.emulator.btcpay.flush()
    expect(await paymentRow(h, invoice.paymentId)).toMatchObject({
      status: 'completed',
      failure_message: null,
    })
    expect((await status(member.accessToken)).hasAccess).toBe(true)
  })

  it('an underpaid invoice is not settled; expired it fails, and a new click opens a fresh invoice', async () => {
    const member = await register(h.t.app)
    const underpaid = await cryptoCheckout(h, member.accessToken, 'weekly')
    h.emulator.btcpay.pay(underpaid.invoiceId, { fraction: 0.5 })
    await h.emulator.btcpay.flush()
    expect(await paymentRow(h, underpaid.paymentId)).toMatchObject({
      status: 'pending',
      failure_message: cryptoMessages.underpaid,
    })
    expect((await status(member.accessToken)).hasAccess).toBe(false)
    // Still open: the member is sent back to the same invoice to pay the rest.
    expect((await cryptoCheckout(h, member.accessToken, 'weekly')).invoiceId).toBe(underpaid.invoiceId)
    h.emulator.btcpay.expire(underpaid.invoiceId)
    await h.emulator.btcpay.flush()
    expect(await paymentRow(h, underpaid.paymentId)).toMatchObject({
      status: 'failed',
      failure_message: cryptoMessages.expiredUnderpaid,
    })
    expect((await status(member.accessToken)).hasAccess).toBe(false)
    expect(await periodsOf(h, member.user.id)).toBe(0)
    const fresh = await cryptoCheckout(h, member.accessToken, 'weekly')
    expect(fresh.invoiceId).not.toBe(underpaid.invoiceId)
    expect(fresh.paymentId).not.toBe(underpaid.paymentId)
  })

  it('expired and invalid invoices fail the payment and grant nothing', async () => {
    const member = await register(h.t.app)
    const expired = await cryptoCheckout(h, member.accessToken, 'weekly')
    h.emulator.btcpay.expire(expired.invoiceId)
    await h.emulator.btcpay.flush()
    expect(await paymentRow(h, expired.paymentId)).toMatchObject({
      status: 'failed',
      failure_message: cryptoMessages.expired,
    })
    const invalid = await cryptoCheckout(h, member.accessToken, 'monthly')
    h.emulator.btcpay.invalidate(invalid.invoiceId, { manuallyMarked: true })
    await h.emulator.btcpay.flush()
    expect(await paymentRow(h, invalid.paymentId)).toMatchObject({
      status: 'failed',
      failure_message: cryptoMessages.invalid,
    })
    expect((await status(member.accessToken)).hasAccess).toBe(false)
    expect(await periodsOf(h, member.user.id)).toBe(0)
    const failed = await history(member.accessToken, '?provider=crypto')
    expect(failed.items.map((p: { status: string }) => p.status)).toEqual(['failed', 'failed'])
    expect(failed.items.every((p: { checkoutUrl: string | null }) => p.checkoutUrl === null)).toBe(true)
  })

  it('coins that arrive after the invoice expired still buy what they paid for', async () => {
    const member = await register(h.t.app)
    const invoice = await cryptoCheckout(h, member.accessToken, 'weekly')
    h.emulator.btcpay.expire(invoice.invoiceId)
    await h.emulator.btcpay.flush()
    expect((await paymentRow(h, invoice.paymentId)).status).toBe('failed')
    h.emulator.btcpay.pay(invoice.invoiceId)
    await h.emulator.btcpay.flush()
    expect(await paymentRow(h, invoice.paymentId)).toMatchObject({ status: 'completed' })
    expect((await status(member.accessToken)).hasAccess).toBe(true)
    expect(await periodsOf(h, member.user.id)).toBe(1)
  })

  it('a lost webhook is recovered by reconciliation', async () => {
    const member = await register(h.t.app)
    const invoice = await cryptoCheckout(h, member.accessToken, 'lifetime')
    await h.emulator.btcpay.flush()
    h.emulator.btcpay.pauseDelivery()
    try {
      h.emulator.btcpay.pay(invoice.invoiceId)
      expect((await status(member.accessToken)).hasAccess).toBe(false)
      // Too fresh: reconciliation leaves payments alone for a while (the webhook usually wins).
      expect((await h.t.app.services.crypto.reconciliation.reconcile()).settled).toBe(0)
      h.clock.advance(11 * 60 * 1000)
      expect((await h.t.app.services.crypto.reconciliation.reconcile()).settled).toBeGreaterThanOrEqual(1)
    } finally {
      h.clock.reset()
      h.emulator.btcpay.resumeDelivery()
    }
    expect(await status(member.accessToken)).toMatchObject({
      hasAccess: true,
      activeSubscription: { provider: 'crypto', endDate: null },
    })
    // The webhooks turn up late and change nothing.
    await h.emulator.btcpay.flush()
    expect(await periodsOf(h, member.user.id)).toBe(1)
    expect(await paymentRow(h, invoice.paymentId)).toMatchObject({ status: 'completed' })
  })

  it('another crypto plan starts when the paid one ends; by card the plan is changed instead; lifetime stays open', async () => {
    const member = await register(h.t.app)
    const weekly = await cryptoCheckout(h, member.accessToken, 'weekly')
    h.emulator.btcpay.pay(weekly.invoiceId)
    await h.emulator.btcpay.flush()
    const paid = await status(member.accessToken)
    expect(paid.hasAccess).toBe(true)
    const weeklyEnd = paid.activeSubscription?.endDate

    // Crypto never renews by itself: paying for another plan books it from the end of the paid week.
    const monthly = await cryptoCheckout(h, member.accessToken, 'monthly')
    h.emulator.btcpay.pay(monthly.invoiceId)
    await h.emulator.btcpay.flush()
    const rows = await h.t.app.services.access.currentAccess(member.user.id)
    expect(rows?.plan_slug).toBe('monthly')
    expect(new Date(rows!.start_date).toISOString()).toBe(weeklyEnd)
    expect(await periodsOf(h, member.user.id)).toBe(2)

    // A card checkout of another plan is refused: card members change plan in the Subscription tab.
    const byCard = await as(h.t.app, member.accessToken, {
      method: 'POST',
      url: `${API}/payments/create-intent`,
      payload: { planId: await planIdOf(h, 'yearly'), currency: 'USD' },
    })
    expect(byCard.statusCode).toBe(409)
    expect(byCard.json().message).toMatch(
      /^You already have an active Monthly membership until .*\. Change plans in the Subscription tab\.$/,
    )
    const lifetime = await createCrypto(h, member.accessToken, await planIdOf(h, 'lifetime'))
    expect(lifetime.statusCode, lifetime.body).toBe(200)
  })

  it('a plan paid on one rail closes its unfinished checkout on the other', async () => {
    const cardIntent = async (token: string, slug: string) => {
      const response = await as(h.t.app, token, {
        method: 'POST',
        url: `${API}/payments/create-intent`,
        payload: { planId: await planIdOf(h, slug), currency: 'USD' },
      })
      expect(response.statusCode, response.body).toBe(200)
      return response.json().data as { paymentId: string; paymentIntentId: string }
    }

    // Card checkout opened, then paid with crypto: the card checkout can no longer be paid.
    const member = await register(h.t.app)
    const card = await cardIntent(member.accessToken, 'monthly')
    const invoice = await cryptoCheckout(h, member.accessToken, 'monthly')
    h.emulator.btcpay.pay(invoice.invoiceId)
    await h.emulator.btcpay.flush()
    expect(await paymentRow(h, invoice.paymentId)).toMatchObject({ status: 'completed' })
    // Closing the other rail follows the payment through the outbox, a moment later.
    await eventually(
      () => paymentRow(h, card.paymentId),
      (row) => row.status !== 'pending',
    )
    expect(await paymentRow(h, card.paymentId)).toMatchObject({
      status: 'cancelled',
      failure_message: cryptoMessages.paidWithCrypto,
    })
    const subscriptionId = (await paymentRow(h, card.paymentId)).stripe_subscription_id!
    expect((await h.stripe.subscriptions.retrieve(subscriptionId)).status).toBe('canceled')
    expect(await periodsOf(h, member.user.id)).toBe(1)

    // Crypto invoice opened, then paid by card: the crypto payment closes (the invoice just expires).
    const other = await register(h.t.app)
    const open = await cryptoCheckout(h, other.accessToken, 'weekly')
    const paid = await cardIntent(other.accessToken, 'weekly')
    await h.stripe.paymentIntents.confirm(paid.paymentIntentId, { payment_method: 'pm_card_visa' })
    await as(h.t.app, other.accessToken, {
      method: 'POST',
      url: `${API}/payments/confirm`,
      payload: { paymentIntentId: paid.paymentIntentId },
    })
    expect(await paymentRow(h, paid.paymentId)).toMatchObject({ status: 'completed' })
    await eventually(
      () => paymentRow(h, open.paymentId),
      (row) => row.status !== 'pending',
    )
    expect(await paymentRow(h, open.paymentId)).toMatchObject({
      status: 'cancelled',
      failure_message: cryptoMessages.paidByCard,
    })
    expect((await history(other.accessToken, '?provider=crypto')).items[0].checkoutUrl).toBeNull()
  })

  it('paying again for the same crypto plan extends it, and a reminder comes 3 days before the end', async () => {
    const member = await register(h.t.app)
    const first = await cryptoCheckout(h, member.accessToken, 'weekly')
    h.emulator.btcpay.pay(first.invoiceId)
    await h.emulator.btcpay.flush()
    const before = (
      await eventually(
        () => status(member.accessToken),
        (s) => s.hasAccess,
      )
    ).activeSubscription.endDate
    const second = await cryptoCheckout(h, member.accessToken, 'weekly')
    h.emulator.btcpay.pay(second.invoiceId)
    await h.emulator.btcpay.flush()
    const after = await eventually(
      () => status(member.accessToken),
      (s) => s.activeSubscription.endDate !== before,
    )
    expect(Date.parse(after.activeSubscription.endDate) - Date.parse(before)).toBe(7 * DAY)
    expect(await periodsOf(h, member.user.id)).toBe(2)
    const subscriptions = await h.t.database.db
      .selectFrom('subscriptions')
      .select('id')
      .where('user_id', '=', member.user.id)
      .execute()
    expect(subscriptions).toHaveLength(1)

    const reminders = () => h.t.app.services.access.remindCryptoRenewals()
    expect(await reminders()).toBe(0)
    h.clock.advance(Date.parse(after.activeSubscription.endDate) - Date.now() - 2 * DAY)
    try {
      expect(await reminders()).toBeGreaterThanOrEqual(1)
      expect(await reminders()).toBe(0)
    } finally {
      h.clock.reset()
    }
    const mail = await h.smtp.waitFor(
      (message) =>
        JSON.stringify(message.to).includes(member.user.email) && /ends on/.test(message.subject ?? ''),
    )
    expect(mail.text ?? '').toContain('/dashboard?tab=subscription')
  })

  it('a signed event for an invoice that is not ours is acknowledged and changes nothing', async () => {
    const body = JSON.stringify({
      deliveryId: 'foreign-delivery-1',
      originalDeliveryId: 'foreign-delivery-1',
      isRedelivery: false,
      type: 'InvoiceSettled',
      invoiceId: 'NotAnInvoiceOfOurs',
      storeId: h.emulator.btcpay.storeId,
    })
    const response = await signedPost(body)
    expect(response.status).toBe(200)
    expect(((await response.json()) as { data: unknown }).data).toMatchObject({ outcome: 'unknown' })
    const otherStore = await signedPost(
      JSON.stringify({
        deliveryId: 'foreign-delivery-2',
        type: 'InvoiceSettled',
        invoiceId: 'x',
        storeId: 'Other',
      }),
    )
    expect(((await otherStore.json()) as { data: unknown }).data).toMatchObject({ outcome: 'ignored' })
    const notAnEvent = await signedPost(JSON.stringify({ hello: 'world' }))
    expect(notAnEvent.status).toBe(400)
  })
})

describe('without BTCPay configured', () => {
  it('says crypto is not available, and a store without its webhook secret is not offered', async () => {
    for (const env of [
      {} as Record<string, string>,
      { BTCPAY_URL: 'http://127.0.0.1:9/btcpay', BTCPAY_API_KEY: 'key', BTCPAY_STORE_ID: 'store' },
    ]) {
      const t = await createTestApp({ env })
      try {
        const member = await register(t.app)
        const plan = (await t.app.inject({ method: 'GET', url: `${API}/subscriptions/plans` })).json().data[0]
        const response = await as(t.app, member.accessToken, {
          method: 'POST',
          url: `${API}/payments/create-crypto`,
          payload: { planId: plan.id },
        })
        expect(response.statusCode).toBe(503)
        expect(response.json()).toMatchObject({ error: 'PAYMENT_ERROR', message: cryptoMessages.unavailable })
        expect((await t.app.inject({ method: 'GET', url: `${API}/config` })).json().data.cryptoEnabled).toBe(
          false,
        )
        const webhook = await t.app.inject({
          method: 'POST',
          url: `${API}/webhooks/btcpay`,
          payload: { deliveryId: 'd', type: 'InvoiceSettled' },
        })
        expect(webhook.statusCode).toBe(404)
        expect(
          await t.database.db
            .selectFrom('payments')
            .select('id')
            .where('user_id', '=', member.user.id)
            .execute(),
        ).toHaveLength(0)
      } finally {
        await t.close()
      }
    }
  })
})
