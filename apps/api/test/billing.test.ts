import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type BillingHarness,
  counts,
  createBillingHarness,
  eventually,
  memberWithCheckout,
  plansBySlug,
  statusOf,
} from './helpers/billing'
import { as, login, register } from './helpers/members'
import { createTestApp } from './helpers/test-app'

const API = '/discord/api'
const DAY = 24 * 60 * 60 * 1000

describe('payments and memberships through Stripe', () => {
  let h: BillingHarness
  beforeAll(async () => {
    h = await createBillingHarness()
  })
  afterAll(() => h.close())

  const pay = (paymentIntentId: string, method = 'pm_card_visa') =>
    h.stripe.paymentIntents
      .confirm(paymentIntentId, { payment_method: method })
      .catch((error: unknown) => error)
  const confirm = (token: string, paymentIntentId: string) =>
    as(h.t.app, token, { method: 'POST', url: `${API}/payments/confirm`, payload: { paymentIntentId } })

  it('API-15 PAYMENT-16 creates a payment intent for the plan price, ignoring any amount the client sends', async () => {
    const member = await register(h.t.app)
    const plans = await plansBySlug(h)
    const response = await as(h.t.app, member.accessToken, {
      method: 'POST',
      url: `${API}/payments/create-intent`,
      payload: { planId: plans.monthly!.id, currency: 'USD', amount: 0.01, price: 1 },
    })
    expect(response.statusCode).toBe(200)
    const { data } = response.json()
    expect(data).toMatchObject({
      clientSecret: expect.stringContaining('_secret_'),
      paymentIntentId: expect.stringMatching(/^pi_/),
      amount: 39.99,
      currency: 'USD',
      plan: { slug: 'monthly', name: 'Monthly' },
    })
    const intent = await h.stripe.paymentIntents.retrieve(data.paymentIntentId)
    expect(intent.amount).toBe(3999)
  })

  it('a monthly checkout paid by card (4242) gives access for the period, once, with a receipt', async () => {
    const { member, intent } = await memberWithCheckout(h, 'monthly')
    expect((await statusOf(h, member.accessToken)).hasAccess).toBe(false)
    await pay(intent.paymentIntentId)
    const confirmed = await confirm(member.accessToken, intent.paymentIntentId)
    expect(confirmed.json().data).toMatchObject({ status: 'completed', stripeStatus: 'succeeded' })
    const status = await statusOf(h, member.accessToken)
    expect(status.hasAccess).toBe(true)
    expect(status.activeSubscription).toMatchObject({
      status: 'active',
      planId: { name: 'Monthly' },
      cancelAtPeriodEnd: false,
    })
    const days = (Date.parse(status.activeSubscription!.endDate!) - Date.now()) / DAY
    expect(days).toBeGreaterThan(27)
    expect(days).toBeLessThan(32)
    await h.emulator.stripe.flushWebhooks()
    expect(await counts(h, member.user.id)).toEqual({
      completed: 1,
      payments: 1,
      subscriptions: 1,
      periods: 1,
    })
    const receipt = await h.smtp.waitFor(
      (mail) => JSON.stringify(mail.to).includes(member.user.email) && /receipt/.test(mail.subject ?? ''),
    )
    expect(receipt.text).toContain('$39.99')
  })

  it('a lifetime purchase gives access with no end date', async () => {
    const { member, intent } = await memberWithCheckout(h, 'lifetime')
    await pay(intent.paymentIntentId)
    await eventually(
      () => statusOf(h, member.accessToken),
      (status) => status.hasAccess,
    )
    const status = await statusOf(h, member.accessToken)
    expect(status.activeSubscription).toMatchObject({ status: 'active', endDate: null })
  })

  it('a double click reuses the open checkout instead of starting a second', async () => {
    const member = await register(h.t.app)
    const plans = await plansBySlug(h)
    const create = () =>
      as(h.t.app, member.accessToken, {
        method: 'POST',
        url: `${API}/payments/create-intent`,
        payload: { planId: plans.yearly!.id, currency: 'USD' },
      })
    const [a, b] = await Promise.all([create(), create()])
    expect(a.json().data.paymentIntentId).toBe(b.json().data.paymentIntentId)
    const c = await create()
    expect(c.json().data.paymentIntentId).toBe(a.json().data.paymentIntentId)
    expect((await counts(h, member.user.id)).payments).toBe(1)
    const stripeSubscriptions = await h.stripe.subscriptions.list({
      customer: (
        await h.t.database.db
          .selectFrom('users')
          .select('stripe_customer_id')
          .where('id', '=', member.user.id)
          .executeTakeFirstOrThrow()
      ).stripe_customer_id!,
    })
    expect(stripeSubscriptions.data).toHaveLength(1)
  })

  it('SUB-10 an unknown or inactive plan is "Selected plan not found"', async () => {
    const member = await register(h.t.app)
    for (const planId of ['00000000-0000-0000-0000-000000000000', 'not-a-plan']) {
      const response = await as(h.t.app, member.accessToken, {
        method: 'POST',
        url: `${API}/payments/create-intent`,
        payload: { planId, currency: 'USD' },
      })
      expect(response.statusCode).toBe(404)
      expect(response.json()).toMatchObject({
        success: false,
        error: 'NOT_FOUND',
        message: 'Selected plan not found',
      })
    }
  })

  it('a declined card (chargeDeclined) fails the payment with the reason and grants nothing', async () => {
    const { member, intent } = await memberWithCheckout(h, 'monthly')
    const error = await pay(intent.paymentIntentId, 'pm_card_chargeDeclined')
    expect(error).toMatchObject({ type: 'StripeCardError', code: 'card_declined' })
    const confirmed = await confirm(member.accessToken, intent.paymentIntentId)
    expect(confirmed.json().data.status).toBe('failed')
    expect((await statusOf(h, member.accessToken)).hasAccess).toBe(false)
    const history = (
      await as(h.t.app, member.accessToken, { method: 'GET', url: `${API}/payments/history?limit=10` })
    ).json().data
    expect(history.items[0]).toMatchObject({ status: 'failed', failureMessage: 'Your card was declined.' })
  })

  it('a card that needs authentication waits for 3-D Secure, then grants access', async () => {
    const { member, intent } = await memberWithCheckout(h, 'weekly')
    const result = await pay(intent.paymentIntentId, 'pm_card_authenticationRequired')
    expect(result).toMatchObject({ status: 'requires_action' })
    expect((await confirm(member.accessToken, intent.paymentIntentId)).json().data.status).toBe('pending')
    expect((await statusOf(h, member.accessToken)).hasAccess).toBe(false)
    h.emulator.stripe.authenticate(intent.paymentIntentId, true)
    expect((await confirm(member.accessToken, intent.paymentIntentId)).json().data.status).toBe('completed')
    expect((await statusOf(h, member.accessToken)).hasAccess).toBe(true)
  })

  it('refuses a second plan while one is active, but allows upgrading to lifetime', async () => {
    const { member, intent, plans } = await memberWithCheckout(h, 'weekly')
    await pay(intent.paymentIntentId)
    await confirm(member.accessToken, intent.paymentIntentId)
    const again = await as(h.t.app, member.accessToken, {
      method: 'POST',
      url: `${API}/payments/create-intent`,
      payload: { planId: plans.monthly!.id, currency: 'USD' },
    })
    expect(again.statusCode).toBe(409)
    expect(again.json().message).toContain('You already have an active Weekly membership')
    const lifetime = await as(h.t.app, member.accessToken, {
      method: 'POST',
      url: `${API}/payments/create-intent`,
      payload: { planId: plans.lifetime!.id, currency: 'USD' },
    })
    expect(lifetime.statusCode).toBe(200)
  })

  describe('webhooks', () => {
    it('a missing or bad signature is refused and changes nothing', async () => {
      const { member, intent } = await memberWithCheckout(h, 'monthly')
      const event = JSON.stringify({
        id: 'evt_forged',
        type: 'payment_intent.succeeded',
        data: { object: { id: intent.paymentIntentId } },
      })
      const unsigned = await fetch(h.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json' },
        body: event,
      })
      expect(unsigned.status).toBe(400)
      const forged = await fetch(h.webhookUrl, {
        method: 'POST',
        headers: {
          'content-type': 'application/json',
          'stripe-signature': `t=${Math.floor(Date.now() / 1000)},v1=${'0'.repeat(64)}`,
        },
        body: event,
      })
      expect(forged.status).toBe(400)
      expect(await forged.json()).toMatchObject({
        success: false,
        error: 'VALIDATION_ERROR',
        message: 'Invalid Stripe signature',
      })
      expect(await counts(h, member.user.id)).toMatchObject({ completed: 0, subscriptions: 0 })
      const seen = await h.t.database.db
        .selectFrom('webhook_events')
        .select('id')
        .where('id', '=', 'evt_forged')
        .execute()
      expect(seen).toHaveLength(0)
    })

    it('100 concurrent deliveries of one event make one completed payment and one period', async () => {
      const { member, intent } = await memberWithCheckout(h, 'monthly')
      h.emulator.stripe.pauseWebhooks()
      await pay(intent.paymentIntentId)
      const paid = h.emulator.stripe.events('invoice.paid').at(-1)!
      const payload = JSON.stringify(paid)
      const header = h.stripe.webhooks.generateTestHeaderString({
        payload,
        secret: h.emulator.stripe.webhookSecret,
      })
      const responses = await Promise.all(
        Array.from({ length: 100 }, () =>
          fetch(h.webhookUrl, {
            method: 'POST',
            headers: { 'content-type': 'application/json', 'stripe-signature': header },
            body: payload,
          }),
        ),
      )
      expect(responses.every((response) => response.status === 200)).toBe(true)
      h.emulator.stripe.resumeWebhooks()
      await h.emulator.stripe.flushWebhooks()
      expect(await counts(h, member.user.id)).toEqual({
        completed: 1,
        payments: 1,
        subscriptions: 1,
        periods: 1,
      })
    })

    it('events out of order change nothing twice', async () => {
      const { member, intent } = await memberWithCheckout(h, 'yearly')
      h.emulator.stripe.pauseWebhooks()
      await pay(intent.paymentIntentId)
      await h.emulator.stripe.flushWebhooks({ order: 'reverse' })
      await h.emulator.stripe.flushWebhooks()
      expect(await counts(h, member.user.id)).toEqual({
        completed: 1,
        payments: 1,
        subscriptions: 1,
        periods: 1,
      })
      expect((await statusOf(h, member.accessToken)).hasAccess).toBe(true)
    })

    it('answers 200 for event types it ignores', async () => {
      const payload = JSON.stringify({
        id: 'evt_ignored_1',
        object: 'event',
        type: 'customer.created',
        data: { object: { id: 'cus_x' } },
      })
      const header = h.stripe.webhooks.generateTestHeaderString({
        payload,
        secret: h.emulator.stripe.webhookSecret,
      })
      const response = await fetch(h.webhookUrl, {
        method: 'POST',
        headers: { 'content-type': 'application/json', 'stripe-signature': header },
        body: payload,
      })
      expect(response.status).toBe(200)
      expect(await response.json()).toMatchObject({ success: true, data: { outcome: 'ignored' } })
    })
  })

  describe('the life of a subscription', () => {
    it('renews when Stripe charges the next period (clock advanced)', async () => {
      const { member, intent } = await memberWithCheckout(h, 'monthly')
      await pay(intent.paymentIntentId)
      await confirm(member.accessToken, intent.paymentIntentId)
      const before = (await statusOf(h, member.accessToken)).activeSubscription!.endDate!
      const stripeSubscriptionId = (
        await h.t.database.db
          .selectFrom('subscriptions')
          .select('stripe_subscription_id')
          .where('user_id', '=', member.user.id)
          .executeTakeFirstOrThrow()
      ).stripe_subscription_id!
      h.emulator.stripe.advance(31 * 24 * 3600)
      await h.emulator.stripe.flushWebhooks()
      const after = await eventually(
        () => statusOf(h, member.accessToken),
        (status) => status.activeSubscription?.endDate !== before,
      )
      expect(Date.parse(after.activeSubscription!.endDate!)).toBeGreaterThan(Date.parse(before) + 27 * DAY)
      expect(await counts(h, member.user.id)).toMatchObject({ completed: 2, subscriptions: 1, periods: 2 })
      expect(stripeSubscriptionId).toMatch(/^sub_/)
    })

    it('a failed renewal leaves a grace period with an email, then no access', async () => {
      const { member, intent } = await memberWithCheckout(h, 'weekly')
      await pay(intent.paymentIntentId)
      await confirm(member.accessToken, intent.paymentIntentId)
      const local = await h.t.database.db
        .selectFrom('subscriptions')
        .selectAll()
        .where('user_id', '=', member.user.id)
        .executeTakeFirstOrThrow()
      h.emulator.stripe.failNextRenewal(local.stripe_subscription_id!)
      h.emulator.stripe.advance(8 * 24 * 3600)
      await h.emulator.stripe.flushWebhooks()
      const pastDue = await eventually(
        () => statusOf(h, member.accessToken),
        (status) => status.activeSubscription?.status === 'past_due',
      )
      expect(pastDue.hasAccess).toBe(true)
      await h.smtp.waitFor(
        (mail) =>
          JSON.stringify(mail.to).includes(member.user.email) && /renewal failed/.test(mail.subject ?? ''),
      )
      const graceUntil = (
        await h.t.database.db
          .selectFrom('subscriptions')
          .select('grace_until')
          .where('id', '=', local.id)
          .executeTakeFirstOrThrow()
      ).grace_until!
      expect(graceUntil.getTime()).toBeGreaterThan(Date.now())
      // Past the grace period (the emulator's clock may already be ahead of ours).
      h.clock.advance(graceUntil.getTime() - Date.now() + DAY)
      try {
        expect(await h.t.app.services.access.expireEnded()).toBeGreaterThanOrEqual(1)
        const again = await login(h.t.app, member.user.email, member.password)
        expect(await statusOf(h, again.accessToken)).toMatchObject({
          hasAccess: false,
          activeSubscription: { status: 'expired' },
        })
      } finally {
        h.clock.reset()
      }
    })

    it('cancel keeps access until the period ends; resume undoes it', async () => {
      const { member, intent } = await memberWithCheckout(h, 'monthly')
      await pay(intent.paymentIntentId)
      await confirm(member.accessToken, intent.paymentIntentId)
      const { activeSubscription } = await statusOf(h, member.accessToken)
      const cancel = await as(h.t.app, member.accessToken, {
        method: 'PUT',
        url: `${API}/subscriptions/${activeSubscription!._id}/cancel`,
      })
      expect(cancel.json()).toMatchObject({ success: true, data: { cancelAtPeriodEnd: true } })
      const cancelled = await statusOf(h, member.accessToken)
      expect(cancelled).toMatchObject({ hasAccess: true, activeSubscription: { cancelAtPeriodEnd: true } })
      await h.smtp.waitFor(
        (mail) =>
          JSON.stringify(mail.to).includes(member.user.email) && /will not renew/.test(mail.subject ?? ''),
      )
      const resume = await as(h.t.app, member.accessToken, {
        method: 'POST',
        url: `${API}/subscriptions/${activeSubscription!._id}/renew`,
      })
      expect(resume.json()).toMatchObject({ success: true, data: { resumed: true } })
      expect((await statusOf(h, member.accessToken)).activeSubscription?.cancelAtPeriodEnd).toBe(false)
      const stripeSub = await h.stripe.subscriptions.list({ limit: 100 })
      expect(stripeSub.data.find((sub) => sub.metadata.userId === member.user.id)?.cancel_at_period_end).toBe(
        false,
      )
    })

    it('a full refund ends the access it paid for', async () => {
      const { member, intent } = await memberWithCheckout(h, 'lifetime')
      await pay(intent.paymentIntentId)
      await confirm(member.accessToken, intent.paymentIntentId)
      expect((await statusOf(h, member.accessToken)).hasAccess).toBe(true)
      await h.stripe.refunds.create({ payment_intent: intent.paymentIntentId })
      await h.emulator.stripe.flushWebhooks()
      await eventually(
        () => statusOf(h, member.accessToken),
        (status) => !status.hasAccess,
      )
      const history = (
        await as(h.t.app, member.accessToken, { method: 'GET', url: `${API}/payments/history` })
      ).json().data
      expect(history.items[0]).toMatchObject({ status: 'refunded', amountRefunded: 799.99 })
    })

    it('a lost webhook is recovered by reconciliation', async () => {
      const { member, intent } = await memberWithCheckout(h, 'lifetime')
      h.emulator.stripe.setWebhookUrl(null)
      try {
        await pay(intent.paymentIntentId)
      } finally {
        h.emulator.stripe.setWebhookUrl(h.webhookUrl)
      }
      expect((await statusOf(h, member.accessToken)).hasAccess).toBe(false)
      h.clock.advance(11 * 60 * 1000)
      try {
        const result = await h.t.app.services.reconciliation.run()
        expect(result.card?.settled).toBeGreaterThanOrEqual(1)
      } finally {
        h.clock.reset()
      }
      expect((await statusOf(h, member.accessToken)).hasAccess).toBe(true)
      expect(await counts(h, member.user.id)).toMatchObject({ completed: 1, periods: 1 })
    })
  })

  describe('tips', () => {
    it.each([
      [{ amount: 0.49 }, 'Tip amount must be at least $0.50'],
      [{ amount: 5.123 }, 'Enter an amount like 5 or 5.50'],
      [{ amount: 5, currency: 'JPY' }, 'Choose USD, EUR, GBP, CAD or AUD'],
      [{ amount: 5, message: 'x'.repeat(201) }, 'Tip message must be 200 characters or less'],
    ])('TIP-10 TIP-11 TIP-13 the server refuses %j', async (body, message) => {
      const member = await register(h.t.app)
      const response = await as(h.t.app, member.accessToken, {
        method: 'POST',
        url: `${API}/tips/create`,
        payload: { currency: 'USD', ...body },
      })
      expect(response.statusCode).toBe(400)
      expect(response.json().message).toBe(message)
    })

    it('TIP-01 API-28 API-29 a tip is a PaymentIntent for the amount, and its status follows the payment', async () => {
      const member = await register(h.t.app)
      const created = await as(h.t.app, member.accessToken, {
        method: 'POST',
        url: `${API}/tips/create`,
        payload: { amount: 12.5, currency: 'EUR', message: 'Great call on the Celtics!' },
      })
      const tip = created.json().data
      expect(tip).toMatchObject({
        clientSecret: expect.any(String),
        amount: 12.5,
        currency: 'EUR',
        message: 'Great call on the Celtics!',
      })
      const intent = await h.stripe.paymentIntents.retrieve(tip.paymentIntentId)
      expect([intent.amount, intent.currency]).toEqual([1250, 'eur'])
      await pay(tip.paymentIntentId)
      const status = await as(h.t.app, member.accessToken, {
        method: 'GET',
        url: `${API}/tips/status/${tip.tipId}`,
      })
      expect(status.json().data).toMatchObject({ status: 'completed', amount: 12.5, currency: 'EUR' })
      expect((await statusOf(h, member.accessToken)).hasAccess).toBe(false)
    })
  })

  it("HIST-05 API-17 members never see each other's payments, tips or subscriptions", async () => {
    const { member: owner, intent } = await memberWithCheckout(h, 'monthly')
    await pay(intent.paymentIntentId)
    await confirm(owner.accessToken, intent.paymentIntentId)
    const tip = (
      await as(h.t.app, owner.accessToken, {
        method: 'POST',
        url: `${API}/tips/create`,
        payload: { amount: 3, currency: 'USD' },
      })
    ).json().data
    const other = await register(h.t.app)
    const history = (
      await as(h.t.app, other.accessToken, { method: 'GET', url: `${API}/payments/history` })
    ).json().data
    expect(history.items).toEqual([])
    const ownerSub = (await statusOf(h, owner.accessToken)).activeSubscription!._id
    for (const [method, url] of [
      ['GET', `${API}/tips/status/${tip.tipId}`],
      ['GET', `${API}/tips/status/${tip.paymentIntentId}`],
      ['POST', `${API}/payments/retry/${intent.paymentId}`],
      ['POST', `${API}/payments/confirm`],
      ['PUT', `${API}/subscriptions/${ownerSub}/cancel`],
      ['POST', `${API}/subscriptions/${ownerSub}/renew`],
    ] as const) {
      const response = await as(h.t.app, other.accessToken, {
        method,
        url,
        payload:
          method === 'POST' && url.endsWith('confirm')
            ? { paymentIntentId: intent.paymentIntentId }
            : undefined,
      })
      expect(response.statusCode, url).toBe(404)
    }
    const ownerHistory = (
      await as(h.t.app, owner.accessToken, {
        method: 'GET',
        url: `${API}/payments/history?limit=10&sortBy=amount&sortOrder=asc`,
      })
    ).json().data
    expect(ownerHistory.items.map((item: { kind: string }) => item.kind)).toEqual(['tip', 'subscription'])
    expect(ownerHistory.pagination).toEqual({ page: 1, limit: 10, total: 2, pages: 1 })
  })
})

describe('without Stripe keys', () => {
  it('says card payments are unavailable instead of failing', async () => {
    const t = await createTestApp()
    try {
      const member = await register(t.app)
      const plans = (await t.app.inject({ method: 'GET', url: `${API}/subscriptions/plans` })).json().data
      const response = await as(t.app, member.accessToken, {
        method: 'POST',
        url: `${API}/payments/create-intent`,
        payload: { planId: plans[0].id, currency: 'USD' },
      })
      expect(response.statusCode).toBe(503)
      expect(response.json()).toMatchObject({
        success: false,
        error: 'PAYMENT_ERROR',
        message: 'Card payments are not available right now. Please try again later.',
      })
    } finally {
      await t.close()
    }
  })
})
