import type { IncomingMessage } from 'node:http'
import type { FastifyBaseLogger, FastifyReply, FastifyRequest } from 'fastify'

/** One successful answer in this many is logged; every other outcome is logged each time. */
export const HOT_LOG_SAMPLE = 100

/**
 * Successes so far, by route (its URL pattern: a handful of keys), so each route has its own line per
 * hundred: a shared count let a busy route's successes take every sampled line from a quiet one.
 */
const answered = new Map<string | undefined, number>()

/** Counts a plain success of `route`: true for the one in HOT_LOG_SAMPLE that is logged. */
export function sampledSuccess(route: string | undefined): boolean {
  const count = (answered.get(route) ?? 0) + 1
  answered.set(route, count % HOT_LOG_SAMPLE)
  return count >= HOT_LOG_SAMPLE
}

/**
 * Requests the hot lane (lib/hot-lane.ts) counted as their route's sampled success and handed to
 * Fastify, so that the one line of the hundred is written here, in the same shape as every other.
 */
const sampledByLane = new WeakSet<IncomingMessage>()
export function handSampledToFastify(request: IncomingMessage): void {
  sampledByLane.add(request)
}

/**
 * The request log of a hot route: one line (not Fastify's two) for every answer that is not a plain
 * success, and for one success in HOT_LOG_SAMPLE of each route, carrying how many it stands for.
 * Security events are never raised on these routes, so nothing an operator searches for is sampled
 * away.
 */
function sampledRequestLog(request: FastifyRequest, reply: FastifyReply, done: () => void) {
  const status = reply.statusCode
  const plain = status === 200 || status === 304
  // A success the hot lane counted as its route's sampled one was handed here to be logged.
  if (plain && !sampledByLane.has(request.raw) && !sampledSuccess(request.routeOptions.url)) return done()
  request.server.log.info(
    {
      reqId: request.id,
      req: { method: request.method, url: request.url, ip: request.ip },
      res: { statusCode: status },
      responseTime: Math.round(reply.elapsedTime * 10) / 10,
      ...(plain ? { sampled: HOT_LOG_SAMPLE } : {}),
    },
    'request completed',
  )
  done()
}

/**
 * One logger at `warn` shared by every request of the hot routes, instead of a child logger made per
 * request (binding the request id costs more than serving the answer). Their errors still carry the
 * request id in the line sampledRequestLog writes for every answer that is not a plain success.
 */
const quiet = new WeakMap<FastifyBaseLogger, FastifyBaseLogger>()
function sharedQuietLogger(logger: FastifyBaseLogger): FastifyBaseLogger {
  let shared = quiet.get(logger)
  if (!shared) {
    shared = logger.child({}, { level: 'warn' })
    quiet.set(logger, shared)
  }
  return shared
}

/**
 * The request log of a read every open dashboard makes (the member's profile, access, payments):
 * sampled as above, with one shared logger. Each success was two info lines with redaction, about a
 * sixth of the request's CPU; every refusal, failure and security event is still logged each time.
 */
export const SAMPLED_LOG = {
  logLevel: 'warn',
  childLoggerFactory: sharedQuietLogger,
  onResponse: sampledRequestLog,
} as const

/**
 * Route options for public answers served from memory (plans, prices, the record). Limiting them
 * costs more than serving them, they compress once per change (lib/cached-json.ts) rather than per
 * request, and their request log is sampled; see docs/decisions/004 and 015.
 */
export const HOT_ROUTE = {
  // jsonAnswer: only the security headers a JSON answer needs (plugins/security.ts).
  config: { rateLimit: false, jsonAnswer: true },
  compress: false,
  // A GET has no body to inflate: no request-decompression hook either.
  decompress: false,
  ...SAMPLED_LOG,
} as const
