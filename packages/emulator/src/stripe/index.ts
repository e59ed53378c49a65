import { type Handler, type Router, sendJson } from '../http'
import { mountStripeJs } from '../stripe-js/serve'
import { StripeApi } from './api'
import { Billing } from './billing'
import { Catalog } from './catalog'
import { Clock } from './clock'
import { createControl, mountControlRoutes, type StripeControl } from './control'
import { API_VERSION, type Env, EventLog } from './env'
import { noSuch } from './errors'
import { Faults } from './faults'
import { newId } from './ids'
import { Payments } from './payments'
import { createdFilter, Renderer } from './render'
import { Store } from './store'
import { WebhookDispatcher } from './webhooks'

export { handleStripeCors } from './api'
export type { AdvanceReport } from './billing'
export type { StripeControl, StripeState } from './control'
export type { FaultSpec } from './faults'
export type { Delivery } from './webhooks'

export const DEFAULT_SECRET_KEY = 'sk_test_emulator'
export const DEFAULT_PUBLISHABLE_KEY = 'pk_test_emulator'
export const DEFAULT_WEBHOOK_SECRET = 'whsec_emulator'

export interface StripeOptions {
  /** The only secret key the API accepts (default `sk_test_emulator`). */
  secretKey?: string
  /** The publishable key Stripe.js uses (default `pk_test_emulator`). */
  publishableKey?: string
  /** The app's webhook endpoint; may also be set later with `setWebhookUrl`. */
  webhookUrl?: string
  /** Signing secret for `Stripe-Signature` (default `whsec_emulator`). */
  webhookSecret?: string
  /** First retry delay after a failed delivery, doubled for each further retry (default 500 ms). */
  webhookRetryDelayMs?: number
  /** Delivery attempts per event, the first included (default 4). */
  webhookMaxAttempts?: number
  /** How long a delivery may take before it counts as failed (default 10 s). */
  webhookTimeoutMs?: number
  /** Days before a renewal that `invoice.upcoming` goes out (default 7; null: never). */
  upcomingInvoiceDays?: number | null
}

/** Mounts the emulated Stripe API (/v1), the fake Stripe.js (/stripe-js) and the controls (/_control/stripe). */
export function mountStripe(router: Router, options: StripeOptions = {}): StripeControl {
  const keys = {
    secretKey: options.secretKey ?? DEFAULT_SECRET_KEY,
    publishableKey: options.publishableKey ?? DEFAULT_PUBLISHABLE_KEY,
  }
  const store = new Store()
  const clock = new Clock()
  const webhooks = new WebhookDispatcher({
    ...(options.webhookUrl ? { url: options.webhookUrl } : {}),
    secret: options.webhookSecret ?? DEFAULT_WEBHOOK_SECRET,
    retryDelayMs: options.webhookRetryDelayMs ?? 500,
    maxAttempts: options.webhookMaxAttempts ?? 4,
    timeoutMs: options.webhookTimeoutMs ?? 10_000,
  })
  const env: Env = {
    store,
    clock,
    renderer: new Renderer(store),
    events: new EventLog(store, clock, webhooks),
  }
  const faults = new Faults()
  const api = new StripeApi(router, env, keys, faults)
  const catalog = new Catalog(env)
  const payments = new Payments(env, catalog)
  const billing = new Billing(env, catalog, payments)
  billing.subscriptions.upcomingDays =
    options.upcomingInvoiceDays === undefined ? 7 : options.upcomingInvoiceDays

  catalog.routes(api)
  payments.routes(api)
  billing.routes(api)
  mountEventRoutes(api, env)
  mountStripeJs(router, api, payments, billing.setupIntents)

  const control = createControl({
    env,
    billing,
    payments,
    faults,
    webhooks,
    keys,
    clearIdempotency: () => api.clearIdempotency(),
  })
  mountControlRoutes(router, control)
  mountUnrecognised(router)
  return control
}

/**
 * Stripe's 404 for paths it does not know (registered last, so only unmatched /v1 paths land here),
 * so an endpoint the emulator lacks surfaces as a clear StripeInvalidRequestError in the SDK.
 */
function mountUnrecognised(router: Router): void {
  const handler: Handler = ({ req, res, url }) =>
    sendJson(
      res,
      404,
      {
        error: {
          type: 'invalid_request_error',
          message: `Unrecognized request URL (${req.method}: ${url.pathname}). The EdgeClub Stripe emulator does not implement this endpoint; see packages/emulator/src/stripe/README.md.`,
        },
      },
      { 'request-id': newId('req'), 'stripe-version': API_VERSION },
    )
  for (const method of ['GET', 'POST', 'DELETE']) {
    for (const path of ['/v1/:a', '/v1/:a/:b', '/v1/:a/:b/:c', '/v1/:a/:b/:c/:d', '/v1/:a/:b/:c/:d/:e']) {
      router.on(method, path, handler)
    }
  }
}

function mountEventRoutes(api: StripeApi, env: Env): void {
  api.get('/v1/events', (r) => {
    const type = r.params.str('type')
    const types = r.params.strList('types')
    const matches = (eventType: string) => {
      if (types) return types.includes(eventType)
      if (!type) return true
      // Stripe allows a trailing wildcard, e.g. `invoice.*`.
      return type.endsWith('*') ? eventType.startsWith(type.slice(0, -1)) : eventType === type
    }
    const created = createdFilter(r.params)
    const list = [...env.store.events.values()]
      .reverse()
      .filter((event) => matches(event.type) && created(event.created))
    return env.renderer.list(list, r.params, '/v1/events', r.expand)
  })
  api.get('/v1/events/:id', (r) => {
    const event = env.store.events.get(r.path.id ?? '')
    if (!event) throw noSuch('event', r.path.id ?? '')
    return r.render(event)
  })
}
