import type Stripe from 'stripe'
import type { ApiRequest, Auth, StripeApi } from './api'
import type { Decline } from './cards'
import type { Catalog } from './catalog'
import { changedFields, type Env, inCustomerTime } from './env'
import { invalidRequest, missingParam, noSuch, StripeApiError } from './errors'
import type { Params } from './form'
import { clientSecretFor, newId, randomString } from './ids'
import { AUTHENTICATION_FAILED_MESSAGE, type Payments } from './payments'
import { createdFilter } from './render'

/**
 * SetupIntents: saving a card for later off-session charges. Confirming runs the test card's setup
 * behaviour: most cards succeed and are attached to the customer; 3-D Secure cards (4000 0025 0000
 * 3155, 4000 0027 6000 3184, 4000 0000 0000 3220) stop at requires_action until the customer answers
 * the challenge; declining cards fail with Stripe's card_error and `setup_intent.setup_failed`.
 */

/** The SetupIntent fields a publishable key may read (what Stripe.js gets back). */
const PUBLISHABLE_FIELDS = [
  'id',
  'object',
  'automatic_payment_methods',
  'cancellation_reason',
  'client_secret',
  'created',
  'description',
  'last_setup_error',
  'livemode',
  'next_action',
  'payment_method',
  'payment_method_types',
  'status',
  'usage',
]

export interface SetupIntentHooks {
  succeeded(setupIntent: Stripe.SetupIntent, paymentMethod: Stripe.PaymentMethod): void
}

export function publishableSetupView(si: Record<string, unknown>): Record<string, unknown> {
  return Object.fromEntries(PUBLISHABLE_FIELDS.filter((key) => key in si).map((key) => [key, si[key]]))
}

export class SetupIntents {
  hooks: SetupIntentHooks | undefined

  constructor(
    private readonly env: Env,
    private readonly catalog: Catalog,
    private readonly payments: Payments,
  ) {}

  setupIntent(id: string, param = 'id'): Stripe.SetupIntent {
    const si = this.env.store.setupIntents.get(id)
    if (!si) throw noSuch('setupintent', id, param)
    return si
  }

  render(request: ApiRequest, si: Stripe.SetupIntent): Record<string, unknown> {
    if (request.auth === 'secret') return request.render(si)
    return publishableSetupView(this.env.renderer.render(si))
  }

  private newSetupIntent(input: {
    customer: string | null
    description: string | null
    metadata: Record<string, string>
    usage: 'off_session' | 'on_session'
    automatic: boolean
  }): Stripe.SetupIntent {
    const id = newId('seti')
    const si: Stripe.SetupIntent = {
      id,
      object: 'setup_intent',
      allowed_payment_method_types: input.automatic ? null : ['card'],
      application: null,
      automatic_payment_methods: input.automatic ? { allow_redirects: 'always', enabled: true } : null,
      cancellation_reason: null,
      client_secret: clientSecretFor(id),
      created: this.env.clock.now(),
      customer: input.customer,
      customer_account: null,
      description: input.description,
      excluded_payment_method_types: null,
      flow_directions: null,
      last_setup_error: null,
      latest_attempt: null,
      livemode: false,
      mandate: null,
      metadata: input.metadata,
      next_action: null,
      on_behalf_of: null,
      payment_method: null,
      payment_method_configuration_details: null,
      payment_method_options: {
        card: { mandate_options: null, network: null, request_three_d_secure: 'automatic' },
      },
      payment_method_types: ['card'],
      single_use_mandate: null,
      status: 'requires_payment_method',
      usage: input.usage,
    }
    this.env.store.setupIntents.set(id, si)
    this.env.store.setupIntentState.set(id, {})
    this.env.events.emit('setup_intent.created', si)
    return si
  }

  /** The `pending_setup_intent` of a subscription that has nothing to charge yet. */
  createForSubscription(customerId: string): Stripe.SetupIntent {
    return this.newSetupIntent({
      customer: customerId,
      description: null,
      metadata: {},
      usage: 'off_session',
      automatic: false,
    })
  }

  create(params: Params, request: ApiRequest): Stripe.SetupIntent {
    const customer = params.str('customer')
    if (customer) this.catalog.customer(customer, 'customer')
    const allowed = params.strList('allowed_payment_method_types')
    const types = allowed ?? params.strList('payment_method_types')
    const automatic = params.obj('automatic_payment_methods')
    const automaticEnabled = automatic?.bool('enabled')
    automatic?.oneOf('allow_redirects', ['always', 'never'] as const)
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
    const usage = params.oneOf('usage', ['off_session', 'on_session'] as const) ?? 'off_session'
    const paymentMethod = params.str('payment_method')
    const pmData = params.obj('payment_method_data')
    const confirm = params.bool('confirm') ?? false
    const returnUrl = params.str('return_url')
    const useStripeSdk = params.bool('use_stripe_sdk') ?? false
    params.obj('payment_method_options')?.rejectUnknown(['card'])
    const description = params.nullableStr('description') ?? null
    const metadata = params.metadata() ?? {}
    params.rejectUnknown(['single_use', 'attach_to_self', 'flow_directions', 'excluded_payment_method_types'])
    if (paymentMethod && pmData) {
      throw invalidRequest('You cannot specify both payment_method and payment_method_data.', {
        param: 'payment_method_data',
      })
    }
    if (returnUrl && !confirm) {
      throw invalidRequest('return_url can only be used with confirm=true.', { param: 'confirm' })
    }
    const pm = paymentMethod
      ? this.payments.resolvePaymentMethod(paymentMethod, 'payment_method')
      : pmData
        ? this.payments.paymentMethodFromParams(pmData)
        : undefined
    const si = this.newSetupIntent({
      customer: customer ?? null,
      description,
      metadata,
      usage,
      automatic: !types,
    })
    if (pm) this.setPaymentMethod(si, pm)
    if (confirm) {
      if (!pm) throw missingParam('payment_method')
      const error = this.run(si, {
        origin: request.origin,
        auth: request.auth,
        useStripeSdk,
        ...(returnUrl ? { returnUrl } : {}),
      })
      if (error) throw error
    }
    return si
  }

  private setPaymentMethod(si: Stripe.SetupIntent, pm: Stripe.PaymentMethod): void {
    if (si.customer && pm.customer && pm.customer !== si.customer) {
      throw invalidRequest(
        'The provided PaymentMethod belongs to a different customer than this SetupIntent.',
        {
          param: 'payment_method',
        },
      )
    }
    si.payment_method = pm.id
    if (si.status === 'requires_payment_method') si.status = 'requires_confirmation'
  }

  checkClientSecret(si: Stripe.SetupIntent, params: Params, auth: Auth): void {
    const secret = params.str('client_secret')
    if (auth === 'publishable' && secret === undefined) throw missingParam('client_secret')
    if (secret !== undefined && secret !== si.client_secret) {
      throw invalidRequest(
        'The client_secret provided does not match the client_secret associated with the SetupIntent.',
        { param: 'client_secret', code: 'setup_intent_invalid_parameter' },
      )
    }
  }

  /** `POST /v1/setup_intents/:id/confirm`, from the SDK or from Stripe.js (publishable key + client secret). */
  confirm(si: Stripe.SetupIntent, params: Params, request: ApiRequest): Stripe.SetupIntent {
    this.checkClientSecret(si, params, request.auth)
    if (si.status === 'succeeded') {
      throw invalidRequest(
        'You cannot confirm this SetupIntent because it has already succeeded after being previously confirmed.',
        { code: 'setup_intent_unexpected_state' },
      )
    }
    if (si.status === 'canceled' || si.status === 'processing') {
      throw invalidRequest(`You cannot confirm this SetupIntent because it has a status of ${si.status}.`, {
        code: 'setup_intent_unexpected_state',
      })
    }
    const pmData = params.obj('payment_method_data')
    const pmId = params.str('payment_method')
    const returnUrl = params.str('return_url')
    const useStripeSdk = params.bool('use_stripe_sdk') ?? false
    params.rejectUnknown([
      'expected_payment_method_type',
      'mandate_data',
      'payment_method_options',
      'allowed_payment_method_types',
    ])
    if (pmData && pmId) {
      throw invalidRequest('You cannot specify both payment_method and payment_method_data.', {
        param: 'payment_method_data',
      })
    }
    if (pmData) this.setPaymentMethod(si, this.payments.paymentMethodFromParams(pmData))
    else if (pmId) this.setPaymentMethod(si, this.payments.resolvePaymentMethod(pmId, 'payment_method'))
    if (!si.payment_method) {
      throw invalidRequest(
        "You cannot confirm this SetupIntent because it's missing a payment method. Update the SetupIntent with a payment method and then confirm it again.",
        { code: 'setup_intent_unexpected_state' },
      )
    }
    const outcome = this.run(si, {
      origin: request.origin,
      auth: request.auth,
      useStripeSdk,
      ...(returnUrl ? { returnUrl } : {}),
    })
    if (outcome) throw outcome
    return si
  }

  /** Runs the card's setup behaviour; returns the error to throw when the card is declined. */
  private run(
    si: Stripe.SetupIntent,
    options: { origin: string; auth: Auth; useStripeSdk: boolean; returnUrl?: string },
  ): StripeApiError | undefined {
    const state = this.env.store.setupIntentState.get(si.id) ?? {}
    if (options.origin) state.origin = options.origin
    this.env.store.setupIntentState.set(si.id, state)
    const pm = this.payments.paymentMethod(si.payment_method as string, 'payment_method')
    const card = this.payments.card(pm.id)
    if (card.behaviour === 'decline' && card.decline) {
      this.fail(si, pm, { type: 'card_error', ...card.decline })
      return this.declineError(si, card.decline, pm, options.auth)
    }
    if (card.behaviour === 'authenticate_on_session' || card.behaviour === 'authenticate_always') {
      this.requireAction(si, pm, options)
      return undefined
    }
    this.succeed(si, pm, false)
    return undefined
  }

  private declineError(
    si: Stripe.SetupIntent,
    decline: Decline,
    pm: Stripe.PaymentMethod,
    auth: Auth,
  ): StripeApiError {
    const rendered = this.env.renderer.render(si)
    return new StripeApiError(402, {
      type: 'card_error',
      code: decline.code,
      decline_code: decline.declineCode,
      message: decline.message,
      doc_url: `https://stripe.com/docs/error-codes/${decline.code.replaceAll('_', '-')}`,
      setup_intent: auth === 'secret' ? rendered : publishableSetupView(rendered),
      payment_method: structuredClone(pm),
    })
  }

  private attempt(
    si: Stripe.SetupIntent,
    pm: Stripe.PaymentMethod,
    status: string,
    extra: { authenticated?: boolean; error?: Stripe.SetupAttempt.SetupError | null },
  ): Stripe.SetupAttempt {
    const card = pm.card
    const attempt: Stripe.SetupAttempt = {
      id: newId('setatt'),
      object: 'setup_attempt',
      application: null,
      created: this.env.clock.now(),
      customer: si.customer as string | null,
      customer_account: null,
      flow_directions: null,
      livemode: false,
      on_behalf_of: null,
      payment_method: pm.id,
      payment_method_details: {
        type: 'card',
        card: {
          brand: card?.brand ?? null,
          checks: card?.checks ?? null,
          country: card?.country ?? null,
          exp_month: card?.exp_month ?? null,
          exp_year: card?.exp_year ?? null,
          fingerprint: card?.fingerprint ?? null,
          funding: card?.funding ?? null,
          last4: card?.last4 ?? null,
          network: card?.brand ?? null,
          three_d_secure:
            status === 'requires_action' || extra.authenticated !== undefined
              ? {
                  authentication_flow: 'challenge',
                  electronic_commerce_indicator: extra.authenticated ? '05' : null,
                  result:
                    extra.authenticated === undefined
                      ? null
                      : extra.authenticated
                        ? 'authenticated'
                        : 'failed',
                  result_reason: null,
                  transaction_id: randomString(24),
                  version: '2.2.0',
                }
              : null,
          wallet: null,
        },
      },
      setup_error: extra.error ?? null,
      setup_intent: si.id,
      status,
      usage: si.usage,
    }
    this.env.store.setupAttempts.set(attempt.id, attempt)
    si.latest_attempt = attempt.id
    return attempt
  }

  private succeed(si: Stripe.SetupIntent, pm: Stripe.PaymentMethod, authenticated: boolean): void {
    const before = structuredClone(si)
    const attempt =
      si.status === 'requires_action' && typeof si.latest_attempt === 'string'
        ? this.env.store.setupAttempts.get(si.latest_attempt)
        : undefined
    if (attempt) {
      attempt.status = 'succeeded'
      const details = attempt.payment_method_details.card
      if (details?.three_d_secure) {
        details.three_d_secure.result = 'authenticated'
        details.three_d_secure.electronic_commerce_indicator = '05'
      }
    } else this.attempt(si, pm, 'succeeded', authenticated ? { authenticated } : {})
    si.status = 'succeeded'
    si.next_action = null
    si.last_setup_error = null
    si.payment_method = pm.id
    if (si.customer && pm.customer !== si.customer) this.attachForSetup(pm, si.customer as string)
    this.env.events.emit(
      'setup_intent.succeeded',
      si,
      changedFields(before, si, ['status', 'next_action', 'last_setup_error', 'latest_attempt']),
    )
    this.hooks?.succeeded(si, pm)
  }

  /** Attaching after a successful setup; the issuer check already happened in the setup itself. */
  private attachForSetup(pm: Stripe.PaymentMethod, customerId: string): void {
    if (pm.customer) {
      throw invalidRequest('The payment method you provided has already been attached to a customer.', {
        code: 'payment_method_unexpected_state',
      })
    }
    pm.customer = customerId
    this.env.events.emit('payment_method.attached', pm, { customer: null })
  }

  private fail(
    si: Stripe.SetupIntent,
    pm: Stripe.PaymentMethod,
    error: {
      type: 'card_error' | 'invalid_request_error'
      code: string
      declineCode?: string
      message: string
    },
  ): void {
    const before = structuredClone(si)
    const lastError: Stripe.SetupIntent.LastSetupError = {
      type: error.type,
      code: error.code as Stripe.SetupIntent.LastSetupError.Code,
      ...(error.declineCode ? { decline_code: error.declineCode } : {}),
      doc_url: `https://stripe.com/docs/error-codes/${error.code.replaceAll('_', '-')}`,
      message: error.message,
      payment_method: structuredClone(pm),
    }
    const attempt =
      si.status === 'requires_action' && typeof si.latest_attempt === 'string'
        ? this.env.store.setupAttempts.get(si.latest_attempt)
        : undefined
    const setupError = { ...lastError } as Stripe.SetupAttempt.SetupError
    if (attempt) {
      attempt.status = 'failed'
      attempt.setup_error = setupError
      const secure = attempt.payment_method_details.card?.three_d_secure
      if (secure) secure.result = 'failed'
    } else this.attempt(si, pm, 'failed', { error: setupError })
    si.status = 'requires_payment_method'
    si.payment_method = null
    si.next_action = null
    si.last_setup_error = lastError
    this.env.events.emit(
      'setup_intent.setup_failed',
      si,
      changedFields(before, si, [
        'status',
        'payment_method',
        'next_action',
        'last_setup_error',
        'latest_attempt',
      ]),
    )
  }

  private requireAction(
    si: Stripe.SetupIntent,
    pm: Stripe.PaymentMethod,
    options: { origin: string; useStripeSdk: boolean; returnUrl?: string },
  ): void {
    const page = `${options.origin}/stripe-js/3ds/${si.id}?client_secret=${encodeURIComponent(si.client_secret ?? '')}`
    const before = structuredClone(si)
    this.attempt(si, pm, 'requires_action', {})
    si.status = 'requires_action'
    si.last_setup_error = null
    si.next_action =
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
            },
          }
    this.env.events.emit(
      'setup_intent.requires_action',
      si,
      changedFields(before, si, ['status', 'next_action', 'latest_attempt']),
    )
  }

  /** Completes or fails 3-D Secure for a SetupIntent in requires_action, as the customer would. */
  authenticate(si: Stripe.SetupIntent, success: boolean): Stripe.SetupIntent {
    return inCustomerTime(this.env, si.customer, () => this.answerChallenge(si, success))
  }

  private answerChallenge(si: Stripe.SetupIntent, success: boolean): Stripe.SetupIntent {
    if (si.status !== 'requires_action') {
      throw invalidRequest(`This SetupIntent is not awaiting authentication (status ${si.status}).`, {
        code: 'setup_intent_unexpected_state',
      })
    }
    const pm = this.payments.paymentMethod(si.payment_method as string)
    if (success) this.succeed(si, pm, true)
    else {
      this.fail(si, pm, {
        type: 'invalid_request_error',
        code: 'setup_intent_authentication_failure',
        message: AUTHENTICATION_FAILED_MESSAGE,
      })
    }
    return si
  }

  cancel(si: Stripe.SetupIntent, params: Params): Stripe.SetupIntent {
    const reason = params.oneOf('cancellation_reason', [
      'abandoned',
      'duplicate',
      'requested_by_customer',
    ] as const)
    params.rejectUnknown()
    const cancellable = ['requires_payment_method', 'requires_confirmation', 'requires_action']
    if (!cancellable.includes(si.status)) {
      throw invalidRequest(
        `You cannot cancel this SetupIntent because it has a status of ${si.status}. Only a SetupIntent with one of the following statuses may be canceled: ${cancellable.join(', ')}.`,
        { code: 'setup_intent_unexpected_state' },
      )
    }
    const before = structuredClone(si)
    si.status = 'canceled'
    si.cancellation_reason = reason ?? null
    si.next_action = null
    this.env.events.emit(
      'setup_intent.canceled',
      si,
      changedFields(before, si, ['status', 'cancellation_reason']),
    )
    return si
  }

  routes(api: StripeApi): void {
    const render = this.env.renderer
    api.post('/v1/setup_intents', (r) =>
      inCustomerTime(this.env, r.params.raw.customer, () => r.render(this.create(r.params, r))),
    )
    api.get('/v1/setup_intents', (r) => {
      const customer = r.params.str('customer')
      const paymentMethod = r.params.str('payment_method')
      const created = createdFilter(r.params)
      const list = [...this.env.store.setupIntents.values()]
        .reverse()
        .filter(
          (si) =>
            (!customer || si.customer === customer) &&
            (!paymentMethod || si.payment_method === paymentMethod) &&
            created(si.created),
        )
      return render.list(list, r.params, '/v1/setup_intents', r.expand)
    })
    api.get(
      '/v1/setup_intents/:id',
      (r) => {
        const si = this.setupIntent(r.path.id ?? '')
        this.checkClientSecret(si, r.params, r.auth)
        return this.render(r, si)
      },
      { publishable: true },
    )
    api.post(
      '/v1/setup_intents/:id/confirm',
      (r) => {
        const si = this.setupIntent(r.path.id ?? '')
        return inCustomerTime(this.env, si.customer, () => this.render(r, this.confirm(si, r.params, r)))
      },
      { publishable: true },
    )
    api.post('/v1/setup_intents/:id/cancel', (r) => {
      const si = this.setupIntent(r.path.id ?? '')
      return inCustomerTime(this.env, si.customer, () => r.render(this.cancel(si, r.params)))
    })
    api.get('/v1/setup_attempts', (r) => {
      const setupIntent = r.params.requireStr('setup_intent')
      const created = createdFilter(r.params)
      const list = [...this.env.store.setupAttempts.values()]
        .reverse()
        .filter((attempt) => attempt.setup_intent === setupIntent && created(attempt.created))
      return render.list(list, r.params, '/v1/setup_attempts', r.expand)
    })
  }
}
