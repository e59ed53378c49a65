import http, { type IncomingHttpHeaders, type IncomingMessage, type ServerResponse } from 'node:http'
import type { FastifyServerOptions } from 'fastify'
import type { CachedAnswer } from './cached-json'
import { handSampledToFastify, sampledSuccess } from './hot-route'
import { requestId } from './request-id'

/** A route's answer from memory for these request headers, or undefined when it has no fresh copy. */
export type LaneAnswer = (headers: IncomingHttpHeaders) => CachedAnswer | undefined

type Observer = (method: string, route: string, status: number, seconds: number) => void

export interface HotLane {
  /** Answers GET `route` (a full path, also with a trailing slash, no query) from `answer`. */
  add(route: string, answer: LaneAnswer): void
  /** Fastify's `serverFactory`: the HTTP server, its requests offered to the lane before Fastify. */
  serverFactory(
    fastify: (request: IncomingMessage, response: ServerResponse) => void,
    options: unknown,
  ): http.Server
  /** Every answer the lane sends is observed here too (the request metrics). */
  observe(observer: Observer): void
  /** From the start of a close every request goes through Fastify, which answers it with Connection: close. */
  stop(): void
}

/**
 * The hot lane: the server's request listener answers the public JSON held in memory (plans, prices,
 * the record; lib/cached-route.ts) itself, before Fastify routes the request. Those answers are bytes
 * made once per change, and Fastify's request and reply objects, hooks and header handling cost more
 * than the answer (about 1.75× a bare Fastify route's CPU, measured: docs/decisions/015). The lane
 * sends the same answer Fastify would (cachedAnswer, the JSON answer's security headers, a request id)
 * and hands Fastify every request it cannot answer exactly that way: not a plain GET of the route's
 * path, a query string, no fresh copy (Fastify loads it), a closing server, and the one success in a
 * hundred that is logged (lib/hot-route.ts), so the request log keeps one shape.
 */
export function createHotLane(options: { securityHeaders: Record<string, string> }): HotLane {
  const routes = new Map<string, { route: string; answer: LaneAnswer }>()
  const security = options.securityHeaders
  let observer: Observer | undefined
  let open = true

  /** True when the lane sent the answer; false hands the request to Fastify untouched. */
  const answered = (request: IncomingMessage, response: ServerResponse): boolean => {
    if (!open || request.method !== 'GET') return false
    const entry = routes.get(request.url ?? '')
    if (!entry) return false
    const started = observer ? performance.now() : 0
    const answer = entry.answer(request.headers)
    if (!answer) return false
    if (sampledSuccess(entry.route)) {
      handSampledToFastify(request)
      return false
    }
    const headers: http.OutgoingHttpHeaders = {
      'x-request-id': requestId(request.headers),
      ...security,
      ...answer.headers,
    }
    if (answer.body) headers['content-length'] = answer.body.length
    response.writeHead(answer.status, headers)
    response.end(answer.body)
    observer?.('GET', entry.route, answer.status, (performance.now() - started) / 1000)
    return true
  }

  return {
    add(route, answer) {
      routes.set(route, { route, answer })
      routes.set(`${route}/`, { route, answer })
    },
    serverFactory(fastify, serverOptions) {
      const settings = serverOptions as Required<
        Pick<FastifyServerOptions, 'keepAliveTimeout' | 'requestTimeout' | 'connectionTimeout'>
      > & { http?: http.ServerOptions; maxRequestsPerSocket?: number }
      const server = http.createServer(settings.http ?? {}, (request, response) => {
        if (!answered(request, response)) fastify(request, response)
      })
      // What Fastify sets on a server it makes itself (fastify/lib/server.js), from the same options.
      server.keepAliveTimeout = settings.keepAliveTimeout
      server.requestTimeout = settings.requestTimeout
      server.setTimeout(settings.connectionTimeout)
      if (settings.maxRequestsPerSocket && settings.maxRequestsPerSocket > 0)
        server.maxRequestsPerSocket = settings.maxRequestsPerSocket
      return server
    },
    observe(next) {
      observer = next
    },
    stop() {
      open = false
    },
  }
}

declare module 'fastify' {
  interface FastifyInstance {
    /** The hot lane (lib/hot-lane.ts): cached public JSON answered before Fastify routes the request. */
    hotLane: HotLane
  }
}
