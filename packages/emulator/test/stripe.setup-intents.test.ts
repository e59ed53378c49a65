import Stripe from 'stripe'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import {
  expectEventsAsDeclared,
  expectSdkShape,
  type Harness,
  resetHarness,
  startHarness,
} from './stripe-harness'

/**
 * SetupIntents through the SDK and as Stripe.js calls them (publishable key + client secret): a
 * saved card is attached to the customer, 3-D Secure cards stop for the challenge, declines fail
 * with Stripe's card_error; card fingerprints identify a card number across customers.
 */

let h: Harness

beforeAll(async () => {
  h = await startHarness()
})
afterAll(async () => h?.close())
afterEach(() => expectEventsAsDeclared(h))
beforeEach(async () => resetHarness(h))

function form(fields: Record<string, string>): RequestInit {
  return {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams(fields),
  }
}

describe('SetupIntents', () => {
  it('saves a card for a customer: succeeded, attached, with its events and shape', async () => {
    const customer = await h.stripe.customers.create({ email: 'saver@example.com' })
    const created = await h.stripe.setupIntents.create({
      customer: customer.id,
      usage: 'off_session',
      allowed_payment_method_types: ['card'],
      metadata: { purpose: 'update-card' },
    })
    expect(created).toMatchObject({
      object: 'setup_intent',
      status: 'requires_payment_method',
      usage: 'off_session',
      customer: customer.id,
      payment_method_types: ['card'],
      allowed_payment_method_types: ['card'],
      metadata: { purpose: 'update-card' },
      latest_attempt: null,
    })
    expect(created.id).toMatch(/^seti_/)
    expect(created.client_secret).toMatch(new RegExp(`^${created.id}_secret_`))
    expectSdkShape(created, 'SetupIntents.d.ts', 'SetupIntent')

    const confirmed = await h.stripe.setupIntents.confirm(created.id, {
      payment_method: 'pm_card_visa',
      expand: ['latest_attempt', 'payment_method'],
    })
    expect(confirmed.status).toBe('succeeded')
    const pm = confirmed.payment_method as Stripe.PaymentMethod
    expect(pm).toMatchObject({ customer: customer.id, card: { last4: '4242', brand: 'visa' } })
    const attempt = confirmed.latest_attempt as Stripe.SetupAttempt
    expect(attempt).toMatchObject({ object: 'setup_attempt', status: 'succeeded', setup_intent: created.id })
    expectSdkShape(attempt, 'SetupAttempts.d.ts', 'SetupAttempt')
    const types = h.emulator.stripe.events().map((e) => e.type)
    expect(types).toEqual(
      expect.arrayContaining(['setup_intent.created', 'setup_intent.succeeded', 'payment_method.attached']),
    )

    const again = await h.stripe.setupIntents
      .confirm(created.id, { payment_method: 'pm_card_visa' })
      .catch((e: unknown) => e)
    expect(again).toMatchObject({ statusCode: 400, code: 'setup_intent_unexpected_state' })
  })

  it('stops 4000 0025 0000 3155 for 3-D Secure, then succeeds once the customer authenticates', async () => {
    const customer = await h.stripe.customers.create({})
    const si = await h.stripe.setupIntents.create({
      customer: customer.id,
      allowed_payment_method_types: ['card'],
    })
    const pending = await h.stripe.setupIntents.confirm(si.id, {
      payment_method: 'pm_card_authenticationRequiredOnSetup',
    })
    expect(pending.status).toBe('requires_action')
    expect(pending.next_action).toMatchObject({
      type: 'use_stripe_sdk',
      use_stripe_sdk: { type: 'three_d_secure_redirect' },
    })
    expect(h.emulator.stripe.events('setup_intent.requires_action')).toHaveLength(1)
    h.emulator.stripe.authenticate(si.id)
    const done = await h.stripe.setupIntents.retrieve(si.id, { expand: ['latest_attempt'] })
    expect(done.status).toBe('succeeded')
    expect(
      (done.latest_attempt as Stripe.SetupAttempt).payment_method_details.card?.three_d_secure,
    ).toMatchObject({
      result: 'authenticated',
    })
    expect((await h.stripe.paymentMethods.retrieve(done.payment_method as string)).customer).toBe(customer.id)

    // Server-side with a return_url: a redirect to the emulator's page, failed there.
    const other = await h.stripe.setupIntents.create({
      customer: customer.id,
      payment_method: 'pm_card_authenticationRequiredOnSetup',
      confirm: true,
      return_url: 'https://app.example/card-saved',
    })
    expect(other.status).toBe('requires_action')
    const url = other.next_action?.redirect_to_url?.url as string
    expect(url).toContain(`/stripe-js/3ds/${other.id}`)
    const page = await fetch(url)
    expect(await page.text()).toContain('Fail authentication')
    const redirect = await fetch(`${h.emulator.url}/stripe-js/3ds/${other.id}/redirect`, {
      ...form({
        client_secret: other.client_secret ?? '',
        return_url: 'https://app.example/card-saved',
        result: 'failure',
      }),
      redirect: 'manual',
    })
    expect(redirect.status).toBe(303)
    const location = new URL(redirect.headers.get('location') ?? '')
    expect(Object.fromEntries(location.searchParams)).toMatchObject({
      setup_intent: other.id,
      setup_intent_client_secret: other.client_secret,
      redirect_status: 'failed',
    })
    const failed = await h.stripe.setupIntents.retrieve(other.id)
    expect(failed).toMatchObject({
      status: 'requires_payment_method',
      payment_method: null,
      last_setup_error: {
        code: 'setup_intent_authentication_failure',
        message:
          'We are unable to authenticate your payment method. Please choose a different payment method and try again.',
      },
    })
    expect(h.emulator.stripe.events('setup_intent.setup_failed')).toHaveLength(1)
  })

  it('fails a declining card with a 402 card_error that carries the SetupIntent', async () => {
    const customer = await h.stripe.customers.create({})
    const si = await h.stripe.setupIntents.create({ customer: customer.id })
    expect(si.automatic_payment_methods).toMatchObject({ enabled: true })
    const error = await h.stripe.setupIntents
      .confirm(si.id, { payment_method: 'pm_card_chargeDeclined' })
      .catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(Stripe.errors.StripeCardError)
    expect(error).toMatchObject({
      statusCode: 402,
      code: 'card_declined',
      decline_code: 'generic_decline',
      message: 'Your card was declined.',
    })
    expect((error as Stripe.errors.StripeCardError).setup_intent?.id).toBe(si.id)
    const after = await h.stripe.setupIntents.retrieve(si.id)
    expect(after).toMatchObject({
      status: 'requires_payment_method',
      last_setup_error: { type: 'card_error', code: 'card_declined', decline_code: 'generic_decline' },
    })
    expect(h.emulator.stripe.events('setup_intent.setup_failed')).toHaveLength(1)

    // The card that attaches but fails every charge sets up fine (Stripe's failed-renewal card).
    const ok = await h.stripe.setupIntents.confirm(si.id, { payment_method: 'pm_card_chargeCustomerFail' })
    expect(ok.status).toBe('succeeded')
  })

  it('lets Stripe.js read and confirm with the publishable key and client secret only', async () => {
    const customer = await h.stripe.customers.create({})
    const si = await h.stripe.setupIntents.create({
      customer: customer.id,
      metadata: { secret: 'server-only' },
    })
    const pk = h.emulator.stripe.publishableKey
    const url = `${h.emulator.url}/v1/setup_intents/${si.id}`
    const read = await fetch(`${url}?key=${pk}&client_secret=${si.client_secret}`)
    expect(read.status).toBe(200)
    const body = (await read.json()) as Record<string, unknown>
    expect(body).toMatchObject({ id: si.id, status: 'requires_payment_method' })
    expect(body.customer).toBeUndefined()
    expect(body.metadata).toBeUndefined()
    expect((await fetch(`${url}?key=${pk}`)).status).toBe(400)

    const confirmed = await fetch(
      `${url}/confirm`,
      form({
        key: pk,
        client_secret: si.client_secret ?? '',
        use_stripe_sdk: 'true',
        expected_payment_method_type: 'card',
        'payment_method_data[type]': 'card',
        'payment_method_data[card][number]': '5555555555554444',
        'payment_method_data[card][exp_month]': '12',
        'payment_method_data[card][exp_year]': '2034',
        'payment_method_data[card][cvc]': '123',
        'payment_method_data[billing_details][name]': 'Card Holder',
      }),
    )
    expect(confirmed.status).toBe(200)
    expect(await confirmed.json()).toMatchObject({ id: si.id, status: 'succeeded' })
    const listed = await h.stripe.setupIntents.list({ customer: customer.id })
    expect(listed.data.map((s) => s.id)).toEqual([si.id])

    const forbidden = await h
      .client(pk)
      .setupIntents.create({})
      .catch((e: unknown) => e)
    expect(forbidden).toBeInstanceOf(Stripe.errors.StripeAuthenticationError)
  })

  it('cancels a SetupIntent that is not done', async () => {
    const si = await h.stripe.setupIntents.create({})
    const canceled = await h.stripe.setupIntents.cancel(si.id, { cancellation_reason: 'abandoned' })
    expect(canceled).toMatchObject({ status: 'canceled', cancellation_reason: 'abandoned' })
    const confirm = await h.stripe.setupIntents
      .confirm(si.id, { payment_method: 'pm_card_visa' })
      .catch((e: unknown) => e)
    expect(confirm).toMatchObject({ statusCode: 400, code: 'setup_intent_unexpected_state' })
    expect(h.emulator.stripe.events('setup_intent.canceled')).toHaveLength(1)
  })
})

describe("a customer's saved cards", () => {
  it('lists and detaches them; a detached default card stops being the default', async () => {
    const customer = await h.stripe.customers.create({})
    const first = await h.stripe.paymentMethods.attach('pm_card_visa', { customer: customer.id })
    const second = await h.stripe.paymentMethods.attach('pm_card_mastercard', { customer: customer.id })
    await h.stripe.customers.update(customer.id, { invoice_settings: { default_payment_method: first.id } })
    const listed = await h.stripe.customers.listPaymentMethods(customer.id, { type: 'card' })
    expect(listed.data.map((pm) => pm.id)).toEqual([second.id, first.id])
    const byParam = await h.stripe.paymentMethods.list({ customer: customer.id, type: 'card' })
    expect(byParam.data.map((pm) => pm.id)).toEqual([second.id, first.id])

    const detached = await h.stripe.paymentMethods.detach(first.id)
    expect(detached.customer).toBeNull()
    const after = (await h.stripe.customers.retrieve(customer.id)) as Stripe.Customer
    expect(after.invoice_settings.default_payment_method).toBeNull()
    expect((await h.stripe.customers.listPaymentMethods(customer.id)).data.map((pm) => pm.id)).toEqual([
      second.id,
    ])
    expect(h.emulator.stripe.events('payment_method.detached')).toHaveLength(1)
    const twice = await h.stripe.paymentMethods.detach(first.id).catch((e: unknown) => e)
    expect(twice).toMatchObject({ statusCode: 400, code: 'payment_method_unexpected_state' })
  })
})

describe('card fingerprints', () => {
  it('are the same for the same card number whoever saves it, and on charges', async () => {
    const a = await h.stripe.customers.create({ email: 'a@example.com' })
    const b = await h.stripe.customers.create({ email: 'b@example.com' })
    const first = await h.stripe.setupIntents.confirm(
      (await h.stripe.setupIntents.create({ customer: a.id })).id,
      { payment_method: 'pm_card_visa', expand: ['payment_method'] },
    )
    const second = await h.stripe.paymentMethods.create({
      type: 'card',
      card: { number: '4242 4242 4242 4242', exp_month: 1, exp_year: 2040, cvc: '999' },
    } as Stripe.PaymentMethodCreateParams)
    await h.stripe.paymentMethods.attach(second.id, { customer: b.id })
    const other = await h.stripe.paymentMethods.attach('pm_card_mastercard', { customer: b.id })
    const fingerprint = (first.payment_method as Stripe.PaymentMethod).card?.fingerprint
    expect(fingerprint).toMatch(/^[A-Za-z0-9]{16}$/)
    expect(second.card?.fingerprint).toBe(fingerprint)
    expect(other.card?.fingerprint).not.toBe(fingerprint)

    const pi = await h.stripe.paymentIntents.create({
      amount: 1000,
      currency: 'usd',
      customer: b.id,
      payment_method: second.id,
      confirm: true,
      allowed_payment_method_types: ['card'],
      expand: ['latest_charge'],
    })
    expect((pi.latest_charge as Stripe.Charge).payment_method_details?.card?.fingerprint).toBe(fingerprint)
  })
})
