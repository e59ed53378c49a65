// The limiter's decorator (app.rateLimit), registered by plugins/security.ts.
import type {} from '@fastify/rate-limit'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import type { z } from 'zod'
import { type CachedJson, cachedAnswer, cachedJson, cachedJsonKeeper, sendCachedJson } from './cached-json'
import { envelope } from './envelope'
// The lane's decorator (app.hotLane, made by app.ts): declared where the lane is, for projects that
// compile this file without app.ts (bench, scripts).
import type {} from './hot-lane'
import { HOT_ROUTE } from './hot-route'

/** "What you served is out of date": a service raises it, the cached routes built on it listen. */
export interface Invalidation {
  invalidate(): void
  subscribe(listener: () => void): void
}

export function createInvalidation(): Invalidation {
  const listeners: (() => void)[] = []
  return {
    invalidate: () => {
      for (const listener of listeners) listener()
    },
    subscribe: (listener) => {
      listeners.push(listener)
    },
  }
}

/**
 * A public JSON answer served from memory (plans, prices, the record). The service gives the value
 * (`load`) and says when it changed (`invalidatedBy`); this owns the rest: the envelope serialized
 * through the response schema once per change, the strong ETag and 304s, the precompressed bodies
 * (lib/cached-json.ts), a copy kept for at most `ttlMs` (other instances' changes arrive within it),
 * one load at a time however many requests wait for it, and the fresh copy answered by the hot lane.
 */
export function cachedJsonRoute<Data extends z.ZodType>(
  app: FastifyInstance,
  route: {
    url: string
    tags: string[]
    summary: string
    data: Data
    load: () => Promise<z.input<Data>>
    ttlMs: number
    cacheControl: string
    invalidatedBy?: Invalidation
    /** Requests the shared copy cannot answer (a query that narrows it): served one by one, uncached. */
    perRequest?: {
      querystring: z.ZodType
      applies: (request: FastifyRequest) => boolean
      load: (request: FastifyRequest) => Promise<z.input<Data>>
    }
  },
): void {
  const schema = envelope(route.data)
  const serialize = (value: z.input<Data>) => JSON.stringify(schema.parse({ success: true, data: value }))
  const keep = cachedJsonKeeper()
  let copy: { body: CachedJson; at: number } | undefined
  let loading: Promise<CachedJson> | undefined
  let generation = 0
  route.invalidatedBy?.subscribe(() => {
    copy = undefined
    generation += 1
  })

  /** The shared copy while it is fresh; undefined when it must be loaded (again). */
  const fresh = (): CachedJson | undefined =>
    copy && Date.now() - copy.at < route.ttlMs ? copy.body : undefined
  const load = (): Promise<CachedJson> => {
    loading ??= (async () => {
      const started = generation
      try {
        // An unchanged value keeps its bytes, ETag and compressed copies: only a change re-hashes.
        const body = keep(serialize(await route.load()))
        // A change announced while loading makes this copy stale at once: the next request loads again.
        copy = { body, at: started === generation ? Date.now() : 0 }
        return body
      } finally {
        loading = undefined
      }
    })()
    return loading
  }

  // The shared copy costs less than limiting it; answers made per request keep the per-address API
  // budget (the global limit's own store). Only those pay for the limiter: a route-level limit would
  // run its hook, key and store lookup for every request of the shared copy too.
  const perRequest = route.perRequest
  const limit = perRequest ? app.rateLimit() : undefined
  app.get(
    route.url,
    {
      ...HOT_ROUTE,
      ...(perRequest && limit
        ? {
            // A callback, not an async function: the shared copy's requests pass without a promise.
            onRequest: (request: FastifyRequest, reply: FastifyReply, done: (error?: Error) => void) => {
              if (!perRequest.applies(request)) return done()
              limit.call(app, request, reply).then(() => done(), done)
            },
          }
        : {}),
      schema: {
        tags: route.tags,
        summary: route.summary,
        ...(route.perRequest ? { querystring: route.perRequest.querystring } : {}),
        response: { 200: schema },
      },
    },
    // Not an async function: a fresh shared copy is sent at once, without a promise per request.
    (request, reply) => {
      if (perRequest?.applies(request) === true)
        return perRequest
          .load(request)
          .then((value) =>
            sendCachedJson(request, reply, cachedJson(serialize(value), { once: false }), route.cacheControl),
          )
      const body = fresh()
      if (body) {
        sendCachedJson(request, reply, body, route.cacheControl)
        return
      }
      return load().then((loaded) => sendCachedJson(request, reply, loaded, route.cacheControl))
    },
  )
  // While the shared copy is fresh, a plain GET of it is answered before Fastify (lib/hot-lane.ts);
  // everything else (a query, a stale copy, HEAD) comes to the handler above.
  app.hotLane.add(`${app.prefix}${route.url}`, (headers) => {
    const body = fresh()
    return body && cachedAnswer(headers, body, route.cacheControl)
  })
}
