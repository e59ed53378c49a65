import { askForAuthentication } from './authentication-dialog'
import {
  type CardElement,
  type CardElementOptions,
  createCardElement,
  IntegrationError,
} from './card-element'
import { type ApiAnswer, emulatorApi, type StripeJsError } from './emulator-api'

/*
 * EdgeClub's fake Stripe.js (dev/test only), bundled and served by the emulator at /stripe-js/v3.
 *
 * It defines window.Stripe with the surface @stripe/stripe-js and @stripe/react-stripe-js use, a
 * card Element made of real inputs in the host page, and confirmCardPayment / confirmCardSetup
 * against the emulator's /v1 API with the publishable key and the intent's client secret, as
 * Stripe.js does.
 *
 * The host page has a strict Content-Security-Policy, so nothing here creates style attributes or
 * <style> elements from strings: every style is set through the CSSOM (element.style.x = ...).
 */

/** The emulator's origin, written into the bundle when it is served (see ../serve.ts). */
declare const __EMULATOR_API_BASE__: string

interface PaymentIntentView {
  id: string
  status: string
  last_payment_error?: StripeJsError | null
}

interface SetupIntentView {
  id: string
  status: string
  last_setup_error?: StripeJsError | null
}

type PaymentIntentResult = { paymentIntent: PaymentIntentView; error?: undefined } | { error: StripeJsError }
type SetupIntentResult = { setupIntent: SetupIntentView; error?: undefined } | { error: StripeJsError }

interface ElementsGroup {
  create(type: string, options?: CardElementOptions): CardElement
  getElement(type: unknown): CardElement | null
  update(): void
  fetchUpdates(): Promise<object>
  submit(): Promise<object>
  _forget(element: CardElement): void
  _stripe: unknown
}

/** What confirmCardPayment and createPaymentMethod accept as the card: a card Element or a PaymentMethod id. */
type PaymentMethodInput = string | { card?: unknown; billing_details?: Record<string, unknown> } | undefined

interface PaymentMethodParams {
  payment_method?: string
  payment_method_data?: { type: 'card'; card: unknown; billing_details: Record<string, unknown> }
  error?: StripeJsError
}

interface CreatePaymentMethodData {
  type?: string
  card?: unknown
  billing_details?: Record<string, unknown>
  metadata?: Record<string, string>
}

type StripeFactory = ((publishableKey: unknown, options?: unknown) => ReturnType<typeof createStripe>) & {
  version: string
  __emulator: { apiBase: string }
}

declare global {
  interface Window {
    Stripe?: Partial<StripeFactory>
  }
}

const API_BASE = __EMULATOR_API_BASE__

function paymentIntentIdOf(clientSecret: unknown): string | null {
  const match = /^(pi_[A-Za-z0-9]+)_secret_[A-Za-z0-9]+$/.exec(String(clientSecret ?? ''))
  return match?.[1] ?? null
}

function setupIntentIdOf(clientSecret: unknown): string | null {
  const match = /^(seti_[A-Za-z0-9]+)_secret_[A-Za-z0-9]+$/.exec(String(clientSecret ?? ''))
  return match?.[1] ?? null
}

function unsupported(name: string): Promise<{ error: StripeJsError }> {
  return Promise.resolve({
    error: {
      type: 'invalid_request_error',
      message: `${name} is outside what the EdgeClub Stripe emulator covers (EdgeClub does not call it).`,
    },
  })
}

function createElementsGroup(stripe: unknown): ElementsGroup {
  const elements = new Map<string, CardElement>()
  const group: ElementsGroup = {
    create(type, options = {}) {
      if (type !== 'card') {
        throw new IntegrationError(
          `The EdgeClub Stripe emulator implements only the 'card' Element, not '${type}'.`,
        )
      }
      if (elements.has(type)) throw new IntegrationError(`Can only create one Element of type ${type}.`)
      const element = createCardElement(group, options)
      elements.set(type, element)
      return element
    },
    getElement(type) {
      // React's wrappers pass the component (CardElement) rather than the string.
      const component = type as { __elementType?: string; __emulatorElementType?: string } | null | undefined
      const name =
        typeof type === 'string'
          ? type
          : (component?.__elementType ?? component?.__emulatorElementType ?? 'card')
      return elements.get(name) ?? null
    },
    update() {},
    fetchUpdates: () => Promise.resolve({}),
    submit: () => Promise.resolve({}),
    _forget(element) {
      for (const [type, candidate] of elements) if (candidate === element) elements.delete(type)
    },
    _stripe: stripe,
  }
  return group
}

/** The card details of a confirmation: a PaymentMethod id, or the card Element's data with billing details. */
function withCardDetails(paymentMethod: PaymentMethodInput): PaymentMethodParams {
  if (typeof paymentMethod === 'string') return { payment_method: paymentMethod }
  if (!paymentMethod?.card) return {}
  const card = paymentMethod.card as Partial<CardElement>
  if (typeof card._emulatorCardDetails !== 'function') {
    return {
      error: { type: 'invalid_request_error', message: 'payment_method.card must be a card Element.' },
    }
  }
  const details = card._emulatorCardDetails()
  if (details.error) return { error: details.error }
  const billing: Record<string, unknown> = { ...paymentMethod.billing_details }
  if (details.postalCode) {
    billing.address = {
      ...(billing.address as Record<string, unknown> | undefined),
      postal_code: details.postalCode,
    }
  }
  return { payment_method_data: { type: 'card', card: details.card, billing_details: billing } }
}

function createStripe(publishableKey: unknown) {
  if (typeof publishableKey !== 'string' || !publishableKey.startsWith('pk_')) {
    throw new IntegrationError(
      `Invalid value for Stripe(): apiKey should be a publishable key (pk_...). You specified: ${String(publishableKey)}`,
    )
  }
  const call = emulatorApi(API_BASE, publishableKey)
  const wrappers: unknown[] = []

  /** Runs the 3-D Secure dialog, then reports the answer for the PaymentIntent or SetupIntent. */
  async function challenge<T extends { id: string; status: string }>(
    intent: T,
    clientSecret: string,
  ): Promise<{ body: T; error?: undefined } | { error: StripeJsError }> {
    const result = await askForAuthentication()
    const answer = await call<T>('POST', `/stripe-js/3ds/${intent.id}`, {
      client_secret: clientSecret,
      result,
    })
    return answer.error ? { error: answer.error } : { body: answer.body }
  }

  async function authenticate(
    paymentIntent: PaymentIntentView,
    clientSecret: string,
  ): Promise<PaymentIntentResult> {
    const answer = await challenge(paymentIntent, clientSecret)
    if (answer.error) return { error: answer.error }
    const updated = answer.body
    if (updated.status === 'requires_payment_method' && updated.last_payment_error) {
      return { error: { ...updated.last_payment_error, payment_intent: updated } }
    }
    return { paymentIntent: updated }
  }

  async function authenticateSetup(
    setupIntent: SetupIntentView,
    clientSecret: string,
  ): Promise<SetupIntentResult> {
    const answer = await challenge(setupIntent, clientSecret)
    if (answer.error) return { error: answer.error }
    const updated = answer.body
    if (updated.status === 'requires_payment_method' && updated.last_setup_error) {
      return { error: { ...updated.last_setup_error, setup_intent: updated } }
    }
    return { setupIntent: updated }
  }

  async function settle(
    answer: ApiAnswer<PaymentIntentView>,
    clientSecret: string,
    handleActions: boolean,
  ): Promise<PaymentIntentResult> {
    if (answer.error) return { error: answer.error }
    const paymentIntent = answer.body
    if (paymentIntent.status === 'requires_action' && handleActions)
      return authenticate(paymentIntent, clientSecret)
    return { paymentIntent }
  }

  async function settleSetup(
    answer: ApiAnswer<SetupIntentView>,
    clientSecret: string,
    handleActions: boolean,
  ): Promise<SetupIntentResult> {
    if (answer.error) return { error: answer.error }
    const setupIntent = answer.body
    if (setupIntent.status === 'requires_action' && handleActions)
      return authenticateSetup(setupIntent, clientSecret)
    return { setupIntent }
  }

  function setupIdOrThrow(clientSecret: unknown, method: string): string {
    const id = setupIntentIdOf(clientSecret)
    if (!id) {
      throw new IntegrationError(
        `Invalid value for ${method} intent secret: value should be a SetupIntent client_secret string.`,
      )
    }
    return id
  }

  const stripe = {
    _apiKey: publishableKey,
    _registerWrapper(wrapper: unknown) {
      wrappers.push(wrapper)
    },
    registerAppInfo() {},
    elements(): ElementsGroup {
      return createElementsGroup(stripe)
    },
    async confirmCardPayment(
      clientSecret: string,
      data: {
        payment_method?: PaymentMethodInput
        setup_future_usage?: string
        receipt_email?: string
        return_url?: string
      } = {},
      options: { handleActions?: boolean } = {},
    ): Promise<PaymentIntentResult> {
      const id = paymentIntentIdOf(clientSecret)
      if (!id)
        throw new IntegrationError(
          'Invalid value for confirmCardPayment intent secret: value should be a client_secret string.',
        )
      const method = withCardDetails(data.payment_method)
      if (method.error) return { error: method.error }
      const params: Record<string, unknown> = {
        client_secret: clientSecret,
        use_stripe_sdk: 'true',
        expected_payment_method_type: 'card',
        ...method,
      }
      if (data.setup_future_usage) params.setup_future_usage = data.setup_future_usage
      if (data.receipt_email) params.receipt_email = data.receipt_email
      if (data.return_url) params.return_url = data.return_url
      const answer = await call<PaymentIntentView>('POST', `/v1/payment_intents/${id}/confirm`, params)
      return settle(answer, clientSecret, options.handleActions !== false)
    },
    async retrievePaymentIntent(clientSecret: string): Promise<PaymentIntentResult> {
      const id = paymentIntentIdOf(clientSecret)
      if (!id)
        throw new IntegrationError(
          'Invalid value for retrievePaymentIntent: value should be a client_secret string.',
        )
      const answer = await call<PaymentIntentView>('GET', `/v1/payment_intents/${id}`, {
        client_secret: clientSecret,
      })
      return answer.error ? { error: answer.error } : { paymentIntent: answer.body }
    },
    async handleCardAction(clientSecret: string): Promise<PaymentIntentResult> {
      const retrieved = await stripe.retrievePaymentIntent(clientSecret)
      if (retrieved.error) return retrieved
      if (retrieved.paymentIntent.status !== 'requires_action') return retrieved
      return authenticate(retrieved.paymentIntent, clientSecret)
    },
    /** Whatever the intent is waiting for (3-D Secure), for a PaymentIntent or a SetupIntent. */
    handleNextAction(
      options: { clientSecret?: string } = {},
    ): Promise<PaymentIntentResult | SetupIntentResult> {
      if (setupIntentIdOf(options.clientSecret)) return stripe.handleCardSetup(options.clientSecret ?? '')
      return stripe.handleCardAction(options.clientSecret ?? '')
    },
    async confirmCardSetup(
      clientSecret: string,
      data: { payment_method?: PaymentMethodInput; return_url?: string } = {},
      options: { handleActions?: boolean } = {},
    ): Promise<SetupIntentResult> {
      const id = setupIdOrThrow(clientSecret, 'confirmCardSetup')
      const method = withCardDetails(data.payment_method)
      if (method.error) return { error: method.error }
      const params: Record<string, unknown> = {
        client_secret: clientSecret,
        use_stripe_sdk: 'true',
        expected_payment_method_type: 'card',
        ...method,
      }
      if (data.return_url) params.return_url = data.return_url
      const answer = await call<SetupIntentView>('POST', `/v1/setup_intents/${id}/confirm`, params)
      return settleSetup(answer, clientSecret, options.handleActions !== false)
    },
    async retrieveSetupIntent(clientSecret: string): Promise<SetupIntentResult> {
      const id = setupIdOrThrow(clientSecret, 'retrieveSetupIntent')
      const answer = await call<SetupIntentView>('GET', `/v1/setup_intents/${id}`, {
        client_secret: clientSecret,
      })
      return answer.error ? { error: answer.error } : { setupIntent: answer.body }
    },
    /**
     * The older name: with a card Element it confirms like confirmCardSetup; without one it completes
     * the next action of a SetupIntent that is waiting for 3-D Secure.
     */
    async handleCardSetup(
      clientSecret: string,
      element?: unknown,
      data: { payment_method_data?: { billing_details?: Record<string, unknown> } } = {},
    ): Promise<SetupIntentResult> {
      if (element) {
        return stripe.confirmCardSetup(clientSecret, {
          payment_method: { card: element, billing_details: data.payment_method_data?.billing_details ?? {} },
        })
      }
      const retrieved = await stripe.retrieveSetupIntent(clientSecret)
      if (retrieved.error || retrieved.setupIntent.status !== 'requires_action') return retrieved
      return authenticateSetup(retrieved.setupIntent, clientSecret)
    },
    async createPaymentMethod(
      typeOrData: string | CreatePaymentMethodData,
      element?: unknown,
      extra?: CreatePaymentMethodData,
    ): Promise<{ paymentMethod: unknown; error?: undefined } | { error: StripeJsError }> {
      const data: CreatePaymentMethodData =
        typeof typeOrData === 'string' ? { type: typeOrData, card: element, ...extra } : { ...typeOrData }
      if ((data.type ?? 'card') !== 'card') return unsupported(`createPaymentMethod type ${data.type}`)
      const method = withCardDetails({ card: data.card, billing_details: data.billing_details })
      if (method.error) return { error: method.error }
      if (!method.payment_method_data) return unsupported('createPaymentMethod without a card Element')
      const answer = await call('POST', '/v1/payment_methods', {
        ...method.payment_method_data,
        ...(data.metadata ? { metadata: data.metadata } : {}),
      })
      return answer.error ? { error: answer.error } : { paymentMethod: answer.body }
    },
    createToken: () => unsupported('createToken'),
    createSource: () => unsupported('createSource'),
    confirmPayment: () => unsupported('confirmPayment (the Payment Element)'),
    confirmSetup: () => unsupported('confirmSetup (the Payment Element)'),
    paymentRequest(): never {
      throw new IntegrationError(
        'paymentRequest is outside what the EdgeClub Stripe emulator covers (EdgeClub does not call it).',
      )
    },
  }
  return stripe
}

// A page that loads the script twice keeps the first copy (and its Elements).
if (!window.Stripe?.__emulator) {
  const Stripe: StripeFactory = Object.assign(
    function Stripe(publishableKey: unknown, _options?: unknown) {
      return createStripe(publishableKey)
    },
    { version: 'endive', __emulator: { apiBase: API_BASE } },
  )
  window.Stripe = Stripe
}
