import { type ServerResponse, STATUS_CODES } from 'node:http'
import type { APIGuildMember } from 'discord-api-types/v10'
import { parseJson, type RequestContext, type Router, sendJson } from '../http'
import { type ApiRoute, createApi, matchRoute, validateParams } from './api'
import {
  DiscordError,
  invalidApiVersion,
  invalidJson,
  methodNotAllowed,
  notFound,
  unauthorized,
} from './errors'
import { type DiscordFault, RateLimiter, type RateLimitOptions, rateLimitedResponse } from './rate-limit'
import {
  type AddMemberInput,
  type DiscordConfig,
  type DiscordOptions,
  type DiscordState,
  DiscordStore,
  type JoinInput,
} from './state'

/**
 * Discord's REST API v10 under /discord/api, for the real @discordjs/rest client, plus the
 * /_control/discord routes tests and the demo use to act as Discord users and to break things.
 */

export interface DiscordEmulatorOptions extends DiscordOptions {
  rateLimit?: RateLimitOptions
}

export interface DiscordControl {
  /** The seeded ids and the bot token the app must be configured with. */
  readonly config: DiscordConfig
  /** Makes the next `count` matching API requests answer 429 (waiting `retryAfter` s) or a 5xx. */
  failNext(fault: DiscordFault): void
  clearFaults(): void
  /** A user accepts an invite. Throws DiscordError (10006 Unknown Invite, 40007 banned) when refused. */
  join(input: JoinInput): APIGuildMember
  /** Puts a user in the guild without an invite (someone who was already there). */
  addMember(input: AddMemberInput): APIGuildMember
  /** The user leaves the guild. */
  removeMember(userId: string): void
  /** Makes an invite expire now, as if its max_age had passed. */
  expireInvite(code: string): void
  /** Moves the emulated clock (invite expiry) forward. */
  advanceTime(seconds: number): void
  state(): DiscordState
  reset(): void
}

const API_PREFIX = '/discord/api'
const METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE']
/** Deep enough for the longest route (/v10/guilds/:g/members/:u/roles/:r) plus room for unknown ones. */
const MAX_DEPTH = 9

function decodeReason(header: string | string[] | undefined): string | null {
  const raw = Array.isArray(header) ? header[0] : header
  if (raw === undefined || raw === '') return null
  try {
    // @discordjs/rest (like Discord's docs ask) URL-encodes the reason.
    return decodeURIComponent(raw)
  } catch {
    return raw
  }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  if (status === 204) {
    if (res.headersSent) return
    res.writeHead(204, headers)
    res.end()
    return
  }
  sendJson(res, status, body, headers)
}

export function mountDiscord(router: Router, options: DiscordEmulatorOptions = {}): DiscordControl {
  const store = new DiscordStore(options)
  const limiter = new RateLimiter(
    options.rateLimit?.limit ?? 50,
    (options.rateLimit?.windowSeconds ?? 1) * 1000,
  )
  const routes: ApiRoute[] = createApi(store)

  const handleApi = ({ req, res, url, rawBody }: RequestContext) => {
    const method = (req.method ?? 'GET').toUpperCase()
    const [, version, rest] = /^\/discord\/api(?:\/v(\d+))?(\/.*)?$/.exec(url.pathname) ?? []
    // @discordjs/rest sends `@me` percent-encoded (/users/%40me); Discord reads it as @me.
    const path = (rest ?? '/').replace(/%40/gi, '@')
    const reason = decodeReason(req.headers['x-audit-log-reason'])
    let body: unknown = null
    let bodyError: DiscordError | undefined
    try {
      body = rawBody.length > 0 ? parseJson(rawBody) : null
    } catch {
      bodyError = invalidJson()
    }

    let routeName: string | null = null
    const reply = (status: number, payload: unknown, headers: Record<string, string>, forced = false) => {
      const code =
        payload && typeof payload === 'object' && 'code' in payload && typeof payload.code === 'number'
          ? payload.code
          : null
      store.record({
        method,
        path,
        route: routeName,
        query: url.search,
        status,
        code: status >= 400 ? code : null,
        reason,
        body,
        forced,
      })
      send(res, status, payload, headers)
    }
    const fail = (error: DiscordError, headers: Record<string, string> = {}) =>
      reply(error.status, error.body(), headers)

    if (version !== '10') return fail(invalidApiVersion())
    const found = matchRoute(routes, method, path)
    if (found === undefined) return fail(notFound())
    if (found === 'method-not-allowed') return fail(methodNotAllowed())
    const { route, params } = found
    routeName = `${route.method} ${route.template}`
    // Discord keys buckets by route and its major parameter (guild or channel).
    const major = params.guildId ?? params.channelId ?? 'global'

    const fault = limiter.takeFault(method, path)
    if (fault?.status === 429) {
      const headers = limiter.block(route.hash, major, fault.retryAfter, fault.global)
      const limited = rateLimitedResponse({
        retryAfter: fault.retryAfter,
        global: fault.global,
        scope: fault.scope,
      })
      return reply(429, limited.body, { ...headers, ...limited.headers }, true)
    }
    const outcome = limiter.take(route.hash, major)
    if (fault) {
      const text = STATUS_CODES[fault.status] ?? 'Server Error'
      return reply(fault.status, { message: `${fault.status}: ${text}`, code: 0 }, outcome.headers, true)
    }
    if (outcome.limited) {
      const limited = rateLimitedResponse(outcome.limited)
      return reply(429, limited.body, { ...outcome.headers, ...limited.headers })
    }
    if (req.headers.authorization !== `Bot ${store.config.botToken}`)
      return fail(unauthorized(), outcome.headers)

    try {
      validateParams(params)
      if (bodyError) throw bodyError
      const json =
        body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
      const result = route.handler({ params, query: url.searchParams, body: json, reason })
      reply(result.status, result.body, outcome.headers)
    } catch (error) {
      if (error instanceof DiscordError) return fail(error, outcome.headers)
      // An emulator bug, not an emulated outage: say so rather than pose as Discord.
      reply(
        500,
        { message: `emulator: ${error instanceof Error ? error.message : String(error)}`, code: 0 },
        {},
      )
    }
  }

  // The shared Router has no wildcard, so every depth under /discord/api goes to one dispatcher that
  // can answer Discord's own 404/405 bodies for paths it does not know.
  for (let depth = 1; depth <= MAX_DEPTH; depth += 1) {
    const path = `${API_PREFIX}${Array.from({ length: depth }, (_, index) => `/:${String.fromCharCode(97 + index)}`).join('')}`
    for (const method of METHODS) router.on(method, path, handleApi)
  }

  const control: DiscordControl = {
    config: store.config,
    failNext: (fault) => limiter.addFault(fault),
    clearFaults: () => limiter.clearFaults(),
    join: (input) => store.join(input),
    addMember: (input) => store.addMember(input),
    removeMember: (userId) => store.removeMember(userId),
    expireInvite: (code) => store.expireInvite(code),
    advanceTime: (seconds) => store.advanceTime(seconds),
    state: () => store.state(),
    reset: () => {
      store.reset()
      limiter.reset()
    },
  }

  mountDiscordControl(router, control, limiter)
  return control
}

function mountDiscordControl(router: Router, control: DiscordControl, limiter: RateLimiter): void {
  const base = '/_control/discord'
  const guarded =
    (action: (ctx: RequestContext, body: Record<string, unknown>) => unknown) => (ctx: RequestContext) => {
      try {
        const parsed = ctx.rawBody.length > 0 ? parseJson(ctx.rawBody) : {}
        const body = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {}
        const result = action(ctx, body)
        sendJson(ctx.res, 200, result ?? { ok: true })
      } catch (error) {
        if (error instanceof DiscordError) return sendJson(ctx.res, error.status, error.body())
        sendJson(ctx.res, 400, { error: error instanceof Error ? error.message : String(error) })
      }
    }

  router.on(
    'GET',
    `${base}/state`,
    guarded(() => control.state()),
  )
  router.on(
    'GET',
    `${base}/config`,
    guarded(({ req }) => ({
      ...control.config,
      apiBase: `http://${req.headers.host ?? 'localhost'}${API_PREFIX}`,
    })),
  )
  router.on(
    'POST',
    `${base}/reset`,
    guarded(() => control.reset()),
  )
  router.on(
    'GET',
    `${base}/faults`,
    guarded(() => limiter.pendingFaults()),
  )
  router.on(
    'POST',
    `${base}/faults`,
    guarded((_ctx, body) => control.failNext(body as unknown as DiscordFault)),
  )
  router.on(
    'DELETE',
    `${base}/faults`,
    guarded(() => control.clearFaults()),
  )
  router.on(
    'POST',
    `${base}/join`,
    guarded((_ctx, body) => control.join(body as unknown as JoinInput)),
  )
  router.on(
    'POST',
    `${base}/members`,
    guarded((_ctx, body) => control.addMember(body as unknown as AddMemberInput)),
  )
  router.on(
    'DELETE',
    `${base}/members/:userId`,
    guarded(({ params }) => control.removeMember(params.userId ?? '')),
  )
  router.on(
    'POST',
    `${base}/invites/:code/expire`,
    guarded(({ params }) => control.expireInvite(params.code ?? '')),
  )
  router.on(
    'POST',
    `${base}/clock`,
    guarded((_ctx, body) => control.advanceTime(Number(body.seconds ?? 0))),
  )
}
