import { type ServerResponse, STATUS_CODES } from 'node:http'
import type { APIGuildMember, APIUser } from 'discord-api-types/v10'
import { parseJson, type RequestContext, type Router, sendJson, sendText } from '../http'
import { type ApiRoute, createApi, matchRoute, validateParams } from './api'
import { mountDiscordConsentPage } from './consent-page'
import {
  DiscordError,
  invalidApiVersion,
  invalidJson,
  methodNotAllowed,
  notFound,
  unauthorized,
  unknownBan,
} from './errors'
import { type FormPart, isMultipart, parseMultipart } from './multipart'
import { type AccessToken, OAuth2 } from './oauth2'
import { type DiscordFault, RateLimiter, type RateLimitOptions, rateLimitedResponse } from './rate-limit'
import { isSnowflake } from './snowflake'
import {
  type AddMemberInput,
  type DiscordConfig,
  type DiscordOptions,
  type DiscordState,
  DiscordStore,
  type JoinInput,
  type UserInput,
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
  /** Moves the emulated clock (invite expiry, OAuth2 code and token lifetimes) forward. */
  advanceTime(seconds: number): void
  /** Creates a Discord user who is not in the guild (or updates one by username). */
  createUser(input: UserInput): APIUser
  /** The Discord users the emulator knows (bots left out), oldest first. */
  users(): APIUser[]
  /** The user the OAuth2 consent page shows from now on, in every browser, until one switches. */
  signIn(userId: string): void
  /** Registered redirect URIs (exact match), or 'loopback' for any http://127.0.0.1:<port> or localhost URI. */
  setRedirectUris(uris: string[] | 'loopback'): void
  /** Bans a user as the guild's moderators would (no bot permission needed); unban lifts it. */
  ban(userId: string, reason?: string | null): void
  unban(userId: string): void
  /** The guild's member cap; a cap at or below the member count makes the guild full (30019). */
  setMaxMembers(maxMembers: number): void
  /** A member as GET /guilds/:id/members/:userId returns it (roles included); 10007 when not in the guild. */
  member(userId: string): APIGuildMember
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

const UNVERSIONED_PATHS = new Set(['/oauth2/token', '/users/@me'])

/** The request log is readable by tests and the demo: OAuth2 tokens in bodies are masked. */
function withoutSecrets(body: unknown): unknown {
  if (!body || typeof body !== 'object' || Array.isArray(body) || !('access_token' in body)) return body
  return { ...body, access_token: '[redacted]' }
}

function send(res: ServerResponse, status: number, body: unknown, headers: Record<string, string>): void {
  if (status === 204) {
    if (res.headersSent) return
    res.writeHead(204, headers)
    res.end()
    return
  }
  // A few routes answer files (the target users CSV); everything else is JSON.
  if (typeof body === 'string' && headers['content-type']) {
    const { 'content-type': contentType, ...rest } = headers
    sendText(res, status, body, contentType, rest)
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
  const oauth = new OAuth2(store)
  const routes: ApiRoute[] = createApi(store, oauth)

  const handleApi = ({ req, res, url, rawBody }: RequestContext) => {
    const method = (req.method ?? 'GET').toUpperCase()
    const [, version, rest] = /^\/discord\/api(?:\/v(\d+))?(\/.*)?$/.exec(url.pathname) ?? []
    // @discordjs/rest sends `@me` percent-encoded (/users/%40me); Discord reads it as @me.
    const path = (rest ?? '/').replace(/%40/gi, '@')
    const reason = decodeReason(req.headers['x-audit-log-reason'])
    const contentType = req.headers['content-type']
    const isForm = /^application\/x-www-form-urlencoded\b/i.test(contentType ?? '')
    // OAuth2 endpoints read form bodies only; a JSON body there counts as no parameters.
    const form = new URLSearchParams(isForm ? rawBody.toString('utf8') : '')
    let body: unknown = null
    let bodyError: DiscordError | undefined
    const files = new Map<string, FormPart>()
    if (isMultipart(contentType)) {
      // Requests with files: the JSON parameters come in `payload_json`, other fields as text.
      try {
        const fields: Record<string, unknown> = {}
        for (const part of parseMultipart(rawBody, contentType ?? '')) {
          if (part.filename !== undefined) files.set(part.name, part)
          else if (part.name === 'payload_json') Object.assign(fields, parseJson(part.data))
          else fields[part.name] = part.data.toString('utf8')
        }
        body = fields
      } catch {
        bodyError = invalidJson()
      }
    } else if (!isForm) {
      try {
        body = rawBody.length > 0 ? parseJson(rawBody) : null
      } catch {
        bodyError = invalidJson()
      }
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
        body: withoutSecrets(body),
        forced,
      })
      send(res, status, payload, headers)
    }
    const fail = (error: DiscordError, headers: Record<string, string> = {}) =>
      reply(error.status, error.body(), headers)

    // The token URL and /users/@me also answer without a version, as Discord's OAuth2 docs use them.
    const versionOk =
      version === undefined ? UNVERSIONED_PATHS.has(path.replace(/\/$/, '')) : version === '10'
    if (!versionOk) return fail(invalidApiVersion())
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
    const authorization = req.headers.authorization
    const isBot = authorization === `Bot ${store.config.botToken}`
    let bearer: AccessToken | undefined
    if (route.auth === 'bot-or-bearer' && authorization?.startsWith('Bearer ')) {
      bearer = oauth.accessToken(authorization.slice('Bearer '.length))
      if (!bearer) return fail(unauthorized(), outcome.headers)
    } else if (route.auth !== 'client' && !isBot) {
      return fail(unauthorized(), outcome.headers)
    }

    try {
      validateParams(params)
      if (bodyError) throw bodyError
      const json =
        body && typeof body === 'object' && !Array.isArray(body) ? (body as Record<string, unknown>) : {}
      const result = route.handler({
        params,
        query: url.searchParams,
        body: json,
        files,
        form,
        authorization,
        bearer,
        reason,
      })
      reply(result.status, result.body, { ...outcome.headers, ...result.headers })
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
    createUser: (input) => store.upsertUser(input),
    users: () => structuredClone(store.people()),
    signIn: (userId) => {
      const account = store.users.get(userId)
      if (!account || account.bot) throw new Error(`discord emulator: no Discord user ${userId}`)
      oauth.signedInUserId = userId
      oauth.sessionGeneration += 1
    },
    setRedirectUris: (uris) => {
      if (uris !== 'loopback') {
        if (!Array.isArray(uris))
          throw new Error("discord emulator: redirectUris must be a list of URLs or 'loopback'")
        for (const uri of uris)
          if (!URL.canParse(uri)) throw new Error(`discord emulator: "${uri}" is not a URL`)
      }
      store.config.redirectUris = uris
    },
    ban: (userId, reason = null) => {
      if (!isSnowflake(userId)) throw new Error(`discord emulator: userId "${userId}" is not a snowflake`)
      if (userId === store.config.botUserId || userId === store.config.ownerUserId)
        throw new Error('discord emulator: the bot and the owner cannot be banned')
      store.ban(userId, reason)
    },
    unban: (userId) => {
      if (!store.bans.delete(userId)) throw unknownBan()
    },
    setMaxMembers: (maxMembers) => {
      if (!Number.isInteger(maxMembers) || maxMembers < 1)
        throw new Error('discord emulator: maxMembers must be a positive integer')
      store.maxMembers = maxMembers
    },
    member: (userId) => store.memberObject(userId),
    state: () => store.state(),
    reset: () => {
      store.reset()
      oauth.reset()
      limiter.reset()
    },
  }

  mountDiscordConsentPage(router, store, oauth)
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
      authorizeUrl: `http://${req.headers.host ?? 'localhost'}/discord/oauth2/authorize`,
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
  router.on(
    'GET',
    `${base}/users`,
    guarded(() => control.users()),
  )
  router.on(
    'POST',
    `${base}/users`,
    guarded((_ctx, body) => control.createUser(body as unknown as UserInput)),
  )
  router.on(
    'POST',
    `${base}/oauth2/sign-in`,
    guarded((_ctx, body) => control.signIn(String(body.userId ?? ''))),
  )
  router.on(
    'POST',
    `${base}/oauth2/redirect-uris`,
    guarded((_ctx, body) => control.setRedirectUris(body.redirectUris as string[] | 'loopback')),
  )
  router.on(
    'POST',
    `${base}/bans`,
    guarded((_ctx, body) =>
      control.ban(String(body.userId ?? ''), typeof body.reason === 'string' ? body.reason : null),
    ),
  )
  router.on(
    'DELETE',
    `${base}/bans/:userId`,
    guarded(({ params }) => control.unban(params.userId ?? '')),
  )
  router.on(
    'POST',
    `${base}/guild/max-members`,
    guarded((_ctx, body) => control.setMaxMembers(Number(body.maxMembers))),
  )
  router.on(
    'GET',
    `${base}/members/:userId`,
    guarded(({ params }) => control.member(params.userId ?? '')),
  )
}
