import zlib from 'node:zlib'
import { API_BASE } from '@edgeclub/shared'
import compress from '@fastify/compress'
import rateLimit from '@fastify/rate-limit'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import helmet, { type HelmetOptions } from 'helmet'
import type { Config } from '../config'
import { rateLimited } from '../lib/errors'
import { API_DOCS } from './openapi'

/** Stripe.js and its frames: the only third party a page may load. */
const STRIPE_SCRIPT = 'https://js.stripe.com'
const STRIPE_FRAMES = ['https://js.stripe.com', 'https://hooks.stripe.com']
const STRIPE_API = 'https://api.stripe.com'

export type CspDirectives = Record<string, string[]>

/**
 * The Content-Security-Policy for pages. Outside production the local Stripe emulator (the fake
 * Stripe.js and the API it calls, the stand-in push service) is allowed too, by configuration.
 */
export function cspDirectives(config: Config): CspDirectives {
  const emulatorOrigins =
    config.env === 'production'
      ? []
      : [config.stripe.jsUrl, config.stripe.apiBase, config.push.standInUrl]
          .filter((url): url is string => Boolean(url))
          .map((url) => new URL(url).origin)
  const unique = (values: string[]) => [...new Set(values)]
  return {
    'default-src': ["'self'"],
    'script-src': unique(["'self'", STRIPE_SCRIPT, ...emulatorOrigins]),
    'frame-src': unique([...STRIPE_FRAMES, ...emulatorOrigins]),
    'connect-src': unique(["'self'", STRIPE_API, ...emulatorOrigins]),
    'img-src': ["'self'", 'data:', 'https://*.stripe.com'],
    'style-src': ["'self'"],
    'font-src': ["'self'"],
    'object-src': ["'none'"],
    // No page needs a <base> element; none may be injected to re-point relative URLs.
    'base-uri': ["'none'"],
    'form-action': ["'self'"],
    'frame-ancestors': ["'none'"],
    ...(config.env === 'production' ? { 'upgrade-insecure-requests': [] } : {}),
  }
}

export function serializeCsp(directives: CspDirectives, extraScriptSources: string[] = []): string {
  return Object.entries(directives)
    .map(([name, values]) => {
      const all = name === 'script-src' ? [...values, ...extraScriptSources] : values
      return all.length ? `${name} ${all.join(' ')}` : name
    })
    .join('; ')
}

/**
 * Helmet's headers, worked out once at start. Running helmet on every request re-serializes the CSP
 * and costs more than serving a cached public endpoint; the headers never change, so they are
 * computed here from helmet itself and set in one step per response.
 */
export function securityHeaders(options: HelmetOptions): Record<string, string> {
  const headers: Record<string, string> = {}
  const response = {
    setHeader: (name: string, value: string | number | readonly string[]) => {
      headers[name.toLowerCase()] = Array.isArray(value) ? value.join(', ') : String(value)
    },
    removeHeader: (name: string) => {
      delete headers[name.toLowerCase()]
    },
    getHeader: (name: string) => headers[name.toLowerCase()],
  }
  let called = false
  helmet(options)({} as never, response as never, () => {
    called = true
  })
  if (!called) throw new Error('helmet did not finish synchronously')
  return headers
}

/** The headers every response carries, pages (which add script hashes to the CSP), API and errors alike. */
export function responseSecurityHeaders(config: Config): Record<string, string> {
  return securityHeaders({
    contentSecurityPolicy: { useDefaults: false, directives: cspDirectives(config) },
    // Stripe's 3-D Secure frames need to open from our pages.
    crossOriginEmbedderPolicy: false,
    // No one may frame us (the CSP says frame-ancestors 'none'); browsers without CSP hear the same.
    xFrameOptions: { action: 'deny' },
    strictTransportSecurity: config.env === 'production',
  })
}

/**
 * What a public JSON answer served from memory needs of those headers, OWASP's set for REST answers:
 * never sniffed as another type, never framed (frame-ancestors, and X-Frame-Options for browsers
 * without CSP), HTTPS only. Its Content-Security-Policy is the shortest that forbids everything: a
 * JSON body runs no script and loads nothing. Left out, because they protect nothing here and every
 * header costs bytes and validation on each answer of the busiest routes: the page-only headers (the
 * pages' long policy, opener, agent cluster, legacy IE and Flash switches), Referrer-Policy (a JSON
 * body has no links or subresources to send a referrer from) and Cross-Origin-Resource-Policy (it
 * keeps a response out of another site's process; these answers are public, served to anyone).
 */
export function jsonSecurityHeaders(headers: Record<string, string>): Record<string, string> {
  return {
    'content-security-policy': "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
    ...only(headers, ['strict-transport-security', 'x-content-type-options', 'x-frame-options']),
  }
}

/**
 * What every other API answer needs: the JSON answer's set, and Cross-Origin-Resource-Policy, because
 * most of them are one member's own data (their payments, their feed, an admin's lists), which no
 * other site may pull into its process with a no-cors request carrying the member's cookie. Pages'
 * headers protect a document; an API answer is JSON, an event stream or a download, never a page.
 * Errors in the envelope (a malformed URL, a request Node refused) get the same.
 */
export function apiSecurityHeaders(headers: Record<string, string>): Record<string, string> {
  return { ...jsonSecurityHeaders(headers), ...only(headers, ['cross-origin-resource-policy']) }
}

/** Those of `names` that `headers` has (HSTS is set in production only). */
function only(headers: Record<string, string>, names: readonly string[]): Record<string, string> {
  return Object.fromEntries(
    names.filter((name) => headers[name] !== undefined).map((name) => [name, headers[name]!]),
  )
}

/**
 * What a hashed script or style of the web app needs of those headers: never sniffed as another type
 * (a script or style answer is refused unless its type says so), HTTPS only. The rest are a page's
 * (a policy, framing, opener, agent cluster, referrer: no browser applies them to a script or a style)
 * or keep a response out of other sites' processes (Cross-Origin-Resource-Policy: these files are
 * public, the same for everyone). A dashboard's first load asks for a dozen of them, and on a phone
 * every header is bytes on the way to the first screen.
 */
export function assetSecurityHeaders(headers: Record<string, string>): Record<string, string> {
  return only(headers, ['strict-transport-security', 'x-content-type-options'])
}

declare module 'fastify' {
  interface FastifyContextConfig {
    /** A public JSON answer served from memory (lib/hot-route.ts): it gets the JSON answer's security headers. */
    jsonAnswer?: boolean
    /** A hashed script or style of the web app (plugins/web.ts): it gets an asset's security headers. */
    assetAnswer?: boolean
  }
}

export default fp(
  async (app: FastifyInstance, options: { config: Config; headers: Record<string, string> }) => {
    const { config, headers } = options
    const jsonHeaders = jsonSecurityHeaders(headers)
    const assetHeaders = assetSecurityHeaders(headers)
    const apiHeaders = apiSecurityHeaders(headers)
    // Every answer's request id and security headers, in one hook (it runs for each request). A path
    // under the API that no route has gets the API's set too: its answer is the envelope's 404. The
    // API's documentation is pages.
    const apiAnswer = (url: string) => url.startsWith(API_BASE) && !url.startsWith(API_DOCS)
    app.addHook('onRequest', (request, reply, done) => {
      const route = request.routeOptions.config
      reply
        .header('x-request-id', request.id)
        .headers(
          route.jsonAnswer === true
            ? jsonHeaders
            : route.assetAnswer === true
              ? assetHeaders
              : apiAnswer(request.url)
                ? apiHeaders
                : headers,
        )
      done()
    })
    const compression = { threshold: 1024, encodings: ['br', 'gzip'] as ('br' | 'gzip')[] }
    // API answers are made per request: brotli at quality 1 compresses a few KB of JSON about as well
    // as at 4 (the default, kept for pages) in a quarter of the time. Set before the plugin reads it.
    app.addHook('onRoute', (route) => {
      if (route.url.startsWith(API_BASE) && route.compress === undefined)
        route.compress = {
          ...compression,
          brotliOptions: {
            params: {
              [zlib.constants.BROTLI_PARAM_MODE]: zlib.constants.BROTLI_MODE_TEXT,
              [zlib.constants.BROTLI_PARAM_QUALITY]: 1,
            },
          },
        }
    })
    await app.register(compress, { global: true, ...compression })
    await app.register(rateLimit, {
      global: true,
      max: config.limits.globalPerMinute,
      timeWindow: '1 minute',
      // The budget guards the API; pages and hashed assets are static and cheap (and CDN-cacheable).
      allowList: (request) => !request.url.startsWith(API_BASE),
      errorResponseBuilder: (_request, context) =>
        rateLimited(`Too many requests. Please wait ${context.after} and try again.`, context.ttl / 1000),
    })
  },
  { name: 'security' },
)
