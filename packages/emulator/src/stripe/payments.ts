import { createHash } from 'node:crypto'
import type Stripe from 'stripe'
import type { ApiRequest, Auth, StripeApi } from './api'
import { type CardBehaviour, type Decline, luhnValid, TEST_TOKENS, type TestCard, testCard } from './cards'
import type { Catalog } from './catalog'
import { addressFrom } from './catalog'
import { changedFields, type Env, inCustomerTime } from './env'
import { invalidRequest, missingParam, noSuch, StripeApiError, unexpectedState } from './errors'
import type { Params } from './form'
import { clientSecretFor, newId, randomString } from './ids'
import { createdFilter } from './render'

/**
 * PaymentMethods, PaymentIntents, charges and refunds. A confirmation runs the test card's
 * behaviour: succeed (charge), decline (402 card_error, PaymentIntent back to requires_payment_method)
 * or stop at requires_action until 3-D Secure is completed or failed.
 */

export const AUTHENTICATION_FAILED_MESSAGE =
  'We are unable to authenticate your payment method. Please choose a different payment method and try again.'

const AUTHENTICATION_REQUIRED: Decline = {
  code: 'authentication_required',
  declineCode: 'authentication_required',
  message: 'Your card was declined. This transaction requires authentication.',
}

/** What the billing module hears about PaymentIntents it created for invoices. */
export interface InvoicePaymentHooks {
  succeeded(paymentIntent: Stripe.PaymentIntent, paymentMethod: Stripe.PaymentMethod): void
  failed(paymentIntent: Stripe.PaymentIntent): void
  requiresAction(paymentIntent: Stripe.PaymentIntent): void
  canceled(paymentIntent: Stripe.PaymentIntent): void
}

export type AttemptOutcome =
  | { status: 'succeeded' }
  | { status: 'requires_action' }
  | { status: 'failed'; decline: Decline; chargeId: string }

/** The PaymentIntent fields a publishable key may read (what Stripe.js gets back). */
const PUBLISHABLE_FIELDS = [
  'id',
  'object',
  'amount',
  'automatic_payment_methods',
  'canceled_at',
  'cancellation_reason',
  'capture_method',
  'client_secret',
  'confirmation_method',
  'created',
  'currency',
  'description',
  'excluded_payment_method_types',
  'last_payment_error',
  'livemode',
  'next_action',
  'payment_method',
  'payment_method_configuration_details',
  'payment_method_types',
  'processing',
  'receipt_email',
  'setup_future_usage',
  'shipping',
  'status',
]

export class Payments {
  hooks: InvoicePaymentHooks | undefined

  constructor(
    private readonly env: Env,
    private readonly catalog: Catalog,
  ) {
    catalog.checkPaymentMethod = (customerId, paymentMethodId, param) =>
      this.attachedPaymentMethod(customerId, paymentMethodId, param).id
    catalog.attachOnCreate = (customerId, paymentMethodId) => {
      this.attach(this.resolvePaymentMethod(paymentMethodId, 'payment_method'), customerId)
    }
  }

  // ---- PaymentMethods ----

  paymentMethod(id: string, param = 'id'): Stripe.PaymentMethod {
    const pm = this.env.store.paymentMethods.get(id)
    if (!pm) throw noSuch('PaymentMethod', id, param)
    return pm
  }

  /** A PaymentMethod id, or a test token (`pm_card_visa`), which makes a new PaymentMethod each time as on Stripe. */
  resolvePaymentMethod(idOrToken: string, param: string): Stripe.PaymentMethod {
    const number = TEST_TOKENS[idOrToken]
    if (number) {
      const year = new Date(this.env.clock.now() * 1000).getUTCFullYear() + 3
      return this.createCardPaymentMethod(
        { number, expMonth: 12, expYear: year, cvc: '123' },
        billingDetails(),
      )
    }
    return this.paymentMethod(idOrToken, param)
  }

  attachedPaymentMethod(customerId: string, paymentMethodId: string, param: string): Stripe.PaymentMethod {
    const pm = this.paymentMethod(paymentMethodId, param)
    if (pm.customer !== customerId) {
      throw invalidRequest(
        `The customer does not have a payment method with the ID ${paymentMethodId}. The payment method must be attached to the customer.`,
        { param },
      )
    }
    return pm
  }

  card(paymentMethodId: string): TestCard {
    return this.env.store.cards.get(paymentMethodId) ?? testCard('4242424242424242')
  }

  createCardPaymentMethod(
    input: { number: string; expMonth: number; expYear: number; cvc?: string; postalCode?: string },
    billing: Stripe.PaymentMethod.BillingDetails,
    metadata: Record<string, string> = {},
  ): Stripe.PaymentMethod {
    const number = input.number.replace(/[\s-]/g, '')
    if (!/^\d{12,19}$/.test(number) || !luhnValid(number)) {
      throw cardError({
        code: 'incorrect_number',
        message: 'Your card number is incorrect.',
        param: 'number',
      })
    }
    if (!Number.isInteger(input.expMonth) || input.expMonth < 1 || input.expMonth > 12) {
      throw cardError({
        code: 'invalid_expiry_month',
        message: "Your card's expiration month is invalid.",
        param: 'exp_month',
      })
    }
    const expYear = input.expYear < 100 ? 2000 + input.expYear : input.expYear
    const now = new Date(this.env.clock.now() * 1000)
    const thisYear = now.getUTCFullYear()
    if (expYear < thisYear || expYear > thisYear + 50) {
      throw cardError({
        code: 'invalid_expiry_year',
        message: "Your card's expiration year is invalid.",
        param: 'exp_year',
      })
    }
    if (expYear === thisYear && input.expMonth < now.getUTCMonth() + 1) {
      throw cardError({
        code: 'invalid_expiry_month',
        message: "Your card's expiration month is invalid.",
        param: 'exp_month',
      })
    }
    if (input.cvc !== undefined && input.cvc !== '' && !/^\d{3,4}$/.test(input.cvc)) {
      throw cardError({ code: 'invalid_cvc', message: "Your card's security code is invalid.", param: 'cvc' })
    }
    const card = testCard(number)
    const postalCode = input.postalCode ?? billing.address?.postal_code ?? null
    const pm: Stripe.PaymentMethod = {
      id: newId('pm'),
      object: 'payment_method',
      allow_redisplay: 'unspecified',
      billing_details: {
        ...billing,
        address: { ...(billing.address ?? emptyAddress()), postal_code: postalCode },
      },
      card: {
        brand: card.brand,
        checks: {
          address_line1_check: null,
          address_postal_code_check: postalCode ? 'pass' : null,
          cvc_check: input.cvc ? 'pass' : null,
        },
        country: card.country,
        display_brand: card.brand,
        exp_month: input.expMonth,
        exp_year: expYear,
        fingerprint: fingerprintOf(number),
        funding: card.funding,
        generated_from: null,
        last4: number.slice(-4),
        networks: { available: [card.brand], preferred: null },
        regulated_status: 'unregulated',
        three_d_secure_usage: { supported: true },
        wallet: null,
      },
      created: this.env.clock.now(),
      customer: null,
      customer_account: null,
      livemode: false,
      metadata,
      type: 'card',
    }
    this.env.store.paymentMethods.set(pm.id, pm)
    this.env.store.cards.set(pm.id, card)
    return pm
  }

  /** `payment_method_data` / `POST /v1/payment_methods` with a card hash. */
  paymentMethodFromParams(params: Params, cardKey = 'card'): Stripe.PaymentMethod {
    const type = params.str('type') ?? 'card'
    if (type !== 'card') {
      throw invalidRequest(`The emulator only supports card PaymentMethods, not ${type}.`, {
        param: params.name('type'),
      })
    }
    const card = params.obj(cardKey)
    if (!card)
      throw invalidRequest(`Missing required param: ${params.name(cardKey)}.`, { code: 'parameter_missing' })
    const token = card.str('token')
    if (token)
      throw invalidRequest('The emulator does not support card tokens; send card details.', {
        param: card.name('token'),
      })
    const number = card.requireStr('number')
    const expMonth = card.requireInt('exp_month')
    const expYear = card.requireInt('exp_year')
    const cvc = card.str('cvc')
    card.rejectUnknown()
    const billing = billingDetails(params.obj('billing_details'))
    const metadata = params.metadata() ?? {}
    params.rejectUnknown(['allow_redisplay'])
    return this.createCardPaymentMethod(
      { number, expMonth, expYear, ...(cvc ? { cvc } : {}) },
      billing,
      metadata,
    )
  }

  attach(pm: Stripe.PaymentMethod, customerId: string): Stripe.PaymentMethod {
    this.catalog.customer(customerId, 'customer')
    if (pm.customer === customerId) return pm
    if (pm.customer) {
      throw invalidRequest('The payment method you provided has already been attached to a customer.', {
        code: 'payment_method_unexpected_state',
      })
    }
    const card = this.card(pm.id)
    // Stripe checks the card with the issuer on attach: outright declines fail here, 0341 does not.
    if (card.behaviour === 'decline' && card.decline) {
      throw cardError({
        code: card.decline.code,
        decline_code: card.decline.declineCode,
        message: card.decline.message,
      })
    }
    pm.customer = customerId
    this.env.events.emit('payment_method.attached', pm, { customer: null })
    return pm
  }

  /** Takes a saved card off its customer; it stops being the customer's default for invoices. */
  detach(pm: Stripe.PaymentMethod): Stripe.PaymentMethod {
    if (!pm.customer) {
      throw invalidRequest(
        'The payment method you provided is not attached to a customer so detachment is impossible.',
        {
          code: 'payment_method_unexpected_state',
        },
      )
    }
    const customer = this.env.store.customers.get(pm.customer as string)
    const previous = pm.customer
    pm.customer = null
    if (customer && customer.invoice_settings.default_payment_method === pm.id) {
      const before = structuredClone(customer)
      customer.invoice_settings.default_payment_method = null
      this.env.events.emit(
        'customer.updated',
        customer,
        changedFields(before, customer, ['invoice_settings']),
      )
    }
    this.env.events.emit('payment_method.detached', pm, { customer: previous })
    return pm
  }

  // ---- PaymentIntents ----

  paymentIntent(id: string, param = 'id'): Stripe.PaymentIntent {
    const pi = this.env.store.paymentIntents.get(id)
    if (!pi) throw noSuch('payment_intent', id, param)
    return pi
  }

  /** The PaymentIntent as the caller may see it: everything for the secret key, Stripe.js's subset otherwise. */
  renderPaymentIntent(request: ApiRequest, pi: Stripe.PaymentIntent): Record<string, unknown> {
    if (request.auth === 'secret') return request.render(pi)
    return publishableView(this.env.renderer.render(pi))
  }

  createPaymentIntent(params: Params, request: ApiRequest | undefined): Stripe.PaymentIntent {
    const amount = params.requireInt('amount')
    const currency = params.requireStr('currency').toLowerCase()
    if (amount < 50 && currency === 'usd') {
      throw invalidRequest('Amount must be at least $0.50 usd', { param: 'amount', code: 'amount_too_small' })
    }
    const customer = params.str('customer')
    if (customer) this.catalog.customer(customer, 'customer')
    // The pinned API version calls it allowed_payment_method_types; older ones payment_method_types.
    const allowed = params.strList('allowed_payment_method_types')
    const types = allowed ?? params.strList('payment_method_types')
    const automatic = params.obj('automatic_payment_methods')
    const automaticEnabled = automatic?.bool('enabled')
    const allowRedirects = automatic?.oneOf('allow_redirects', ['always', 'never'] as const)
    automatic?.rejectUnknown()
    if (types && automaticEnabled) {
      throw invalidRequest(
        'You may only specify one of these parameters: automatic_payment_methods, allowed_payment_method_types.',
        { param: 'automatic_payment_methods', code: 'parameters_exclusive' },
      )
    }
    for (const type of types ?? []) {
      if (type !== 'card') {
        throw invalidRequest(`The emulator only supports the card payment method type, not ${type}.`, {
          param: allowed ? 'allowed_payment_method_types' : 'payment_method_types',
        })
      }
    }
    const captureMethod =
      params.oneOf('capture_method', ['automatic', 'automatic_async'] as const) ?? 'automatic_async'
    const pi = this.newPaymentIntent({
      amount,
      currency,
      customer: customer ?? null,
      description: params.nullableStr('description') ?? null,
      metadata: params.metadata() ?? {},
      // Since 2023-08-16 a PaymentIntent without a list of types uses automatic payment methods.
      automatic: types ? null : { enabled: true, allow_redirects: allowRedirects ?? 'always' },
      allowedTypes: types ? ['card'] : null,
      setupFutureUsage: params.oneOf('setup_future_usage', ['off_session', 'on_session'] as const) ?? null,
      receiptEmail: params.nullableStr('receipt_email') ?? null,
      statementDescriptor: params.nullableStr('statement_descriptor') ?? null,
      statementDescriptorSuffix: params.nullableStr('statement_descriptor_suffix') ?? null,
      captureMethod,
    })
    const paymentMethod = params.str('payment_method')
    const confirm = params.bool('confirm') ?? false
    const offSession = params.bool('off_session')
    const returnUrl = params.str('return_url')
    params.rejectUnknown(['error_on_requires_action', 'use_stripe_sdk', 'excluded_payment_method_types'])
    if (paymentMethod) {
      pi.payment_method = this.resolvePaymentMethod(paymentMethod, 'payment_method').id
      pi.status = 'requires_confirmation'
    }
    this.env.events.emit('payment_intent.created', pi)
    if (confirm) {
      this.confirmResolved(pi, {
        offSession: offSession ?? false,
        ...(returnUrl ? { returnUrl } : {}),
        origin: request?.origin ?? '',
        auth: request?.auth ?? 'secret',
        useStripeSdk: params.bool('use_stripe_sdk') ?? false,
      })
    } else if (offSession !== undefined || returnUrl) {
      throw invalidRequest('off_session and return_url can only be used with confirm=true.', {
        param: 'confirm',
      })
    }
    return pi
  }

  newPaymentIntent(input: {
    amount: number
    currency: string
    customer: string | null
    description: string | null
    metadata: Record<string, string>
    automatic: Stripe.PaymentIntent.AutomaticPaymentMethods | null
    setupFutureUsage: Stripe.PaymentIntent.SetupFutureUsage | null
    receiptEmail?: string | null
    statementDescriptor?: string | null
    statementDescriptorSuffix?: string | null
    captureMethod?: Stripe.PaymentIntent.CaptureMethod
    allowedTypes?: Stripe.PaymentIntent.AllowedPaymentMethodType[] | null
  }): Stripe.PaymentIntent {
    const id = newId('pi')
    const pi: Stripe.PaymentIntent = {
      id,
      object: 'payment_intent',
      allowed_payment_method_types: input.allowedTypes ?? null,
      amount: input.amount,
      amount_capturable: 0,
      amount_details: { tip: {} },
      amount_received: 0,
      application: null,
      application_fee_amount: null,
      automatic_payment_methods: input.automatic,
      canceled_at: null,
      cancellation_reason: null,
      capture_method: input.captureMethod ?? 'automatic_async',
      client_secret: clientSecretFor(id),
      confirmation_method: 'automatic',
      created: this.env.clock.now(),
      currency: input.currency,
      customer: input.customer,
      customer_account: null,
      description: input.description,
      excluded_payment_method_types: null,
      last_payment_error: null,
      latest_charge: null,
      livemode: false,
      managed_payments: null,
      metadata: input.metadata,
      next_action: null,
      on_behalf_of: null,
      payment_method: null,
      payment_method_configuration_details: null,
      payment_method_options: {
        card: {
          installments: null,
          mandate_options: null,
          network: null,
          request_three_d_secure: 'automatic',
        },
      },
      payment_method_types: ['card'],
      payment_record: null,
      processing: null,
      receipt_email: input.receiptEmail ?? null,
      review: null,
      setup_future_usage: input.setupFutureUsage,
      shipping: null,
      source: null,
      statement_descriptor: input.statementDescriptor ?? null,
      statement_descriptor_suffix: input.statementDescriptorSuffix ?? null,
      status: 'requires_payment_method',
      transfer_data: null,
      transfer_group: null,
    }
    this.env.store.paymentIntents.set(id, pi)
    return pi
  }

  checkClientSecret(pi: Stripe.PaymentIntent, params: Params, auth: Auth): void {
    const secret = params.str('client_secret')
    if (auth === 'publishable' && secret === undefined)
      throw invalidRequest('Missing required param: client_secret.', {
        param: 'client_secret',
        code: 'parameter_missing',
      })
    if (secret !== undefined && secret !== pi.client_secret) {
      throw invalidRequest(
        'The client_secret provided does not match the client_secret associated with the PaymentIntent.',
        {
          param: 'client_secret',
          code: 'payment_intent_invalid_parameter',
        },
      )
    }
  }

  /** `POST /v1/payment_intents/:id/confirm`, from the SDK or from Stripe.js (publishable key + client secret). */
  confirmPaymentIntent(pi: Stripe.PaymentIntent, params: Params, request: ApiRequest): Stripe.PaymentIntent {
    this.checkClientSecret(pi, params, request.auth)
    if (pi.status === 'succeeded') {
      throw unexpectedState(
        'You cannot confirm this PaymentIntent because it has already succeeded after being previously confirmed.',
      )
    }
    if (pi.status === 'canceled' || pi.status === 'processing') {
      throw unexpectedState(`You cannot confirm this PaymentIntent because it has a status of ${pi.status}.`)
    }
    const pmData = params.obj('payment_method_data')
    const pmId = params.str('payment_method')
    const offSession = params.bool('off_session') ?? false
    const returnUrl = params.str('return_url')
    const useStripeSdk = params.bool('use_stripe_sdk') ?? false
    const sfu = params.nullableStr('setup_future_usage')
    const receiptEmail = params.nullableStr('receipt_email')
    params.rejectUnknown([
      'expected_payment_method_type',
      'error_on_requires_action',
      'mandate_data',
      'payment_method_options',
    ])
    if (pmData && pmId) {
      throw invalidRequest('You cannot specify both payment_method and payment_method_data.', {
        param: 'payment_method_data',
      })
    }
    if (pmData) pi.payment_method = this.paymentMethodFromParams(pmData).id
    else if (pmId) pi.payment_method = this.resolvePaymentMethod(pmId, 'payment_method').id
    if (!pi.payment_method) {
      throw unexpectedState(
        "You cannot confirm this PaymentIntent because it's missing a payment method. To confirm the PaymentIntent with a customer, pass a payment_method or payment_method_data.",
      )
    }
    if (sfu !== undefined) {
      if (sfu !== null && sfu !== 'off_session' && sfu !== 'on_session') {
        throw invalidRequest('Invalid setup_future_usage', { param: 'setup_future_usage' })
      }
      pi.setup_future_usage = sfu
    }
    if (receiptEmail !== undefined) pi.receipt_email = receiptEmail
    const outcome = this.confirmResolved(pi, {
      offSession,
      ...(returnUrl ? { returnUrl } : {}),
      origin: request.origin,
      auth: request.auth,
      useStripeSdk,
    })
    if (outcome.status === 'failed') throw this.declineError(pi, outcome, request.auth)
    return pi
  }

  declineError(
    pi: Stripe.PaymentIntent,
    outcome: { decline: Decline; chargeId: string },
    auth: Auth,
  ): StripeApiError {
    const rendered = this.env.renderer.render(pi)
    const error = pi.last_payment_error
    return cardError({
      code: outcome.decline.code,
      decline_code: outcome.decline.declineCode,
      message: outcome.decline.message,
      charge: outcome.chargeId,
      payment_intent: auth === 'secret' ? rendered : publishableView(rendered),
      ...(error?.payment_method ? { payment_method: error.payment_method } : {}),
    })
  }

  /** Runs a confirmation once the PaymentIntent has its PaymentMethod. */
  confirmResolved(
    pi: Stripe.PaymentIntent,
    options: { offSession: boolean; returnUrl?: string; origin: string; auth: Auth; useStripeSdk: boolean },
  ): AttemptOutcome {
    const state = this.env.store.paymentIntentState.get(pi.id) ?? {}
    state.offSession = options.offSession
    if (options.origin) state.origin = options.origin
    this.env.store.paymentIntentState.set(pi.id, state)
    const pm = this.paymentMethod(pi.payment_method as string, 'payment_method')
    if (pi.customer && pm.customer && pm.customer !== pi.customer) {
      throw invalidRequest(
        'The provided PaymentMethod belongs to a different customer than this PaymentIntent.',
        { param: 'payment_method' },
      )
    }
    const behaviour = this.card(pm.id).behaviour
    if (needsAuthentication(behaviour, options.offSession)) {
      if (options.offSession) return this.fail(pi, pm, AUTHENTICATION_REQUIRED)
      return this.requireAction(pi, options)
    }
    return this.charge(pi, pm)
  }

  private requireAction(
    pi: Stripe.PaymentIntent,
    options: { returnUrl?: string; origin: string; useStripeSdk: boolean },
  ): AttemptOutcome {
    const page = `${options.origin}/stripe-js/3ds/${pi.id}?client_secret=${encodeURIComponent(pi.client_secret ?? '')}`
    const before = structuredClone(pi)
    pi.status = 'requires_action'
    pi.last_payment_error = null
    pi.next_action =
      options.returnUrl && !options.useStripeSdk
        ? {
            type: 'redirect_to_url',
            redirect_to_url: {
              url: `${page}&return_url=${encodeURIComponent(options.returnUrl)}`,
              return_url: options.returnUrl,
            },
          }
        : {
            type: 'use_stripe_sdk',
            use_stripe_sdk: {
              type: 'three_d_secure_redirect',
              stripe_js: page,
              source: `src_${randomString(24)}`,
            } as unknown as Stripe.PaymentIntent.NextAction.UseStripeSdk,
          }
    this.env.events.emit(
      'payment_intent.requires_action',
      pi,
      changedFields(before, pi, ['status', 'next_action']),
    )
    if (this.isInvoicePayment(pi)) this.hooks?.requiresAction(pi)
    return { status: 'requires_action' }
  }

  /** Completes or fails 3-D Secure for a PaymentIntent in requires_action. */
  authenticate(pi: Stripe.PaymentIntent, success: boolean): AttemptOutcome {
    return inCustomerTime(this.env, pi.customer, () => this.answerChallenge(pi, success))
  }

  private answerChallenge(pi: Stripe.PaymentIntent, success: boolean): AttemptOutcome {
    if (pi.status !== 'requires_action') {
      throw unexpectedState(`This PaymentIntent is not awaiting authentication (status ${pi.status}).`)
    }
    const pm = this.paymentMethod(pi.payment_method as string)
    if (success) return this.charge(pi, pm, true)
    const before = structuredClone(pi)
    pi.status = 'requires_payment_method'
    pi.next_action = null
    pi.payment_method = null
    pi.last_payment_error = {
      type: 'invalid_request_error',
      code: 'payment_intent_authentication_failure',
      doc_url: 'https://stripe.com/docs/error-codes/payment-intent-authentication-failure',
      message: AUTHENTICATION_FAILED_MESSAGE,
      payment_method: structuredClone(pm),
    }
    this.env.events.emit(
      'payment_intent.payment_failed',
      pi,
      changedFields(before, pi, ['status', 'next_action', 'payment_method', 'last_payment_error']),
    )
    if (this.isInvoicePayment(pi)) this.hooks?.failed(pi)
    return {
      status: 'failed',
      decline: {
        code: 'payment_intent_authentication_failure',
        declineCode: '',
        message: AUTHENTICATION_FAILED_MESSAGE,
      },
      chargeId: '',
    }
  }

  /** An off-session charge of a PaymentIntent (renewals): the card's behaviour decides. */
  chargeOffSession(pi: Stripe.PaymentIntent, pm: Stripe.PaymentMethod, forceDecline = false): AttemptOutcome {
    pi.payment_method = pm.id
    this.env.store.paymentIntentState.set(pi.id, {
      ...this.env.store.paymentIntentState.get(pi.id),
      offSession: true,
    })
    if (forceDecline) return this.fail(pi, pm, cardDecline(this.card(pm.id)))
    const behaviour = this.card(pm.id).behaviour
    if (needsAuthentication(behaviour, true)) return this.fail(pi, pm, AUTHENTICATION_REQUIRED)
    return this.charge(pi, pm)
  }

  private charge(pi: Stripe.PaymentIntent, pm: Stripe.PaymentMethod, authenticated = false): AttemptOutcome {
    const card = this.card(pm.id)
    if (card.behaviour === 'decline' || card.behaviour === 'attach_then_decline') {
      return this.fail(pi, pm, cardDecline(card))
    }
    const charge = this.newCharge(pi, pm, card, { authenticated })
    const before = structuredClone(pi)
    pi.status = 'succeeded'
    pi.amount_received = pi.amount
    pi.latest_charge = charge.id
    pi.next_action = null
    pi.last_payment_error = null
    this.env.events.emit('charge.succeeded', charge)
    this.env.events.emit(
      'payment_intent.succeeded',
      pi,
      changedFields(before, pi, [
        'status',
        'amount_received',
        'latest_charge',
        'next_action',
        'last_payment_error',
      ]),
    )
    if (pi.setup_future_usage && pi.customer && !pm.customer) this.attach(pm, pi.customer as string)
    if (this.isInvoicePayment(pi)) this.hooks?.succeeded(pi, pm)
    return { status: 'succeeded' }
  }

  private fail(pi: Stripe.PaymentIntent, pm: Stripe.PaymentMethod, decline: Decline): AttemptOutcome {
    const card = this.card(pm.id)
    const charge = this.newCharge(pi, pm, card, { decline })
    const before = structuredClone(pi)
    pi.status = 'requires_payment_method'
    pi.latest_charge = charge.id
    pi.next_action = null
    pi.payment_method = null
    pi.last_payment_error = {
      type: 'card_error',
      charge: charge.id,
      code: decline.code as Stripe.PaymentIntent.LastPaymentError.Code,
      decline_code: decline.declineCode,
      doc_url: `https://stripe.com/docs/error-codes/${decline.code.replaceAll('_', '-')}`,
      message: decline.message,
      payment_method: structuredClone(pm),
    }
    this.env.events.emit('charge.failed', charge)
    this.env.events.emit(
      'payment_intent.payment_failed',
      pi,
      changedFields(before, pi, [
        'status',
        'latest_charge',
        'payment_method',
        'last_payment_error',
        'next_action',
      ]),
    )
    if (this.isInvoicePayment(pi)) this.hooks?.failed(pi)
    return { status: 'failed', decline, chargeId: charge.id }
  }

  private isInvoicePayment(pi: Stripe.PaymentIntent): boolean {
    return Boolean(this.env.store.paymentIntentState.get(pi.id)?.invoiceId)
  }

  cancelPaymentIntent(
    pi: Stripe.PaymentIntent,
    reason?: Stripe.PaymentIntent.CancellationReason,
  ): Stripe.PaymentIntent {
    const cancellable = [
      'requires_payment_method',
      'requires_capture',
      'requires_confirmation',
      'requires_action',
      'processing',
    ]
    if (!cancellable.includes(pi.status)) {
      throw unexpectedState(
        `You cannot cancel this PaymentIntent because it has a status of ${pi.status}. Only a PaymentIntent with one of the following statuses may be canceled: ${cancellable.join(', ')}.`,
      )
    }
    const before = structuredClone(pi)
    pi.status = 'canceled'
    pi.canceled_at = this.env.clock.now()
    pi.cancellation_reason = reason ?? null
    pi.next_action = null
    this.env.events.emit(
      'payment_intent.canceled',
      pi,
      changedFields(before, pi, ['status', 'canceled_at', 'cancellation_reason', 'next_action']),
    )
    if (this.isInvoicePayment(pi)) this.hooks?.canceled(pi)
    return pi
  }

  // ---- Charges and refunds ----

  chargeById(id: string, param = 'id'): Stripe.Charge {
    const charge = this.env.store.charges.get(id)
    if (!charge) throw noSuch('charge', id, param)
    return charge
  }

  private newCharge(
    pi: Stripe.PaymentIntent,
    pm: Stripe.PaymentMethod,
    card: TestCard,
    result: { authenticated?: boolean; decline?: Decline },
  ): Stripe.Charge {
    const succeeded = !result.decline
    const pmCard = pm.card
    const charge: Stripe.Charge = {
      id: newId('ch'),
      object: 'charge',
      amount: pi.amount,
      amount_captured: succeeded ? pi.amount : 0,
      amount_refunded: 0,
      application: null,
      application_fee: null,
      application_fee_amount: null,
      balance_transaction: null,
      billing_details: structuredClone(pm.billing_details) as Stripe.Charge.BillingDetails,
      calculated_statement_descriptor: 'EDGECLUB',
      captured: succeeded,
      created: this.env.clock.now(),
      currency: pi.currency,
      customer: pi.customer,
      description: pi.description,
      disputed: false,
      failure_balance_transaction: null,
      failure_code: result.decline?.code ?? null,
      failure_message: result.decline?.message ?? null,
      fraud_details: {},
      livemode: false,
      metadata: { ...pi.metadata },
      on_behalf_of: null,
      outcome: succeeded
        ? {
            advice_code: null,
            network_advice_code: null,
            network_decline_code: null,
            network_status: 'approved_by_network',
            reason: null,
            risk_level: 'normal',
            risk_score: 20,
            seller_message: 'Payment complete.',
            type: 'authorized',
          }
        : {
            advice_code: 'try_again_later',
            network_advice_code: null,
            network_decline_code: null,
            network_status: 'declined_by_network',
            reason: result.decline?.declineCode ?? 'generic_decline',
            risk_level: 'normal',
            risk_score: 20,
            seller_message: 'The bank did not return any further details with this decline.',
            type: 'issuer_declined',
          },
      paid: succeeded,
      payment_intent: pi.id,
      payment_method: pm.id,
      payment_method_details: {
        type: 'card',
        card: {
          amount_authorized: succeeded ? pi.amount : null,
          authorization_code: succeeded ? randomString(6).toUpperCase() : null,
          brand: card.brand,
          checks: pmCard?.checks ?? null,
          country: card.country,
          electronic_commerce_indicator: result.authenticated ? '05' : null,
          exp_month: pmCard?.exp_month ?? 12,
          exp_year: pmCard?.exp_year ?? 2030,
          fingerprint: pmCard?.fingerprint ?? null,
          funding: card.funding,
          installments: null,
          last4: card.number.slice(-4),
          mandate: null,
          network: card.brand,
          network_transaction_id: randomString(15),
          regulated_status: 'unregulated',
          three_d_secure: result.authenticated
            ? ({
                authentication_flow: 'challenge',
                result: 'authenticated',
                result_reason: null,
                version: '2.2.0',
              } as Stripe.Charge.PaymentMethodDetails.Card.ThreeDSecure)
            : null,
          transaction_link_id: null,
          wallet: null,
        },
      },
      receipt_email: pi.receipt_email,
      receipt_number: null,
      receipt_url: null,
      refunded: false,
      review: null,
      shipping: null,
      source: null,
      source_transfer: null,
      statement_descriptor: pi.statement_descriptor,
      statement_descriptor_suffix: pi.statement_descriptor_suffix,
      status: succeeded ? 'succeeded' : 'failed',
      transfer_data: null,
      transfer_group: null,
    }
    this.env.store.charges.set(charge.id, charge)
    return charge
  }

  createRefund(params: Params): Stripe.Refund {
    const piId = params.str('payment_intent')
    const chargeId = params.str('charge')
    if (!piId && !chargeId)
      throw invalidRequest(
        'One of the following params should be provided for this request: payment_intent or charge.',
        { code: 'parameter_missing' },
      )
    let charge: Stripe.Charge
    if (chargeId) charge = this.chargeById(chargeId, 'charge')
    else {
      const pi = this.paymentIntent(piId as string, 'payment_intent')
      if (pi.status !== 'succeeded' || !pi.latest_charge) {
        throw invalidRequest(`This PaymentIntent (${pi.id}) does not have a successful charge to refund.`, {
          param: 'payment_intent',
          code: 'charge_not_refundable',
        })
      }
      charge = this.chargeById(pi.latest_charge as string, 'payment_intent')
    }
    if (piId && charge.payment_intent !== piId) {
      throw invalidRequest('The charge does not belong to that PaymentIntent.', { param: 'charge' })
    }
    if (charge.status !== 'succeeded') {
      throw invalidRequest(`Charge ${charge.id} has no successful payment to refund.`, {
        code: 'charge_not_refundable',
      })
    }
    const remaining = charge.amount_captured - charge.amount_refunded
    if (remaining <= 0) {
      throw invalidRequest(`Charge ${charge.id} has already been refunded.`, {
        code: 'charge_already_refunded',
      })
    }
    const amount = params.int('amount') ?? remaining
    if (amount <= 0) throw invalidRequest('Invalid positive integer', { param: 'amount' })
    if (amount > remaining) {
      const money = (value: number) => `${(value / 100).toFixed(2)} ${charge.currency}`
      throw invalidRequest(
        `Refund amount (${money(amount)}) is greater than unrefunded amount on charge (${money(remaining)})`,
        { param: 'amount', code: 'amount_too_large' },
      )
    }
    const reason =
      params.oneOf('reason', ['duplicate', 'fraudulent', 'requested_by_customer'] as const) ?? null
    const metadata = params.metadata() ?? {}
    params.rejectUnknown()
    const refund: Stripe.Refund = {
      id: newId('re'),
      object: 'refund',
      amount,
      balance_transaction: null,
      charge: charge.id,
      created: this.env.clock.now(),
      currency: charge.currency,
      customer: charge.customer,
      customer_account: null,
      destination_details: {
        card: {
          reference: randomString(12),
          reference_status: 'pending',
          reference_type: 'acquirer_reference_number',
          type: 'refund',
        },
        type: 'card',
      },
      metadata,
      payment_intent: charge.payment_intent,
      payment_method: charge.payment_method,
      reason,
      receipt_number: null,
      source_transfer_reversal: null,
      status: 'succeeded',
      transfer_reversal: null,
    }
    this.env.store.refunds.set(refund.id, refund)
    const before = structuredClone(charge)
    charge.amount_refunded += amount
    charge.refunded = charge.amount_refunded >= charge.amount_captured
    this.env.events.emit('refund.created', refund)
    this.env.events.emit(
      'charge.refunded',
      charge,
      changedFields(before, charge, ['amount_refunded', 'refunded']),
    )
    return refund
  }

  routes(api: StripeApi): void {
    const render = this.env.renderer
    render.include('charge', 'refunds', (charge) => {
      const refunds = [...this.env.store.refunds.values()].reverse().filter((r) => r.charge === charge.id)
      return {
        object: 'list',
        data: refunds.map((r) => structuredClone(r)),
        has_more: false,
        total_count: refunds.length,
        url: `/v1/charges/${String(charge.id)}/refunds`,
      }
    })

    api.post(
      '/v1/payment_methods',
      (r) => {
        const pm = this.paymentMethodFromParams(r.params)
        return r.auth === 'secret' ? r.render(pm) : this.env.renderer.render(pm)
      },
      { publishable: true },
    )
    api.get('/v1/payment_methods/:id', (r) => r.render(this.paymentMethod(r.path.id ?? '')))
    api.post('/v1/payment_methods/:id/attach', (r) => {
      const customer = r.params.requireStr('customer')
      r.params.rejectUnknown()
      return inCustomerTime(this.env, customer, () =>
        r.render(this.attach(this.resolvePaymentMethod(r.path.id ?? '', 'id'), customer)),
      )
    })
    api.post('/v1/payment_methods/:id/detach', (r) => {
      r.params.rejectUnknown()
      const pm = this.paymentMethod(r.path.id ?? '')
      return inCustomerTime(this.env, pm.customer, () => r.render(this.detach(pm)))
    })
    const listCards = (customer: string | undefined, params: ApiRequest['params']) => {
      const type = params.str('type')
      if (type && type !== 'card') return []
      return [...this.env.store.paymentMethods.values()]
        .reverse()
        .filter((pm) => !customer || pm.customer === customer)
    }
    api.get('/v1/payment_methods', (r) => {
      const customer = r.params.str('customer')
      if (!customer) throw missingParam('customer')
      return render.list(listCards(customer, r.params), r.params, '/v1/payment_methods', r.expand)
    })
    api.get('/v1/customers/:id/payment_methods', (r) => {
      const customer = this.catalog.customer(r.path.id ?? '')
      r.params.bool('allow_redisplay')
      return render.list(
        listCards(customer.id, r.params),
        r.params,
        `/v1/customers/${customer.id}/payment_methods`,
        r.expand,
      )
    })
    api.post('/v1/payment_intents', (r) =>
      inCustomerTime(this.env, r.params.raw.customer, () => r.render(this.createPaymentIntent(r.params, r))),
    )
    // The app's reconciliation sweep lists recent PaymentIntents (newest first, `created` filters).
    api.get('/v1/payment_intents', (r) => {
      const customer = r.params.str('customer')
      const created = createdFilter(r.params)
      const list = [...this.env.store.paymentIntents.values()]
        .reverse()
        .filter((pi) => (!customer || pi.customer === customer) && created(pi.created))
      return render.list(list, r.params, '/v1/payment_intents', r.expand)
    })
    api.get(
      '/v1/payment_intents/:id',
      (r) => {
        const pi = this.paymentIntent(r.path.id ?? '')
        this.checkClientSecret(pi, r.params, r.auth)
        return this.renderPaymentIntent(r, pi)
      },
      { publishable: true },
    )
    api.post(
      '/v1/payment_intents/:id/confirm',
      (r) => {
        const pi = this.paymentIntent(r.path.id ?? '')
        return inCustomerTime(this.env, pi.customer, () =>
          this.renderPaymentIntent(r, this.confirmPaymentIntent(pi, r.params, r)),
        )
      },
      { publishable: true },
    )
    api.post('/v1/payment_intents/:id/cancel', (r) => {
      const pi = this.paymentIntent(r.path.id ?? '')
      const reason = r.params.oneOf('cancellation_reason', [
        'duplicate',
        'fraudulent',
        'requested_by_customer',
        'abandoned',
      ] as const)
      r.params.rejectUnknown()
      if (this.isInvoicePayment(pi)) {
        throw invalidRequest(
          'You cannot cancel this PaymentIntent because it was created by an invoice. Void the invoice instead.',
          { code: 'payment_intent_unexpected_state' },
        )
      }
      return r.render(this.cancelPaymentIntent(pi, reason))
    })

    api.get('/v1/charges/:id', (r) => r.render(this.chargeById(r.path.id ?? '')))

    api.post('/v1/refunds', (r) => r.render(this.createRefund(r.params)))
  }
}

function needsAuthentication(behaviour: CardBehaviour, offSession: boolean): boolean {
  if (behaviour === 'authenticate_always') return true
  return behaviour === 'authenticate_on_session' && !offSession
}

function cardDecline(card: TestCard): Decline {
  return (
    card.decline ?? {
      code: 'card_declined',
      declineCode: 'generic_decline',
      message: 'Your card was declined.',
    }
  )
}

function cardError(fields: { code: string; message: string; [key: string]: unknown }): StripeApiError {
  return new StripeApiError(402, {
    type: 'card_error',
    doc_url: `https://stripe.com/docs/error-codes/${fields.code.replaceAll('_', '-')}`,
    ...fields,
  })
}

function emptyAddress(): Stripe.Address {
  return { city: null, country: null, line1: null, line2: null, postal_code: null, state: null }
}

function billingDetails(
  params?: Params,
  current?: Stripe.PaymentMethod.BillingDetails,
): Stripe.PaymentMethod.BillingDetails {
  const details: Stripe.PaymentMethod.BillingDetails = current
    ? structuredClone(current)
    : { address: emptyAddress(), email: null, name: null, phone: null, tax_id: null }
  if (!params) return details
  const address = params.obj('address')
  if (address) details.address = addressFrom(address)
  const email = params.nullableStr('email')
  if (email !== undefined) details.email = email
  const name = params.nullableStr('name')
  if (name !== undefined) details.name = name
  const phone = params.nullableStr('phone')
  if (phone !== undefined) details.phone = phone
  params.rejectUnknown()
  return details
}

const FINGERPRINT_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

/**
 * Stripe's card fingerprint: the same 16 characters for the same card number, whichever customer
 * saves it and however often (apps use it to spot one card behind several accounts). Derived from
 * the number alone, so it is also stable across emulator restarts.
 */
function fingerprintOf(number: string): string {
  const digest = createHash('sha256').update(`card-fingerprint:${number}`).digest()
  let out = ''
  for (const byte of digest.subarray(0, 16)) out += FINGERPRINT_ALPHABET[byte % FINGERPRINT_ALPHABET.length]
  return out
}

export function publishableView(pi: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(PUBLISHABLE_FIELDS.filter((key) => key in pi).map((key) => [key, pi[key]]))
}
