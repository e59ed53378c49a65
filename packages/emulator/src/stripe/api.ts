import type { IncomingMessage, ServerResponse } from 'node:http'
import { type RequestContext, type Router, sendJson } from '../http'
import { API_VERSION, type Env } from './env'
import { StripeApiError, type StripeErrorBody } from './errors'
import type { Faults } from './faults'
import { type FormObject, Params, parseForm, parseQuery } from './form'
import { newId } from './ids'

/**
 * The HTTP side of the emulated API: authentication (secret key, or publishable key where Stripe.js
 * may call), injected faults, Idempotency-Key replay, and Stripe's error bodies. Handlers are
 * synchronous, so a request's effects and events happen atomically.
 */

export type Auth = 'secret' | 'publishable'

export interface ApiRequest {
  params: Params
  path: Record<string, string>
  auth: Auth
  /** The emulator's origin as the caller reached it (for URLs handed back, e.g. 3-D Secure pages). */
  origin: string
  expand: string[]
  render(value: object): Record<string, unknown>
}

export type ApiHandler = (request: ApiRequest) => object

export interface ApiKeys {
  secretKey: string
  publishableKey: string
}

interface IdempotentEntry {
  fingerprint: string
  requestId: string
  inFlight: boolean
  status: number
  body: unknown
}

/** Enough for any test run; the oldest keys go first, as Stripe expires keys after 24 hours. */
const MAX_IDEMPOTENCY_KEYS = 20_000

export function originOf(req: IncomingMessage): string {
  const forwardedHost = req.headers['x-forwarded-host']
  const forwardedProto = req.headers['x-forwarded-proto']
  const host = (typeof forwardedHost === 'string' && forwardedHost) || req.headers.host || '127.0.0.1'
  const proto = (typeof forwardedProto === 'string' && forwardedProto) || 'http'
  return `${proto}://${host}`
}

function apiError(status: number, body: StripeErrorBody, requestId: string) {
  return {
    status,
    body: { error: { ...body, request_log_url: `https://dashboard.stripe.com/test/logs/${requestId}` } },
  }
}

export class StripeApi {
  private readonly idempotency = new Map<string, IdempotentEntry>()

  constructor(
    private readonly router: Router,
    private readonly env: Env,
    private readonly keys: ApiKeys,
    private readonly faults: Faults,
  ) {}

  /** A stored object as a response body without expansions. */
  renderPlain(value: object): Record<string, unknown> {
    return this.env.renderer.render(value)
  }

  clearIdempotency(): void {
    this.idempotency.clear()
  }

  get(path: string, handler: ApiHandler, options: { publishable?: boolean } = {}): void {
    this.router.on('GET', path, (ctx) => this.handle(ctx, handler, options))
  }

  post(path: string, handler: ApiHandler, options: { publishable?: boolean } = {}): void {
    this.router.on('POST', path, (ctx) => this.handle(ctx, handler, options))
  }

  delete(path: string, handler: ApiHandler): void {
    this.router.on('DELETE', path, (ctx) => this.handle(ctx, handler, {}))
  }

  private async handle(ctx: RequestContext, handler: ApiHandler, options: { publishable?: boolean }) {
    const { req, res, url } = ctx
    const method = req.method ?? 'GET'
    const requestId = newId('req')
    const idempotencyKey = headerValue(req, 'idempotency-key')
    const headers: Record<string, string> = { 'request-id': requestId, 'stripe-version': API_VERSION }
    if (idempotencyKey) headers['idempotency-key'] = idempotencyKey

    const respond = (result: { status: number; body: unknown }, extra: Record<string, string> = {}) =>
      sendJson(res, result.status, result.body, { ...headers, ...extra })

    let form: FormObject
    try {
      form = method === 'POST' ? parseForm(ctx.rawBody.toString('utf8')) : parseQuery(url.searchParams)
    } catch {
      return respond(
        apiError(400, { type: 'invalid_request_error', message: 'Invalid request body.' }, requestId),
      )
    }

    const auth = this.authenticate(req, form, options)
    if ('error' in auth) return respond(apiError(401, auth.error, requestId))

    const fault = await this.faults.apply(method, url.pathname)
    if (fault?.kind === 'disconnect') {
      req.socket.destroy()
      return
    }
    if (fault?.kind === 'error') {
      return respond(
        apiError(
          fault.status,
          { type: 'api_error', message: 'An unknown error occurred (injected by the emulator).' },
          requestId,
        ),
      )
    }
    if (fault?.kind === 'rate_limit') {
      return respond(
        apiError(
          429,
          {
            type: 'invalid_request_error',
            code: 'rate_limit',
            doc_url: 'https://stripe.com/docs/error-codes/rate-limit',
            message:
              'Request rate limit exceeded. You can learn more about rate limits here https://stripe.com/docs/rate-limits.',
          },
          requestId,
        ),
      )
    }

    const scopedKey = idempotencyKey && method === 'POST' ? `${auth.key}:${idempotencyKey}` : undefined
    const fingerprint = `${method} ${url.pathname} ${ctx.rawBody.toString('utf8')}`
    if (scopedKey) {
      const previous = this.idempotency.get(scopedKey)
      if (previous && previous.fingerprint !== fingerprint) {
        return respond(
          apiError(
            400,
            {
              type: 'idempotency_error',
              message: `Keys for idempotent requests can only be used with the same parameters they were first used with. Try using a key other than '${idempotencyKey}' if you meant to execute a different request.`,
            },
            requestId,
          ),
        )
      }
      if (previous?.inFlight) {
        return respond(
          apiError(
            409,
            {
              type: 'idempotency_error',
              code: 'idempotency_key_in_use',
              message:
                'There is currently another in-progress request using this Idempotent Key (that probably means you submitted twice, and the other request is still going through): ' +
                `${idempotencyKey}. Please try again later.`,
            },
            requestId,
          ),
        )
      }
      if (previous) {
        return respond(
          { status: previous.status, body: previous.body },
          { 'idempotent-replayed': 'true', 'original-request': previous.requestId },
        )
      }
      this.idempotency.set(scopedKey, { fingerprint, requestId, inFlight: true, status: 0, body: null })
    }

    const result = this.run(ctx, handler, form, auth.auth, {
      id: requestId,
      idempotency_key: idempotencyKey ?? null,
    })
    if (scopedKey) {
      this.idempotency.set(scopedKey, { fingerprint, requestId, inFlight: false, ...result })
      if (this.idempotency.size > MAX_IDEMPOTENCY_KEYS) {
        const oldest = this.idempotency.keys().next().value
        if (oldest !== undefined) this.idempotency.delete(oldest)
      }
    }
    respond(result)
  }

  private run(
    ctx: RequestContext,
    handler: ApiHandler,
    form: FormObject,
    auth: Auth,
    request: { id: string; idempotency_key: string | null },
  ): { status: number; body: unknown } {
    const params = new Params(form)
    const expand = params.strList('expand') ?? []
    const apiRequest: ApiRequest = {
      params,
      path: ctx.params,
      auth,
      origin: originOf(ctx.req),
      expand,
      render: (value) => this.env.renderer.render(value, expand),
    }
    this.env.events.request = request
    try {
      return { status: 200, body: handler(apiRequest) }
    } catch (error) {
      if (error instanceof StripeApiError) return apiError(error.status, error.body, request.id)
      console.error('stripe emulator: handler failed', error)
      return apiError(
        500,
        {
          type: 'api_error',
          message: `The emulator failed: ${error instanceof Error ? error.message : String(error)}`,
        },
        request.id,
      )
    } finally {
      this.env.events.request = null
    }
  }

  private authenticate(
    req: IncomingMessage,
    form: FormObject,
    options: { publishable?: boolean },
  ): { auth: Auth; key: string } | { error: StripeErrorBody } {
    let key: string | undefined
    const header = headerValue(req, 'authorization')
    if (header?.startsWith('Bearer ')) key = header.slice(7).trim()
    else if (header?.startsWith('Basic ')) {
      key = Buffer.from(header.slice(6), 'base64').toString('utf8').split(':')[0]
    }
    // Stripe.js sends its publishable key as a `key` parameter rather than a header.
    if (typeof form.key === 'string') {
      key ??= form.key
      delete form.key
    }
    if (!key) {
      return {
        error: {
          type: 'invalid_request_error',
          message:
            "You did not provide an API key. You need to provide your API key in the Authorization header, using Bearer auth (e.g. 'Authorization: Bearer YOUR_SECRET_KEY').",
        },
      }
    }
    if (key === this.keys.secretKey) return { auth: 'secret', key }
    if (key === this.keys.publishableKey) {
      if (options.publishable) return { auth: 'publishable', key }
      return {
        error: {
          type: 'invalid_request_error',
          message:
            'This API call cannot be made with a publishable API key. Please use a secret API key. You can find a list of your API keys at https://dashboard.stripe.com/account/apikeys.',
        },
      }
    }
    return {
      error: {
        type: 'invalid_request_error',
        message: `Invalid API Key provided: ${key.slice(0, 8)}${'*'.repeat(Math.max(0, key.length - 12))}${key.slice(-4)}`,
      },
    }
  }
}

function headerValue(req: IncomingMessage, name: string): string | undefined {
  const value = req.headers[name]
  return Array.isArray(value) ? value[0] : value
}

/** CORS for the fake Stripe.js, which runs on the app's origin and calls the emulator from the browser. */
export function handleStripeCors(req: IncomingMessage, res: ServerResponse, pathname: string): boolean {
  if (!pathname.startsWith('/v1/') && !pathname.startsWith('/stripe-js')) return false
  res.setHeader('access-control-allow-origin', '*')
  res.setHeader('access-control-expose-headers', 'request-id, stripe-version, idempotency-key')
  if (req.method !== 'OPTIONS') return false
  res.writeHead(204, {
    'access-control-allow-methods': 'GET, POST, DELETE, OPTIONS',
    'access-control-allow-headers':
      'authorization, content-type, idempotency-key, stripe-version, stripe-account, x-stripe-client-user-agent',
    'access-control-max-age': '600',
    'content-length': '0',
  })
  res.end()
  return true
}
