import Stripe from 'stripe'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Emulator, startEmulator } from '../src/server'
import { type StripeWebhookReceiver, startStripeWebhookReceiver } from './stripe-webhook-receiver'

/**
 * The emulated Stripe API seen through the real `stripe` SDK (the app's client), pointed at the
 * emulator with host/port/protocol: object shapes of the pinned API version, errors the SDK turns
 * into its error classes, subscriptions through renewals, refunds, idempotency and pagination.
 */

const WEBHOOK_SECRET = 'whsec_contract_tests'
const DAY = 86_400

let emulator: Emulator
let stripe: Stripe
let receiver: StripeWebhookReceiver

function client(key: string, options: Stripe.StripeConfig = {}): Stripe {
  return new Stripe(key, {
    host: '127.0.0.1',
    port: new URL(emulator.url).port,
    protocol: 'http',
    maxNetworkRetries: 0,
    ...options,
  })
}

beforeAll(async () => {
  emulator = await startEmulator({ stripe: { webhookSecret: WEBHOOK_SECRET, webhookRetryDelayMs: 20 } })
  stripe = client(emulator.stripe.secretKey)
  receiver = await startStripeWebhookReceiver(stripe, WEBHOOK_SECRET)
  emulator.stripe.setWebhookUrl(receiver.url)
})

afterAll(async () => {
  await emulator?.close()
  await receiver?.close()
})

beforeEach(async () => {
  await emulator.stripe.flushWebhooks()
  emulator.stripe.reset()
  receiver.reset()
})

async function monthlyPrice(amount = 2900, interval: 'week' | 'month' | 'year' = 'month') {
  const product = await stripe.products.create({ name: 'EdgeClub Pro', metadata: { plan: 'pro' } })
  return stripe.prices.create({
    product: product.id,
    currency: 'usd',
    unit_amount: amount,
    recurring: { interval },
  })
}

/** The app's subscription checkout: default_incomplete with the two expands the client needs. */
async function startCheckout(price?: Stripe.Price) {
  const customer = await stripe.customers.create({ email: 'member@example.com', name: 'Mia Member' })
  const usedPrice = price ?? (await monthlyPrice())
  const subscription = await stripe.subscriptions.create({
    customer: customer.id,
    items: [{ price: usedPrice.id }],
    payment_behavior: 'default_incomplete',
    payment_settings: { save_default_payment_method: 'on_subscription' },
    metadata: { userId: 'user_42' },
    expand: ['latest_invoice.confirmation_secret', 'latest_invoice.payments'],
  })
  const invoice = subscription.latest_invoice as Stripe.Invoice
  const paymentIntentId = invoice.payments?.data[0]?.payment.payment_intent as string
  return { customer, price: usedPrice, subscription, invoice, paymentIntentId }
}

async function activeSubscription(paymentMethod = 'pm_card_visa', price?: Stripe.Price) {
  const checkout = await startCheckout(price)
  await stripe.paymentIntents.confirm(checkout.paymentIntentId, { payment_method: paymentMethod })
  const subscription = await stripe.subscriptions.retrieve(checkout.subscription.id)
  return { ...checkout, subscription }
}

function periodOf(subscription: Stripe.Subscription) {
  const item = subscription.items.data[0] as Stripe.SubscriptionItem
  return { start: item.current_period_start, end: item.current_period_end }
}

describe('customers, products and prices', () => {
  it('creates, retrieves and updates customers with metadata merged like Stripe', async () => {
    const created = await stripe.customers.create({
      email: 'ana@example.com',
      name: 'Ana',
      metadata: { userId: 'u_1', source: 'signup' },
    })
    expect(created.id).toMatch(/^cus_[A-Za-z0-9]{14}$/)
    expect(created).toMatchObject({
      object: 'customer',
      livemode: false,
      email: 'ana@example.com',
      balance: 0,
    })
    expect(created.created).toBeCloseTo(emulator.stripe.now(), -1)
    expect(created.invoice_settings.default_payment_method).toBeNull()

    const updated = await stripe.customers.update(created.id, {
      name: 'Ana B',
      metadata: { source: '', tier: 'pro' },
    })
    expect(updated.name).toBe('Ana B')
    expect(updated.metadata).toEqual({ userId: 'u_1', tier: 'pro' })
    expect((await stripe.customers.retrieve(created.id)).id).toBe(created.id)

    const found = await stripe.customers.search({ query: "metadata['userId']:'u_1'" })
    expect(found.data.map((c) => c.id)).toEqual([created.id])
  })

  it('answers unknown ids with 404 resource_missing and bad parameters with 400', async () => {
    const missing = await stripe.customers.retrieve('cus_nope').catch((error: unknown) => error)
    expect(missing).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    expect(missing).toMatchObject({
      statusCode: 404,
      code: 'resource_missing',
      param: 'id',
      message: "No such customer: 'cus_nope'",
    })

    const unknown = await stripe.customers
      .create({ email: 'x@example.com', colour: 'red' } as Stripe.CustomerCreateParams)
      .catch((error: unknown) => error)
    expect(unknown).toMatchObject({ statusCode: 400, code: 'parameter_unknown', param: 'colour' })

    const unrecognised = await stripe.customers.del('cus_123').catch((error: unknown) => error)
    expect(unrecognised).toBeInstanceOf(Stripe.errors.StripeInvalidRequestError)
    expect(unrecognised).toMatchObject({ statusCode: 404 })
    expect((unrecognised as Error).message).toContain(
      'Unrecognized request URL (DELETE: /v1/customers/cus_123)',
    )

    const noPrice = await stripe.prices
      .create({ currency: 'usd', unit_amount: 100, product: 'prod_missing' })
      .catch((error: unknown) => error)
    expect(noPrice).toMatchObject({ statusCode: 400, code: 'resource_missing', param: 'product' })
  })

  it('rejects a wrong secret key with 401 and keeps publishable keys to Stripe.js calls', async () => {
    const wrong = await client('sk_test_wrong_key_1234')
      .customers.list()
      .catch((error: unknown) => error)
    expect(wrong).toBeInstanceOf(Stripe.errors.StripeAuthenticationError)
    expect(wrong).toMatchObject({ statusCode: 401 })

    const publishable = await client(emulator.stripe.publishableKey)
      .customers.list()
      .catch((error: unknown) => error)
    expect(publishable).toBeInstanceOf(Stripe.errors.StripeAuthenticationError)
    expect((publishable as Error).message).toContain('publishable API key')
  })

  it('creates recurring and one-off prices, finds them by lookup key and archives them', async () => {
    const product = await stripe.products.create({ name: 'EdgeClub', description: 'Signals' })
    expect(product).toMatchObject({ object: 'product', active: true, name: 'EdgeClub', type: 'service' })
    const quarterly = await stripe.prices.create({
      product: product.id,
      currency: 'usd',
      unit_amount: 7900,
      lookup_key: 'pro_quarterly',
      recurring: { interval: 'month', interval_count: 3 },
    })
    expect(quarterly).toMatchObject({
      object: 'price',
      type: 'recurring',
      unit_amount: 7900,
      recurring: { interval: 'month', interval_count: 3, usage_type: 'licensed' },
    })
    // The SDK coerces decimal strings; this passing means the wire format was a string.
    expect(String(quarterly.unit_amount_decimal)).toBe('7900')
    const weekly = await stripe.prices.create({
      product: product.id,
      currency: 'usd',
      unit_amount: 900,
      recurring: { interval: 'week' },
    })
    const lifetime = await stripe.prices.create({ product: product.id, currency: 'usd', unit_amount: 49900 })
    expect(lifetime).toMatchObject({ type: 'one_time', recurring: null })

    const byKey = await stripe.prices.list({ lookup_keys: ['pro_quarterly'], expand: ['data.product'] })
    expect(byKey.data.map((p) => p.id)).toEqual([quarterly.id])
    expect(byKey.data[0]?.product).toMatchObject({ object: 'product', name: 'EdgeClub' })

    const archived = await stripe.prices.update(weekly.id, { active: false })
    expect(archived.active).toBe(false)
    const active = await stripe.prices.list({ product: product.id, active: true })
    expect(active.data.map((p) => p.id).sort()).toEqual([quarterly.id, lifetime.id].sort())
    expect((await stripe.products.update(product.id, { active: false })).active).toBe(false)

    const dup = await stripe.prices
      .create({ product: product.id, currency: 'usd', unit_amount: 1, lookup_key: 'pro_quarterly' })
      .catch((error: unknown) => error)
    expect(dup).toMatchObject({ statusCode: 400, param: 'lookup_key' })
  })
})

describe('payment intents', () => {
  it('charges a lifetime purchase confirmed with pm_card_visa', async () => {
    const customer = await stripe.customers.create({ email: 'life@example.com' })
    const created = await stripe.paymentIntents.create({
      amount: 49900,
      currency: 'usd',
      customer: customer.id,
      description: 'EdgeClub lifetime',
      metadata: { kind: 'lifetime', userId: 'u_7' },
      allowed_payment_method_types: ['card'],
    })
    expect(created).toMatchObject({
      object: 'payment_intent',
      status: 'requires_payment_method',
      latest_charge: null,
    })
    expect(created.id).toMatch(/^pi_/)
    expect(created.client_secret).toMatch(new RegExp(`^${created.id}_secret_`))

    const confirmed = await stripe.paymentIntents.confirm(created.id, {
      payment_method: 'pm_card_visa',
      expand: ['latest_charge'],
    })
    expect(confirmed.status).toBe('succeeded')
    expect(confirmed.amount_received).toBe(49900)
    const charge = confirmed.latest_charge as Stripe.Charge
    expect(charge).toMatchObject({
      object: 'charge',
      status: 'succeeded',
      paid: true,
      amount: 49900,
      payment_intent: created.id,
      customer: customer.id,
      metadata: { kind: 'lifetime', userId: 'u_7' },
      payment_method_details: { type: 'card', card: { brand: 'visa', last4: '4242' } },
    })
    // The test token became a real PaymentMethod, as on Stripe.
    expect(confirmed.payment_method).toMatch(/^pm_(?!card_)/)
    const events = await stripe.events.list({ type: 'payment_intent.succeeded' })
    expect(events.data[0]?.data.object).toMatchObject({ id: created.id, status: 'succeeded' })
  })

  it('declines pm_card_chargeDeclined with a 402 StripeCardError and leaves the intent payable', async () => {
    const pi = await stripe.paymentIntents.create({
      amount: 2900,
      currency: 'usd',
      allowed_payment_method_types: ['card'],
    })
    const error = await stripe.paymentIntents
      .confirm(pi.id, { payment_method: 'pm_card_chargeDeclined' })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError)
    const cardError = error as Stripe.errors.StripeCardError
    expect(cardError).toMatchObject({
      statusCode: 402,
      type: 'StripeCardError',
      code: 'card_declined',
      decline_code: 'generic_decline',
      message: 'Your card was declined.',
    })
    expect(cardError.payment_intent?.id).toBe(pi.id)
    expect(cardError.payment_intent?.status).toBe('requires_payment_method')

    const after = await stripe.paymentIntents.retrieve(pi.id)
    expect(after.status).toBe('requires_payment_method')
    expect(after.last_payment_error).toMatchObject({ type: 'card_error', code: 'card_declined' })
    const failedCharge = await stripe.charges.retrieve(after.latest_charge as string)
    expect(failedCharge).toMatchObject({ status: 'failed', paid: false, failure_code: 'card_declined' })

    // The customer tries another card on the same intent.
    const retried = await stripe.paymentIntents.confirm(pi.id, { payment_method: 'pm_card_visa' })
    expect(retried.status).toBe('succeeded')
    expect(retried.last_payment_error).toBeNull()
  })

  it('stops at requires_action for 3-D Secure and continues when the customer authenticates', async () => {
    const pi = await stripe.paymentIntents.create({
      amount: 2900,
      currency: 'usd',
      allowed_payment_method_types: ['card'],
    })
    const pending = await stripe.paymentIntents.confirm(pi.id, {
      payment_method: 'pm_card_authenticationRequired',
    })
    expect(pending.status).toBe('requires_action')
    expect(pending.next_action?.type).toBe('use_stripe_sdk')

    emulator.stripe.authenticate(pi.id)
    const done = await stripe.paymentIntents.retrieve(pi.id, { expand: ['latest_charge'] })
    expect(done.status).toBe('succeeded')
    expect((done.latest_charge as Stripe.Charge).payment_method_details?.card?.three_d_secure).toMatchObject({
      result: 'authenticated',
    })

    const other = await stripe.paymentIntents.create({
      amount: 2900,
      currency: 'usd',
      payment_method: 'pm_card_authenticationRequired',
      confirm: true,
      return_url: 'https://app.example/return',
    })
    expect(other.status).toBe('requires_action')
    expect(other.next_action?.redirect_to_url?.url).toContain(`/stripe-js/3ds/${other.id}`)
    emulator.stripe.authenticate(other.id, false)
    const failed = await stripe.paymentIntents.retrieve(other.id)
    expect(failed.status).toBe('requires_payment_method')
    expect(failed.last_payment_error).toMatchObject({
      code: 'payment_intent_authentication_failure',
      message:
        'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
    })
    const types = (await stripe.events.list({ limit: 100 })).data.map((e) => e.type)
    expect(types).toContain('payment_intent.requires_action')
    expect(types).toContain('payment_intent.payment_failed')
  })

  it('lets the publishable key read and confirm an intent only with its client secret', async () => {
    const pi = await stripe.paymentIntents.create({
      amount: 1500,
      currency: 'usd',
      metadata: { secret: 'server-only' },
      allowed_payment_method_types: ['card'],
    })
    const pk = emulator.stripe.publishableKey
    const url = `${emulator.url}/v1/payment_intents/${pi.id}`
    const withSecret = await fetch(`${url}?key=${pk}&client_secret=${pi.client_secret}`)
    expect(withSecret.status).toBe(200)
    const body = (await withSecret.json()) as Record<string, unknown>
    expect(body).toMatchObject({ id: pi.id, status: 'requires_payment_method', amount: 1500 })
    expect(body.metadata).toBeUndefined()
    expect(withSecret.headers.get('access-control-allow-origin')).toBe('*')

    const withoutSecret = await fetch(`${url}?key=${pk}`)
    expect(withoutSecret.status).toBe(400)

    const confirm = await fetch(`${url}/confirm`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        key: pk,
        client_secret: pi.client_secret ?? '',
        'payment_method_data[type]': 'card',
        'payment_method_data[card][number]': '4000000000000002',
        'payment_method_data[card][exp_month]': '12',
        'payment_method_data[card][exp_year]': '2034',
        'payment_method_data[card][cvc]': '123',
        'payment_method_data[billing_details][name]': 'Card Holder',
      }),
    })
    expect(confirm.status).toBe(402)
    const declined = (await confirm.json()) as { error: Record<string, unknown> }
    expect(declined.error).toMatchObject({
      type: 'card_error',
      code: 'card_declined',
      decline_code: 'generic_decline',
      message: 'Your card was declined.',
      payment_intent: { id: pi.id, status: 'requires_payment_method' },
    })
  })

  it('cancels an unpaid intent and refuses to confirm it afterwards', async () => {
    const pi = await stripe.paymentIntents.create({ amount: 2000, currency: 'usd' })
    expect(pi.automatic_payment_methods).toMatchObject({ enabled: true })
    const canceled = await stripe.paymentIntents.cancel(pi.id, { cancellation_reason: 'abandoned' })
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' })
    const error = await stripe.paymentIntents
      .confirm(pi.id, { payment_method: 'pm_card_visa' })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ statusCode: 400, code: 'payment_intent_unexpected_state' })
  })
})

describe('subscriptions', () => {
  it('runs the checkout: incomplete with a confirmable first invoice, active once its PaymentIntent succeeds', async () => {
    const { subscription, invoice, paymentIntentId, customer, price } = await startCheckout()
    expect(subscription).toMatchObject({
      object: 'subscription',
      status: 'incomplete',
      customer: customer.id,
      metadata: { userId: 'user_42' },
      default_payment_method: null,
      cancel_at_period_end: false,
      payment_settings: { save_default_payment_method: 'on_subscription' },
    })
    const item = subscription.items.data[0] as Stripe.SubscriptionItem
    expect(item.price.id).toBe(price.id)
    expect(item.current_period_end - item.current_period_start).toBeGreaterThanOrEqual(28 * DAY)

    expect(invoice).toMatchObject({
      object: 'invoice',
      status: 'open',
      billing_reason: 'subscription_create',
      amount_due: 2900,
      amount_paid: 0,
      parent: { type: 'subscription_details', subscription_details: { subscription: subscription.id } },
    })
    expect(invoice.confirmation_secret?.client_secret).toMatch(new RegExp(`^${paymentIntentId}_secret_`))
    expect(invoice.payments?.data[0]).toMatchObject({
      object: 'invoice_payment',
      status: 'open',
      is_default: true,
      payment: { type: 'payment_intent', payment_intent: paymentIntentId },
    })

    // Includable fields are only there when expanded, as on Stripe.
    const plain = await stripe.invoices.retrieve(invoice.id)
    expect(plain.payments).toBeUndefined()
    expect(plain.confirmation_secret).toBeUndefined()

    const pi = await stripe.paymentIntents.retrieve(paymentIntentId)
    expect(pi).toMatchObject({ amount: 2900, customer: customer.id, setup_future_usage: 'off_session' })
    await stripe.paymentIntents.confirm(paymentIntentId, { payment_method: 'pm_card_visa' })

    const active = await stripe.subscriptions.retrieve(subscription.id, {
      expand: ['latest_invoice.payments'],
    })
    expect(active.status).toBe('active')
    expect(active.default_payment_method).toMatch(/^pm_/)
    const paid = active.latest_invoice as Stripe.Invoice
    expect(paid).toMatchObject({ status: 'paid', amount_paid: 2900, amount_remaining: 0, attempted: true })
    expect(paid.payments?.data[0]).toMatchObject({ status: 'paid', amount_paid: 2900 })
    const pm = await stripe.paymentMethods.retrieve(active.default_payment_method as string)
    expect(pm.customer).toBe(customer.id)

    const invoices = await stripe.invoices.list({ subscription: subscription.id })
    expect(invoices.data.map((i) => i.id)).toEqual([invoice.id])
    const byPayment = await stripe.invoicePayments.list({
      payment: { type: 'payment_intent', payment_intent: paymentIntentId },
    })
    expect(byPayment.data[0]?.invoice).toBe(invoice.id)

    await emulator.stripe.flushWebhooks()
    const types = receiver.types()
    for (const type of [
      'customer.subscription.created',
      'invoice.created',
      'invoice.finalized',
      'payment_intent.created',
      'charge.succeeded',
      'payment_intent.succeeded',
      'invoice.paid',
      'invoice.payment_succeeded',
      'customer.subscription.updated',
    ]) {
      expect(types).toContain(type)
    }
    expect(types.indexOf('invoice.paid')).toBeLessThan(types.lastIndexOf('customer.subscription.updated'))
    const updated = receiver.received.findLast((r) => r.event.type === 'customer.subscription.updated')
    expect(updated?.event.data.previous_attributes).toMatchObject({ status: 'incomplete' })
  })

  it('needs 3-D Secure for the first invoice of a 3DS card, then activates', async () => {
    const { subscription, paymentIntentId } = await startCheckout()
    const pending = await stripe.paymentIntents.confirm(paymentIntentId, {
      payment_method: 'pm_card_authenticationRequired',
    })
    expect(pending.status).toBe('requires_action')
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe('incomplete')
    emulator.stripe.authenticate(paymentIntentId)
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe('active')
    expect(emulator.stripe.events('invoice.payment_action_required')).toHaveLength(1)

    // The card was set up on-session, so renewals go through without a challenge.
    emulator.stripe.advance(32 * DAY)
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe('active')
  })

  it('renews on the clock: a new period, a paid subscription_cycle invoice and signed events', async () => {
    const { subscription } = await activeSubscription()
    const first = periodOf(subscription)
    await emulator.stripe.flushWebhooks()
    receiver.reset()

    const report = emulator.stripe.advance(first.end - emulator.stripe.now() + 60)
    expect(report.renewed).toEqual([subscription.id])
    const renewed = await stripe.subscriptions.retrieve(subscription.id, { expand: ['latest_invoice'] })
    expect(renewed.status).toBe('active')
    expect(periodOf(renewed).start).toBe(first.end)
    expect(periodOf(renewed).end).toBeGreaterThan(first.end + 27 * DAY)
    const invoice = renewed.latest_invoice as Stripe.Invoice
    expect(invoice).toMatchObject({
      status: 'paid',
      billing_reason: 'subscription_cycle',
      amount_paid: 2900,
      period_start: first.start,
      period_end: first.end,
      created: first.end,
    })
    expect(invoice.lines.data[0]?.period).toEqual({ start: first.end, end: periodOf(renewed).end })

    await emulator.stripe.flushWebhooks()
    const types = receiver.types()
    expect(types).toEqual(
      expect.arrayContaining(['customer.subscription.updated', 'invoice.paid', 'payment_intent.succeeded']),
    )
    const paidEvent = receiver.received.find((r) => r.event.type === 'invoice.paid')?.event
    expect(paidEvent).toMatchObject({ object: 'event', api_version: '2026-10-28.endive', livemode: false })
    expect(paidEvent?.request).toEqual({ id: null, idempotency_key: null })
    const periodEvent = receiver.received.find((r) => r.event.type === 'customer.subscription.updated')?.event
    expect(periodEvent?.data.previous_attributes).toHaveProperty('items')
    expect(receiver.rejected).toEqual([])

    // A year later: eleven more renewals, each at its own period end.
    const later = emulator.stripe.advance(365 * DAY)
    expect(later.renewed).toHaveLength(12)
    const invoices = await stripe.invoices.list({ subscription: subscription.id, limit: 100 })
    expect(invoices.data).toHaveLength(14)
    expect(invoices.data.every((i) => i.status === 'paid')).toBe(true)
  })

  it('goes past_due when a renewal fails, and back to active when the open invoice is paid', async () => {
    const { subscription, customer } = await activeSubscription()
    emulator.stripe.failNextRenewal(subscription.id)
    const report = emulator.stripe.advance(periodOf(subscription).end - emulator.stripe.now() + 1)
    expect(report.failed).toEqual([subscription.id])
    const pastDue = await stripe.subscriptions.retrieve(subscription.id, { expand: ['latest_invoice'] })
    expect(pastDue.status).toBe('past_due')
    const open = pastDue.latest_invoice as Stripe.Invoice
    expect(open).toMatchObject({ status: 'open', attempt_count: 1, attempted: true, amount_remaining: 2900 })
    expect(emulator.stripe.events('invoice.payment_failed')).toHaveLength(1)

    const card = await stripe.paymentMethods.attach('pm_card_mastercard', { customer: customer.id })
    await stripe.invoices.pay(open.id, { payment_method: card.id })
    const recovered = await stripe.subscriptions.retrieve(subscription.id)
    expect(recovered.status).toBe('active')
    expect((await stripe.invoices.retrieve(open.id)).status).toBe('paid')
  })

  it('fails renewals on the 4000000000000341 card, which attaches but never charges', async () => {
    const { subscription, customer } = await activeSubscription()
    const failing = await stripe.paymentMethods.attach('pm_card_chargeCustomerFail', {
      customer: customer.id,
    })
    expect(failing.card?.last4).toBe('0341')
    await stripe.subscriptions.update(subscription.id, { default_payment_method: failing.id })

    emulator.stripe.advance(periodOf(subscription).end - emulator.stripe.now() + 1)
    const after = await stripe.subscriptions.retrieve(subscription.id, {
      expand: ['latest_invoice.payments'],
    })
    expect(after.status).toBe('past_due')
    const invoice = after.latest_invoice as Stripe.Invoice
    const pi = await stripe.paymentIntents.retrieve(
      invoice.payments?.data[0]?.payment.payment_intent as string,
    )
    expect(pi.status).toBe('requires_payment_method')
    expect(pi.last_payment_error).toMatchObject({ code: 'card_declined', decline_code: 'generic_decline' })

    // A declining card cannot be attached at all.
    const declined = await stripe.paymentMethods
      .attach('pm_card_chargeDeclined', { customer: customer.id })
      .catch((error: unknown) => error)
    expect(declined).toBeInstanceOf(Stripe.errors.StripeCardError)
  })

  it('ends a cancel_at_period_end subscription at the period end, not before', async () => {
    const { subscription } = await activeSubscription()
    const { end } = periodOf(subscription)
    const scheduled = await stripe.subscriptions.update(subscription.id, { cancel_at_period_end: true })
    expect(scheduled).toMatchObject({
      status: 'active',
      cancel_at_period_end: true,
      cancel_at: end,
      cancellation_details: { reason: 'cancellation_requested' },
    })
    expect(scheduled.canceled_at).not.toBeNull()

    emulator.stripe.advance(end - emulator.stripe.now() - 3600)
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe('active')
    const report = emulator.stripe.advance(7200)
    expect(report.canceled).toEqual([subscription.id])
    const ended = await stripe.subscriptions.retrieve(subscription.id)
    expect(ended).toMatchObject({ status: 'canceled', ended_at: end })
    expect(emulator.stripe.events('customer.subscription.deleted')).toHaveLength(1)
    expect((await stripe.invoices.list({ subscription: subscription.id })).data).toHaveLength(1)

    // Undoing before the end keeps it going instead.
    const second = await activeSubscription()
    await stripe.subscriptions.update(second.subscription.id, { cancel_at_period_end: true })
    const resumed = await stripe.subscriptions.update(second.subscription.id, { cancel_at_period_end: false })
    expect(resumed).toMatchObject({ cancel_at_period_end: false, cancel_at: null, canceled_at: null })
  })

  it('cancels at once, lists by customer and status, and changes price', async () => {
    const { subscription, customer } = await activeSubscription()
    const listed = await stripe.subscriptions.list({ customer: customer.id })
    expect(listed.data.map((s) => s.id)).toEqual([subscription.id])

    const yearly = await monthlyPrice(29000, 'year')
    const item = subscription.items.data[0] as Stripe.SubscriptionItem
    const changed = await stripe.subscriptions.update(subscription.id, {
      items: [{ id: item.id, price: yearly.id }],
      proration_behavior: 'none',
      expand: ['latest_invoice'],
    })
    expect(changed.items.data[0]?.price.id).toBe(yearly.id)
    expect(changed.items.data[0]?.id).toBe(item.id)
    expect(periodOf(changed).end - periodOf(changed).start).toBeGreaterThanOrEqual(365 * DAY)
    expect(changed.latest_invoice).toMatchObject({
      billing_reason: 'subscription_update',
      status: 'paid',
      amount_paid: 29000,
    })

    const canceled = await stripe.subscriptions.cancel(subscription.id)
    expect(canceled.status).toBe('canceled')
    expect(canceled.ended_at).toBe(canceled.canceled_at)
    expect((await stripe.subscriptions.list({ customer: customer.id })).data).toEqual([])
    expect((await stripe.subscriptions.list({ customer: customer.id, status: 'all' })).data).toHaveLength(1)
    const again = await stripe.subscriptions
      .update(subscription.id, { cancel_at_period_end: true })
      .catch((e: unknown) => e)
    expect(again).toMatchObject({ statusCode: 400 })
  })

  it('expires an unpaid checkout after 23 hours', async () => {
    const { subscription, invoice, paymentIntentId } = await startCheckout()
    const report = emulator.stripe.advance(24 * 3600)
    expect(report.expired).toEqual([subscription.id])
    expect((await stripe.subscriptions.retrieve(subscription.id)).status).toBe('incomplete_expired')
    expect((await stripe.invoices.retrieve(invoice.id)).status).toBe('void')
    expect((await stripe.paymentIntents.retrieve(paymentIntentId)).status).toBe('canceled')
  })

  it('refuses one-off prices for subscriptions', async () => {
    const customer = await stripe.customers.create({})
    const product = await stripe.products.create({ name: 'Lifetime' })
    const oneOff = await stripe.prices.create({ product: product.id, currency: 'usd', unit_amount: 100 })
    const error = await stripe.subscriptions
      .create({ customer: customer.id, items: [{ price: oneOff.id }] })
      .catch((caught: unknown) => caught)
    expect(error).toMatchObject({ statusCode: 400, param: 'items[0][price]' })
  })
})

describe('refunds', () => {
  it('refunds partially, then the rest, and refuses more than remains', async () => {
    const pi = await stripe.paymentIntents.create({
      amount: 5000,
      currency: 'usd',
      payment_method: 'pm_card_visa',
      confirm: true,
      allowed_payment_method_types: ['card'],
    })
    expect(pi.status).toBe('succeeded')
    const partial = await stripe.refunds.create({
      payment_intent: pi.id,
      amount: 2000,
      reason: 'requested_by_customer',
    })
    expect(partial).toMatchObject({
      object: 'refund',
      amount: 2000,
      status: 'succeeded',
      payment_intent: pi.id,
      charge: pi.latest_charge,
    })
    let charge = await stripe.charges.retrieve(pi.latest_charge as string)
    expect(charge).toMatchObject({ amount_refunded: 2000, refunded: false })

    const tooMuch = await stripe.refunds.create({ charge: charge.id, amount: 3001 }).catch((e: unknown) => e)
    expect(tooMuch).toMatchObject({ statusCode: 400, code: 'amount_too_large', param: 'amount' })

    await stripe.refunds.create({ charge: charge.id })
    charge = await stripe.charges.retrieve(charge.id, { expand: ['refunds'] })
    expect(charge).toMatchObject({ amount_refunded: 5000, refunded: true })
    expect(charge.refunds?.data).toHaveLength(2)
    const again = await stripe.refunds.create({ payment_intent: pi.id }).catch((e: unknown) => e)
    expect(again).toMatchObject({ statusCode: 400, code: 'charge_already_refunded' })

    const refundedEvents = emulator.stripe.events('charge.refunded')
    expect(refundedEvents).toHaveLength(2)
    expect(refundedEvents[1]?.data.object).toMatchObject({ payment_intent: pi.id, refunded: true })
    expect(emulator.stripe.events('refund.created')).toHaveLength(2)
  })
})

describe('idempotency and pagination', () => {
  it('replays the first response for a repeated Idempotency-Key and rejects a reused key with other params', async () => {
    const first = await stripe.customers.create({ email: 'once@example.com' }, { idempotencyKey: 'signup-1' })
    const second = await stripe.customers.create(
      { email: 'once@example.com' },
      { idempotencyKey: 'signup-1' },
    )
    expect(second.id).toBe(first.id)
    expect(second.lastResponse.headers['idempotent-replayed']).toBe('true')
    expect(emulator.stripe.state().counts.customers).toBe(1)

    const clash = await stripe.customers
      .create({ email: 'other@example.com' }, { idempotencyKey: 'signup-1' })
      .catch((error: unknown) => error)
    expect(clash).toBeInstanceOf(Stripe.errors.StripeIdempotencyError)

    // Errors replay too, with their status.
    const pi = await stripe.paymentIntents.create({
      amount: 900,
      currency: 'usd',
      allowed_payment_method_types: ['card'],
    })
    const decline = () =>
      stripe.paymentIntents
        .confirm(pi.id, { payment_method: 'pm_card_chargeDeclined' }, { idempotencyKey: 'pay-1' })
        .then(
          () => {
            throw new Error('expected a decline')
          },
          (error: unknown) => error as Stripe.errors.StripeCardError,
        )
    const [a, b] = [await decline(), await decline()]
    expect(a.statusCode).toBe(402)
    expect(b.statusCode).toBe(402)
    expect(b).toMatchObject({ code: 'card_declined', charge: a.charge, message: a.message })
    expect(b.headers?.['original-request']).toBe(a.requestId)
    expect(emulator.stripe.state().counts.charges).toBe(1)
  })

  it('pages newest first with limit, starting_after, ending_before and auto-pagination', async () => {
    const ids: string[] = []
    for (let i = 0; i < 25; i++) ids.push((await stripe.customers.create({ email: `c${i}@example.com` })).id)
    const newestFirst = [...ids].reverse()

    const page1 = await stripe.customers.list({ limit: 10 })
    expect(page1).toMatchObject({ object: 'list', has_more: true, url: '/v1/customers' })
    expect(page1.data.map((c) => c.id)).toEqual(newestFirst.slice(0, 10))
    const page2 = await stripe.customers.list({ limit: 10, starting_after: page1.data.at(-1)?.id as string })
    expect(page2.data.map((c) => c.id)).toEqual(newestFirst.slice(10, 20))
    const back = await stripe.customers.list({ limit: 5, ending_before: page2.data[0]?.id as string })
    expect(back.data.map((c) => c.id)).toEqual(newestFirst.slice(5, 10))

    const all = await stripe.customers.list({ limit: 7 }).autoPagingToArray({ limit: 100 })
    expect(all.map((c) => c.id)).toEqual(newestFirst)
    const byEmail = await stripe.customers.list({ email: 'c3@example.com' })
    expect(byEmail.data.map((c) => c.id)).toEqual([ids[3]])

    const event = (await stripe.events.list({ type: 'customer.created', limit: 1 })).data[0] as Stripe.Event
    expect((await stripe.events.retrieve(event.id)).id).toBe(event.id)
    expect(event.data.object).toMatchObject({ id: newestFirst[0] })
  })
})
