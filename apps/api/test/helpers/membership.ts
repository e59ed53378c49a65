import type { PaymentIntent } from '@edgeclub/shared'
import type { BillingHarness } from './billing'
import { plansBySlug } from './billing'
import { as, login, register } from './members'

const API = '/discord/api'
const DAY = 24 * 3600 * 1000
export const ADMIN = { email: 'levers.admin@edgeclub.test', password: 'Adm1n$Levers-2026' }

/**
 * Helpers for the revenue levers, on a billing harness started with STRIPE_TEST_CLOCKS:
 * every member's Stripe customer lives on a test clock of its own, which `advance` moves (with the
 * app's clock) instead of editing any date.
 */
export function levers(h: BillingHarness) {
  const call = (
    token: string,
    method: 'GET' | 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: Record<string, unknown>,
  ) => as(h.t.app, token, { method, url: `${API}${url}`, ...(payload === undefined ? {} : { payload }) })

  async function admin() {
    return (await login(h.t.app, ADMIN.email, ADMIN.password)).accessToken
  }

  async function member(overrides: Record<string, unknown> = {}) {
    return register(h.t.app, overrides)
  }

  /** A fresh sign-in (moving the clock by days outlives a 15-minute access token). */
  async function again(session: { user: { email: string }; password: string }) {
    return { ...session, ...(await login(h.t.app, session.user.email, session.password)) }
  }

  async function customerOf(userId: string): Promise<string> {
    const row = await h.t.database.db
      .selectFrom('users')
      .select('stripe_customer_id')
      .where('id', '=', userId)
      .executeTakeFirstOrThrow()
    if (!row.stripe_customer_id) throw new Error('member has no Stripe customer yet')
    return row.stripe_customer_id
  }

  /** Moves one member's test clock (and the app's clock) forward, then delivers what fell due. */
  async function advance(userId: string, ms: number) {
    const customer = await h.stripe.customers.retrieve(await customerOf(userId))
    if (customer.deleted || !customer.test_clock) throw new Error('member has no test clock')
    const clockId = typeof customer.test_clock === 'string' ? customer.test_clock : customer.test_clock.id
    const current = await h.stripe.testHelpers.testClocks.retrieve(clockId)
    h.clock.advance(ms)
    const report = h.emulator.stripe.advanceTestClock(clockId, current.frozen_time + Math.round(ms / 1000))
    await h.emulator.stripe.flushWebhooks()
    return report
  }

  /** Stripe.js's part of a card payment: confirm the PaymentIntent with a test card. */
  async function payIntent(paymentIntentId: string, card = 'pm_card_visa') {
    return h.stripe.paymentIntents.confirm(paymentIntentId, { payment_method: card })
  }

  /** A card nobody used before (its own number, so its own Stripe fingerprint), as a PaymentMethod. */
  async function freshCard(): Promise<string> {
    const digits = Array.from({ length: 15 }, (_, index) =>
      index === 0 ? 4 : Math.floor(Math.random() * 10),
    )
    // The Luhn check digit makes it a valid card number.
    const sum = digits
      .slice()
      .reverse()
      .reduce((total, digit, index) => {
        const value = index % 2 === 0 ? digit * 2 : digit
        return total + (value > 9 ? value - 9 : value)
      }, 0)
    const number = `${digits.join('')}${(10 - (sum % 10)) % 10}`
    const method = await h.stripe.paymentMethods.create({
      type: 'card',
      card: { number, exp_month: 12, exp_year: new Date().getFullYear() + 3, cvc: '123' },
    })
    return method.id
  }

  /** Stripe.js's part of saving a card: confirm the SetupIntent with a test card. */
  async function saveCard(setupIntentId: string, card = 'pm_card_visa') {
    return h.stripe.setupIntents.confirm(setupIntentId, { payment_method: card })
  }

  async function checkout(token: string, slug: string, promoCode?: string) {
    const plans = await plansBySlug(h)
    return call(token, 'POST', '/payments/create-intent', {
      planId: plans[slug]!.id,
      currency: 'USD',
      ...(promoCode ? { promoCode } : {}),
    })
  }

  /** A member who bought `slug` by card (paid with the visa test card) and has access now. */
  async function subscribed(slug: string, overrides: Record<string, unknown> = {}) {
    const session = await member(overrides)
    const started = await checkout(session.accessToken, slug)
    if (started.statusCode !== 200) throw new Error(`checkout failed: ${started.body}`)
    const intent = started.json().data as PaymentIntent
    await payIntent(intent.paymentIntentId)
    const confirmed = await call(session.accessToken, 'POST', '/payments/confirm', {
      paymentIntentId: intent.paymentIntentId,
    })
    if (confirmed.json().data.status !== 'completed')
      throw new Error(`payment not completed: ${confirmed.body}`)
    await h.emulator.stripe.flushWebhooks()
    return session
  }

  async function status(token: string) {
    return (await call(token, 'GET', '/subscriptions/status')).json().data as {
      hasAccess: boolean
      status: string | null
      trialEndsAt: string | null
      resumesAt: string | null
      scheduledChange: { planId: string; planName: string; effectiveAt: string } | null
      activeSubscription: {
        planId: { name: string; slug: string }
        endDate: string | null
        status: string
      } | null
    }
  }

  async function payments(userId: string) {
    return h.t.database.db
      .selectFrom('payments')
      .select(['kind', 'status', 'amount_minor', 'plan_id', 'promo_code_id', 'discount_minor'])
      .where('user_id', '=', userId)
      .orderBy('created_at')
      .execute()
  }

  async function invoicesOf(userId: string) {
    const list = await h.stripe.invoices.list({ customer: await customerOf(userId), limit: 100 })
    return list.data.sort((a, b) => a.created - b.created)
  }

  async function createCode(token: string, input: Record<string, unknown>) {
    return call(token, 'POST', '/admin/promo-codes', input)
  }

  return {
    call,
    admin,
    member,
    again,
    customerOf,
    advance,
    payIntent,
    freshCard,
    saveCard,
    checkout,
    subscribed,
    status,
    payments,
    invoicesOf,
    createCode,
    plans: () => plansBySlug(h),
    DAY,
  }
}
