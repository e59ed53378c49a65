import { PAYMENT_STATUSES } from '@edgeclub/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type BillingHarness,
  counts,
  createBillingHarness,
  eventually,
  memberWithCheckout,
  plansBySlug,
} from './helpers/billing'
import { as, login, register, type Session } from './helpers/members'

const API = '/discord/api'
const ADMIN = { email: 'billing.ops@edgeclub.test', password: 'Ops$ecret123' }
const UNKNOWN_ID = '00000000-0000-4000-8000-000000000000'
/** Looks like an id to a loose check (36 hex characters) but is no UUID: must never reach the database. */
const MALFORMED_ID = '0123456789abcdef0123456789abcdef0123'

interface SubscriptionView {
  _id: string
  planId: { _id: string; name: string; slug: string }
  status: string
  provider: string
  startDate: string
  endDate: string | null
  cancelAtPeriodEnd: boolean
}
interface Status {
  hasAccess: boolean
  activeSubscription: SubscriptionView | null
}
interface PaymentView {
  _id: string
  planId: { _id: string; name: string } | null
  amount: number
  currency: string
  status: string
  kind: string
  failureMessage: string | null
  stripeClientSecret: string | null
  stripePaymentIntentId: string | null
}
interface Page<T> {
  items: T[]
  pagination: { page: number; limit: number; total: number; pages: number }
}

describe('subscriptions and payment retries', () => {
  let h: BillingHarness
  let admin: Session
  beforeAll(async () => {
    h = await createBillingHarness({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } })
    admin = await login(h.t.app, ADMIN.email, ADMIN.password)
  })
  afterAll(() => h.close())

  const call = (token: string, method: 'GET' | 'POST' | 'PUT', url: string, payload?: object) =>
    as(h.t.app, token, { method, url: `${API}${url}`, payload })
  const status = async (token: string) =>
    (await call(token, 'GET', '/subscriptions/status')).json().data as Status
  const paymentHistory = async (token: string, query = '') =>
    (await call(token, 'GET', `/payments/history${query}`)).json().data as Page<PaymentView>
  const subscriptionHistory = async (token: string, query = '') =>
    (await call(token, 'GET', `/subscriptions/history${query}`)).json().data as Page<SubscriptionView>
  const pay = (paymentIntentId: string, method = 'pm_card_visa') =>
    h.stripe.paymentIntents
      .confirm(paymentIntentId, { payment_method: method })
      .catch((error: unknown) => error)
  const confirm = (token: string, paymentIntentId: string) =>
    call(token, 'POST', '/payments/confirm', { paymentIntentId })
  const stripeSubscriptionOf = async (userId: string) => {
    const all = await h.stripe.subscriptions.list({ limit: 100, status: 'all' })
    return all.data.filter((sub) => sub.metadata.userId === userId)
  }

  /** A member who bought `slug` by card (4242) and was granted access for it. */
  async function paidMember(slug: string) {
    const { member, intent, plans } = await memberWithCheckout(h, slug)
    await pay(intent.paymentIntentId)
    expect((await confirm(member.accessToken, intent.paymentIntentId)).json().data.status).toBe('completed')
    const subscription = (await status(member.accessToken)).activeSubscription!
    expect(subscription.planId._id).toBe(plans[slug]!.id)
    return { member, intent, plans, subscription }
  }

  async function refundInFull(token: string, paymentIntentId: string) {
    await h.stripe.refunds.create({ payment_intent: paymentIntentId })
    await h.emulator.stripe.flushWebhooks()
    return eventually(
      () => status(token),
      (current) => !current.hasAccess,
    )
  }

  describe('POST /subscriptions/create and GET /subscriptions/status', () => {
    it('API-22 API-23 SUB-06 opens a card checkout for the plan; only paying it grants access, once', async () => {
      const member = await register(h.t.app)
      const plans = await plansBySlug(h)
      const monthly = plans.monthly!

      expect(
        (await h.t.app.inject({ method: 'GET', url: `${API}/subscriptions/status` })).json(),
      ).toMatchObject({ success: false, error: 'UNAUTHORIZED' })
      const before = await call(member.accessToken, 'GET', '/subscriptions/status')
      expect(before.statusCode).toBe(200)
      expect(before.json()).toEqual({
        success: true,
        data: {
          hasAccess: false,
          activeSubscription: null,
          status: null,
          trialEndsAt: null,
          resumesAt: null,
          scheduledChange: null,
        },
      })

      const anonymous = await h.t.app.inject({
        method: 'POST',
        url: `${API}/subscriptions/create`,
        payload: { planId: monthly.id, currency: 'USD' },
      })
      expect(anonymous.statusCode).toBe(401)

      const created = await call(member.accessToken, 'POST', '/subscriptions/create', {
        planId: monthly.id,
        currency: 'USD',
      })
      expect(created.statusCode).toBe(200)
      expect(created.json().success).toBe(true)
      const intent = created.json().data
      expect(intent).toMatchObject({
        clientSecret: expect.stringContaining('_secret_'),
        paymentIntentId: expect.stringMatching(/^pi_/),
        paymentId: expect.stringMatching(/^[0-9a-f-]{36}$/),
        amount: 39.99,
        currency: 'USD',
        plan: { id: monthly.id, slug: 'monthly', name: 'Monthly', price: 39.99 },
      })
      // At Stripe: an incomplete subscription whose first invoice is this intent, for the plan price.
      expect((await h.stripe.paymentIntents.retrieve(intent.paymentIntentId)).amount).toBe(3999)
      const [stripeSub] = await stripeSubscriptionOf(member.user.id)
      expect(stripeSub).toMatchObject({ status: 'incomplete', metadata: { paymentId: intent.paymentId } })

      // Recorded as a pending payment the member can complete; no access yet.
      const pending = await paymentHistory(member.accessToken)
      expect(pending.items).toHaveLength(1)
      expect(pending.items[0]).toMatchObject({
        _id: intent.paymentId,
        planId: { _id: monthly.id, name: 'Monthly' },
        status: 'pending',
        amount: 39.99,
        stripeClientSecret: intent.clientSecret,
        stripePaymentIntentId: intent.paymentIntentId,
      })
      expect(await status(member.accessToken)).toEqual({
        hasAccess: false,
        activeSubscription: null,
        status: null,
        trialEndsAt: null,
        resumesAt: null,
        scheduledChange: null,
      })

      await pay(intent.paymentIntentId)
      for (const _ of [1, 2]) {
        expect((await confirm(member.accessToken, intent.paymentIntentId)).json().data.status).toBe(
          'completed',
        )
      }
      await h.emulator.stripe.flushWebhooks()

      const after = await status(member.accessToken)
      expect(after).toMatchObject({
        hasAccess: true,
        activeSubscription: {
          _id: expect.stringMatching(/^[0-9a-f-]{36}$/),
          planId: { _id: monthly.id, name: 'Monthly' },
          status: 'active',
          endDate: expect.any(String),
        },
      })
      // The end date is the end of the period Stripe charged for.
      const charged = await h.stripe.subscriptions.retrieve(stripeSub!.id)
      expect(charged.status).toBe('active')
      expect(Date.parse(after.activeSubscription!.endDate!)).toBe(
        charged.items.data[0]!.current_period_end * 1000,
      )
      expect(await counts(h, member.user.id)).toEqual({
        completed: 1,
        payments: 1,
        subscriptions: 1,
        periods: 1,
      })
    })

    it('API-22 refuses an unknown or malformed plan, a wrong currency and a second plan, creating nothing', async () => {
      const member = await register(h.t.app)
      const plans = await plansBySlug(h)
      const refusals: [object, number, string, unknown][] = [
        [{ planId: UNKNOWN_ID, currency: 'USD' }, 404, 'NOT_FOUND', 'Selected plan not found'],
        [{ planId: 'not-a-plan', currency: 'USD' }, 404, 'NOT_FOUND', 'Selected plan not found'],
        [{ planId: MALFORMED_ID, currency: 'USD' }, 404, 'NOT_FOUND', 'Selected plan not found'],
        [{ currency: 'USD' }, 400, 'VALIDATION_ERROR', expect.any(String)],
        [
          { planId: plans.monthly!.id, currency: 'EUR' },
          400,
          'VALIDATION_ERROR',
          'This plan is priced in USD',
        ],
      ]
      for (const [payload, code, error, message] of refusals) {
        const response = await call(member.accessToken, 'POST', '/subscriptions/create', payload)
        expect(response.statusCode, JSON.stringify(payload)).toBe(code)
        expect(response.json()).toMatchObject({ success: false, error, message })
      }
      expect(await counts(h, member.user.id)).toMatchObject({ payments: 0, subscriptions: 0 })
      expect(await stripeSubscriptionOf(member.user.id)).toEqual([])

      const { member: subscriber, subscription } = await paidMember('weekly')
      const second = await call(subscriber.accessToken, 'POST', '/subscriptions/create', {
        planId: plans.monthly!.id,
        currency: 'USD',
      })
      expect(second.statusCode).toBe(409)
      expect(second.json()).toMatchObject({
        success: false,
        error: 'CONFLICT',
        message: `You already have an active Weekly membership until ${subscription.endDate!.slice(0, 10)}. Change plans in the Subscription tab.`,
      })
      expect(await counts(h, subscriber.user.id)).toMatchObject({ payments: 1, subscriptions: 1 })
    })
  })

  it("API-24 SUB-06 GET /subscriptions/history pages, searches and sorts the member's own subscriptions", async () => {
    const member = await register(h.t.app)
    const plans = await plansBySlug(h)
    const grant = (days: number, planId: string) =>
      call(admin.accessToken, 'POST', `/admin/users/${member.user.id}/grant`, { days, planId })
    // Monthly (now, 30 days), then Weekly (stacked after it), then a Lifetime purchase.
    expect((await grant(30, plans.monthly!.id)).statusCode).toBe(200)
    expect((await grant(10, plans.weekly!.id)).statusCode).toBe(200)
    const lifetime = await call(member.accessToken, 'POST', '/subscriptions/create', {
      planId: plans.lifetime!.id,
      currency: 'USD',
    })
    expect(lifetime.statusCode).toBe(200)
    await pay(lifetime.json().data.paymentIntentId)
    await confirm(member.accessToken, lifetime.json().data.paymentIntentId)

    // Lifetime access is the one the status shows.
    expect(await status(member.accessToken)).toMatchObject({
      hasAccess: true,
      activeSubscription: {
        planId: { _id: plans.lifetime!.id, name: 'Lifetime' },
        status: 'active',
        endDate: null,
      },
    })

    const names = (page: Page<SubscriptionView>) => page.items.map((item) => item.planId.name)
    const all = await subscriptionHistory(member.accessToken)
    expect(names(all)).toEqual(['Lifetime', 'Weekly', 'Monthly'])
    expect(all.pagination).toEqual({ page: 1, limit: 20, total: 3, pages: 1 })
    expect(all.items.map((item) => [item.provider, item.status])).toEqual([
      ['stripe', 'active'],
      ['admin', 'active'],
      ['admin', 'active'],
    ])
    const [, weekly, monthly] = all.items
    expect(Date.parse(weekly!.startDate)).toBe(Date.parse(monthly!.endDate!))

    expect(names(await subscriptionHistory(member.accessToken, '?sortBy=createdAt&sortOrder=asc'))).toEqual([
      'Monthly',
      'Weekly',
      'Lifetime',
    ])
    expect(names(await subscriptionHistory(member.accessToken, '?sortBy=startDate&sortOrder=asc'))).toEqual([
      'Monthly',
      'Lifetime',
      'Weekly',
    ])
    expect(names(await subscriptionHistory(member.accessToken, '?sortBy=startDate&sortOrder=desc'))).toEqual([
      'Weekly',
      'Lifetime',
      'Monthly',
    ])

    const first = await subscriptionHistory(member.accessToken, '?limit=2')
    expect(names(first)).toEqual(['Lifetime', 'Weekly'])
    expect(first.pagination).toEqual({ page: 1, limit: 2, total: 3, pages: 2 })
    const second = await subscriptionHistory(member.accessToken, '?limit=2&page=2')
    expect(names(second)).toEqual(['Monthly'])
    expect(second.pagination).toEqual({ page: 2, limit: 2, total: 3, pages: 2 })

    const weeklyOnly = await subscriptionHistory(member.accessToken, '?search=weekly')
    expect(names(weeklyOnly)).toEqual(['Weekly'])
    expect(weeklyOnly.pagination.total).toBe(1)
    expect(names(await subscriptionHistory(member.accessToken, '?search=LIFETIME'))).toEqual(['Lifetime'])
    expect((await subscriptionHistory(member.accessToken, '?search=active')).pagination.total).toBe(3)
    expect(await subscriptionHistory(member.accessToken, '?search=expired')).toEqual({
      items: [],
      pagination: { page: 1, limit: 20, total: 0, pages: 0 },
    })

    // Another member sees none of them, whatever they search for.
    const other = await register(h.t.app)
    for (const query of ['', '?search=weekly', `?search=${encodeURIComponent(member.user.email)}`]) {
      expect((await subscriptionHistory(other.accessToken, query)).pagination.total, query).toBe(0)
    }

    for (const bad of [
      'sortBy=plan_id',
      'sortBy=amount',
      'limit=0',
      'limit=101',
      'page=0',
      'sortOrder=sideways',
    ]) {
      const response = await call(member.accessToken, 'GET', `/subscriptions/history?${bad}`)
      expect(response.statusCode, bad).toBe(400)
      expect(response.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR' })
    }
    expect((await h.t.app.inject({ method: 'GET', url: `${API}/subscriptions/history` })).statusCode).toBe(
      401,
    )
  })

  describe('PUT /subscriptions/{id}/cancel', () => {
    it('API-25 stops the renewal at Stripe and keeps access until the end date; only the owner can', async () => {
      const { member, subscription } = await paidMember('monthly')
      const [stripeSub] = await stripeSubscriptionOf(member.user.id)
      const cancelUrl = `/subscriptions/${subscription._id}/cancel`

      // Someone else's subscription, an unknown one, a malformed id: refused, nothing changes.
      const other = await register(h.t.app)
      const foreign = await call(other.accessToken, 'PUT', cancelUrl)
      expect(foreign.statusCode).toBe(404)
      expect(foreign.json()).toMatchObject({
        success: false,
        error: 'NOT_FOUND',
        message: 'Subscription not found',
      })
      const unknown = await call(member.accessToken, 'PUT', `/subscriptions/${UNKNOWN_ID}/cancel`)
      expect(unknown.statusCode).toBe(404)
      expect(unknown.json().error).toBe('NOT_FOUND')
      for (const id of ['abc', MALFORMED_ID]) {
        const malformed = await call(member.accessToken, 'PUT', `/subscriptions/${id}/cancel`)
        expect(malformed.statusCode, id).toBe(400)
        expect(malformed.json()).toMatchObject({
          error: 'VALIDATION_ERROR',
          message: 'Subscription not found',
        })
      }
      expect((await status(member.accessToken)).activeSubscription?.cancelAtPeriodEnd).toBe(false)
      expect((await h.stripe.subscriptions.retrieve(stripeSub!.id)).cancel_at_period_end).toBe(false)

      const cancelled = await call(member.accessToken, 'PUT', cancelUrl)
      expect(cancelled.statusCode).toBe(200)
      expect(cancelled.json()).toEqual({
        success: true,
        data: { cancelAtPeriodEnd: true, endDate: subscription.endDate },
        message: 'Your plan will not renew. You keep access until the end of the period.',
      })
      expect((await h.stripe.subscriptions.retrieve(stripeSub!.id)).cancel_at_period_end).toBe(true)
      expect(await status(member.accessToken)).toMatchObject({
        hasAccess: true,
        activeSubscription: {
          _id: subscription._id,
          status: 'active',
          cancelAtPeriodEnd: true,
          endDate: subscription.endDate,
        },
      })
      const isNotice = (mail: (typeof h.smtp.messages)[number]) =>
        JSON.stringify(mail.to).includes(member.user.email) && /will not renew/.test(mail.subject ?? '')
      await h.smtp.waitFor(isNotice)

      // Cancelling again is harmless: same answer, no second notice.
      const again = await call(member.accessToken, 'PUT', cancelUrl)
      expect(again.statusCode).toBe(200)
      expect(again.json().data).toEqual({ cancelAtPeriodEnd: true, endDate: subscription.endDate })
      await new Promise((resolve) => setTimeout(resolve, 1500))
      expect(h.smtp.messages.filter(isNotice)).toHaveLength(1)
      expect(await counts(h, member.user.id)).toMatchObject({ payments: 1, subscriptions: 1 })
    })

    it('API-25 refuses to cancel lifetime, complimentary or ended access with the reason', async () => {
      const { member: lifer, subscription: lifetime } = await paidMember('lifetime')
      const lifetimeCancel = await call(lifer.accessToken, 'PUT', `/subscriptions/${lifetime._id}/cancel`)
      expect(lifetimeCancel.statusCode).toBe(400)
      expect(lifetimeCancel.json()).toMatchObject({
        success: false,
        error: 'VALIDATION_ERROR',
        message: 'Lifetime access does not renew, so there is nothing to cancel',
      })

      const guest = await register(h.t.app)
      await call(admin.accessToken, 'POST', `/admin/users/${guest.user.id}/grant`, { days: 7 })
      const granted = (await status(guest.accessToken)).activeSubscription!
      expect(granted).toMatchObject({ provider: 'admin', status: 'active' })
      const grantCancel = await call(guest.accessToken, 'PUT', `/subscriptions/${granted._id}/cancel`)
      expect(grantCancel.statusCode).toBe(400)
      expect(grantCancel.json().message).toBe(
        'This access does not renew by itself, so there is nothing to cancel',
      )

      const { member, intent, subscription } = await paidMember('monthly')
      await refundInFull(member.accessToken, intent.paymentIntentId)
      const ended = await call(member.accessToken, 'PUT', `/subscriptions/${subscription._id}/cancel`)
      expect(ended.statusCode).toBe(400)
      expect(ended.json().message).toBe('This subscription has already ended')

      for (const [token, id] of [
        [lifer.accessToken, lifetime._id],
        [guest.accessToken, granted._id],
      ] as const) {
        expect((await status(token)).activeSubscription).toMatchObject({
          _id: id,
          status: 'active',
          cancelAtPeriodEnd: false,
        })
      }
    })
  })

  describe('POST /subscriptions/{id}/renew', () => {
    it('API-26 resumes a cancelling subscription at Stripe without a new charge; only the owner can', async () => {
      const { member, subscription } = await paidMember('monthly')
      const [stripeSub] = await stripeSubscriptionOf(member.user.id)
      const renewUrl = `/subscriptions/${subscription._id}/renew`

      const renewing = await call(member.accessToken, 'POST', renewUrl)
      expect(renewing.statusCode).toBe(400)
      expect(renewing.json()).toMatchObject({
        error: 'VALIDATION_ERROR',
        message: 'This subscription is active and set to renew already',
      })

      await call(member.accessToken, 'PUT', `/subscriptions/${subscription._id}/cancel`)
      const other = await register(h.t.app)
      const foreign = await call(other.accessToken, 'POST', renewUrl)
      expect(foreign.statusCode).toBe(404)
      expect(foreign.json()).toMatchObject({ error: 'NOT_FOUND', message: 'Subscription not found' })
      expect((await call(member.accessToken, 'POST', `/subscriptions/${UNKNOWN_ID}/renew`)).statusCode).toBe(
        404,
      )
      expect((await call(member.accessToken, 'POST', '/subscriptions/nope/renew')).statusCode).toBe(400)
      expect((await status(member.accessToken)).activeSubscription?.cancelAtPeriodEnd).toBe(true)
      expect((await h.stripe.subscriptions.retrieve(stripeSub!.id)).cancel_at_period_end).toBe(true)

      const resumed = await call(member.accessToken, 'POST', renewUrl)
      expect(resumed.statusCode).toBe(200)
      expect(resumed.json()).toEqual({
        success: true,
        data: { resumed: true, paymentIntent: null },
        message: 'Your plan will renew as before.',
      })
      expect((await h.stripe.subscriptions.retrieve(stripeSub!.id)).cancel_at_period_end).toBe(false)
      expect(await status(member.accessToken)).toMatchObject({
        hasAccess: true,
        activeSubscription: {
          _id: subscription._id,
          cancelAtPeriodEnd: false,
          endDate: subscription.endDate,
        },
      })
      expect(await counts(h, member.user.id)).toEqual({
        completed: 1,
        payments: 1,
        subscriptions: 1,
        periods: 1,
      })
    })

    it('API-26 renewing an ended subscription checks out its plan again; paying gives access once more', async () => {
      const { member, intent, plans, subscription } = await paidMember('monthly')
      const ended = await refundInFull(member.accessToken, intent.paymentIntentId)
      expect(ended.activeSubscription).toMatchObject({ _id: subscription._id, status: 'cancelled' })

      const renewed = await call(member.accessToken, 'POST', `/subscriptions/${subscription._id}/renew`)
      expect(renewed.statusCode).toBe(200)
      const { data } = renewed.json()
      expect(data).toMatchObject({
        resumed: false,
        paymentIntent: {
          paymentIntentId: expect.stringMatching(/^pi_/),
          amount: 39.99,
          currency: 'USD',
          plan: { id: plans.monthly!.id, slug: 'monthly' },
        },
      })
      expect(data.paymentIntent.paymentIntentId).not.toBe(intent.paymentIntentId)
      expect((await status(member.accessToken)).hasAccess).toBe(false)

      await pay(data.paymentIntent.paymentIntentId)
      await confirm(member.accessToken, data.paymentIntent.paymentIntentId)
      const again = await status(member.accessToken)
      expect(again).toMatchObject({ hasAccess: true, activeSubscription: { status: 'active' } })
      expect(again.activeSubscription!._id).not.toBe(subscription._id)
      const history = await subscriptionHistory(member.accessToken)
      expect(history.items.map((item) => [item._id, item.status])).toEqual([
        [again.activeSubscription!._id, 'active'],
        [subscription._id, 'cancelled'],
      ])

      // With access again, renewing the old one would be a second plan: refused, nothing new.
      const twice = await call(member.accessToken, 'POST', `/subscriptions/${subscription._id}/renew`)
      expect(twice.statusCode).toBe(409)
      expect(twice.json().error).toBe('CONFLICT')
      expect(await counts(h, member.user.id)).toMatchObject({ completed: 1, payments: 2, subscriptions: 2 })
    })

    it('API-26 renewing an ended subscription to a plan priced in EUR checks out in EUR', async () => {
      const plan = (
        await call(admin.accessToken, 'POST', '/admin/plans', {
          name: 'Euro Monthly',
          slug: 'euro-monthly',
          price: 35,
          currency: 'EUR',
          interval: 'month',
        })
      ).json().data
      const member = await register(h.t.app)
      const created = (
        await call(member.accessToken, 'POST', '/subscriptions/create', { planId: plan.id, currency: 'EUR' })
      ).json().data
      expect(created).toMatchObject({ amount: 35, currency: 'EUR' })
      await pay(created.paymentIntentId)
      await confirm(member.accessToken, created.paymentIntentId)
      const subscription = (await status(member.accessToken)).activeSubscription!
      expect(subscription.planId.name).toBe('Euro Monthly')
      await refundInFull(member.accessToken, created.paymentIntentId)

      const renewed = await call(member.accessToken, 'POST', `/subscriptions/${subscription._id}/renew`)
      expect(renewed.statusCode).toBe(200)
      const { paymentIntent } = renewed.json().data
      expect(paymentIntent).toMatchObject({ amount: 35, currency: 'EUR', plan: { id: plan.id } })
      const atStripe = await h.stripe.paymentIntents.retrieve(paymentIntent.paymentIntentId)
      expect([atStripe.amount, atStripe.currency]).toEqual([3500, 'eur'])
    })
  })

  describe('POST /payments/retry/{id}', () => {
    it('API-19 reopens a declined payment with the same intent; paying it then grants access once', async () => {
      const { member, intent, plans } = await memberWithCheckout(h, 'monthly')
      await pay(intent.paymentIntentId, 'pm_card_chargeDeclined')
      expect((await confirm(member.accessToken, intent.paymentIntentId)).json().data.status).toBe('failed')
      expect((await paymentHistory(member.accessToken)).items[0]).toMatchObject({
        _id: intent.paymentId,
        status: 'failed',
        failureMessage: 'Your card was declined.',
      })

      // Not yours, not known, not an id: refused, and the payment stays as it was.
      const other = await register(h.t.app)
      const foreign = await call(other.accessToken, 'POST', `/payments/retry/${intent.paymentId}`)
      expect(foreign.statusCode).toBe(404)
      expect(foreign.json()).toMatchObject({
        success: false,
        error: 'NOT_FOUND',
        message: 'Payment not found',
      })
      expect(
        (await call(other.accessToken, 'POST', `/payments/retry/${intent.paymentIntentId}`)).statusCode,
      ).toBe(404)
      for (const id of [UNKNOWN_ID, 'pi_unknown', MALFORMED_ID]) {
        const response = await call(member.accessToken, 'POST', `/payments/retry/${id}`)
        expect(response.statusCode, id).toBe(404)
        expect(response.json()).toMatchObject({ error: 'NOT_FOUND', message: 'Payment not found' })
      }
      expect(
        (await h.t.app.inject({ method: 'POST', url: `${API}/payments/retry/${intent.paymentId}` }))
          .statusCode,
      ).toBe(401)
      expect((await paymentHistory(member.accessToken)).items[0]!.status).toBe('failed')

      const retried = await call(member.accessToken, 'POST', `/payments/retry/${intent.paymentId}`)
      expect(retried.statusCode).toBe(200)
      expect(retried.json().data).toMatchObject({
        paymentId: intent.paymentId,
        paymentIntentId: intent.paymentIntentId,
        clientSecret: intent.clientSecret,
        amount: 39.99,
        currency: 'USD',
        plan: { id: plans.monthly!.id },
      })
      expect((await paymentHistory(member.accessToken)).items).toEqual([
        expect.objectContaining({
          _id: intent.paymentId,
          status: 'pending',
          failureMessage: null,
          stripeClientSecret: intent.clientSecret,
        }),
      ])
      expect((await status(member.accessToken)).hasAccess).toBe(false)

      await pay(intent.paymentIntentId)
      expect((await confirm(member.accessToken, intent.paymentIntentId)).json().data.status).toBe('completed')
      await h.emulator.stripe.flushWebhooks()
      expect(await status(member.accessToken)).toMatchObject({
        hasAccess: true,
        activeSubscription: { planId: { name: 'Monthly' }, status: 'active' },
      })
      expect(await counts(h, member.user.id)).toEqual({
        completed: 1,
        payments: 1,
        subscriptions: 1,
        periods: 1,
      })

      const paidAlready = await call(member.accessToken, 'POST', `/payments/retry/${intent.paymentId}`)
      expect(paidAlready.statusCode).toBe(400)
      expect(paidAlready.json()).toMatchObject({
        error: 'VALIDATION_ERROR',
        message: 'Only a pending or failed payment can be paid again',
      })
    })

    it('API-19 a payment whose intent Stripe cancelled gets a fresh checkout; the old one is cancelled', async () => {
      const { member, intent } = await memberWithCheckout(h, 'lifetime')
      h.emulator.stripe.pauseWebhooks()
      let fresh: { paymentId: string; paymentIntentId: string; amount: number }
      try {
        await h.stripe.paymentIntents.cancel(intent.paymentIntentId)
        const retried = await call(member.accessToken, 'POST', `/payments/retry/${intent.paymentId}`)
        expect(retried.statusCode).toBe(200)
        fresh = retried.json().data
      } finally {
        h.emulator.stripe.resumeWebhooks()
      }
      await h.emulator.stripe.flushWebhooks()
      expect(fresh.amount).toBe(799.99)
      expect(fresh.paymentIntentId).not.toBe(intent.paymentIntentId)
      expect(fresh.paymentId).not.toBe(intent.paymentId)
      expect(
        (await paymentHistory(member.accessToken, '?sortBy=createdAt&sortOrder=asc')).items.map((item) => [
          item._id,
          item.status,
        ]),
      ).toEqual([
        [intent.paymentId, 'cancelled'],
        [fresh.paymentId, 'pending'],
      ])
      await pay(fresh.paymentIntentId)
      await confirm(member.accessToken, fresh.paymentIntentId)
      expect(await status(member.accessToken)).toMatchObject({
        hasAccess: true,
        activeSubscription: { planId: { name: 'Lifetime' }, endDate: null },
      })
      expect(await counts(h, member.user.id)).toEqual({
        completed: 1,
        payments: 2,
        subscriptions: 1,
        periods: 1,
      })
    })

    it('API-19 does not reopen a checkout for another plan while the member has access', async () => {
      const { member, intent, plans } = await memberWithCheckout(h, 'monthly')
      await pay(intent.paymentIntentId, 'pm_card_chargeDeclined')
      await confirm(member.accessToken, intent.paymentIntentId)
      const weekly = (
        await call(member.accessToken, 'POST', '/subscriptions/create', {
          planId: plans.weekly!.id,
          currency: 'USD',
        })
      ).json().data
      await pay(weekly.paymentIntentId)
      await confirm(member.accessToken, weekly.paymentIntentId)
      expect((await status(member.accessToken)).activeSubscription?.planId.name).toBe('Weekly')

      const retried = await call(member.accessToken, 'POST', `/payments/retry/${intent.paymentId}`)
      expect(retried.statusCode).toBe(409)
      expect(retried.json()).toMatchObject({
        success: false,
        error: 'CONFLICT',
        message: expect.stringContaining('You already have an active Weekly membership'),
      })
      const monthly = (await paymentHistory(member.accessToken)).items.find(
        (item) => item._id === intent.paymentId,
      )
      expect(monthly).toMatchObject({ status: 'failed', stripeClientSecret: null })
      expect(await counts(h, member.user.id)).toMatchObject({ completed: 1, payments: 2, subscriptions: 1 })
    })
  })

  describe('GET /payments/history', () => {
    it('HIST-01 serves 10 payments a page with limit=10, newest first, and the rest on the next page', async () => {
      const member = await register(h.t.app)
      for (let amount = 1; amount <= 12; amount += 1) {
        const tip = await call(member.accessToken, 'POST', '/tips/create', { amount, currency: 'USD' })
        expect(tip.statusCode).toBe(200)
      }
      const first = await paymentHistory(member.accessToken, '?limit=10')
      expect(first.items.map((item) => item.amount)).toEqual([12, 11, 10, 9, 8, 7, 6, 5, 4, 3])
      expect(first.pagination).toEqual({ page: 1, limit: 10, total: 12, pages: 2 })
      const second = await paymentHistory(member.accessToken, '?limit=10&page=2')
      expect(second.items.map((item) => item.amount)).toEqual([2, 1])
      expect(second.pagination).toEqual({ page: 2, limit: 10, total: 12, pages: 2 })
      const ids = new Set([...first.items, ...second.items].map((item) => item._id))
      expect(ids.size).toBe(12)
      expect((await paymentHistory(member.accessToken, '?limit=10&page=3')).items).toEqual([])
      expect((await paymentHistory(member.accessToken)).items).toHaveLength(12)

      for (const bad of ['limit=0', 'limit=101', 'page=0']) {
        const response = await call(member.accessToken, 'GET', `/payments/history?${bad}`)
        expect(response.statusCode, bad).toBe(400)
        expect(response.json().error).toBe('VALIDATION_ERROR')
      }
      const other = await register(h.t.app)
      expect((await paymentHistory(other.accessToken, '?limit=10')).pagination.total).toBe(0)
    })

    it('HIST-06 a payment is completed, pending, failed, cancelled or another known status (refunded)', async () => {
      const member = await register(h.t.app)
      const tips: { paymentIntentId: string }[] = []
      for (let amount = 1; amount <= 6; amount += 1) {
        tips.push(
          (await call(member.accessToken, 'POST', '/tips/create', { amount, currency: 'USD' })).json().data,
        )
      }
      const [completed, , failed, cancelled, refunded, partlyRefunded] = tips
      await pay(completed!.paymentIntentId)
      await pay(failed!.paymentIntentId, 'pm_card_chargeDeclined')
      await confirm(member.accessToken, failed!.paymentIntentId)
      await h.stripe.paymentIntents.cancel(cancelled!.paymentIntentId)
      await pay(refunded!.paymentIntentId)
      await pay(partlyRefunded!.paymentIntentId)
      await h.emulator.stripe.flushWebhooks()
      await h.stripe.refunds.create({ payment_intent: refunded!.paymentIntentId })
      await h.stripe.refunds.create({ payment_intent: partlyRefunded!.paymentIntentId, amount: 100 })
      await h.emulator.stripe.flushWebhooks()

      const expected = ['completed', 'pending', 'failed', 'cancelled', 'refunded', 'partially_refunded']
      const history = await eventually(
        () => paymentHistory(member.accessToken, '?sortBy=amount&sortOrder=asc'),
        (page) => JSON.stringify(page.items.map((item) => item.status)) === JSON.stringify(expected),
      )
      expect(history.items.map((item) => [item.amount, item.status])).toEqual([
        [1, 'completed'],
        [2, 'pending'],
        [3, 'failed'],
        [4, 'cancelled'],
        [5, 'refunded'],
        [6, 'partially_refunded'],
      ])
      for (const item of history.items) expect(PAYMENT_STATUSES).toContain(item.status)
      // The status is stored as that word: searching for it finds exactly that payment.
      for (const [index, word] of expected.entries()) {
        const found = await paymentHistory(member.accessToken, `?search=${word}`)
        expect(
          found.items.map((item) => item.amount),
          word,
        ).toEqual([index + 1])
      }
    })
  })
})
