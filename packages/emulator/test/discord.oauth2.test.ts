import { createHash } from 'node:crypto'
import { DiscordAPIError, HTTPError, REST } from '@discordjs/rest'
import {
  type APIGuildMember,
  type APIUser,
  type RESTPostOAuth2AccessTokenResult,
  Routes,
} from 'discord-api-types/v10'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Emulator, startEmulator } from '../src/server'

/**
 * "Connect Discord" against the emulator over plain HTTP: the consent form, the code exchanged with
 * the official @discordjs/rest client, the user read with their token, and the bot adding them to
 * the guild with the member role. Then every way Discord says no.
 */

const REDIRECT = 'http://127.0.0.1:3000/api/discord/callback'

let emulator: Emulator
let bot: REST
const clients: REST[] = []

const cfg = () => emulator.discord.config

function client(
  token: string,
  authPrefix: 'Bot' | 'Bearer' = 'Bot',
  options: { retries?: number } = {},
): REST {
  const created = new REST({
    version: '10',
    api: `${emulator.url}/discord/api`,
    authPrefix,
    ...options,
  }).setToken(token)
  clients.push(created)
  return created
}

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 })
})

beforeEach(() => {
  emulator.discord.reset()
  emulator.discord.setRedirectUris('loopback')
  bot = client(cfg().botToken)
})

afterEach(() => {
  for (const created of clients.splice(0)) {
    created.clearHashSweeper()
    created.clearHandlerSweeper()
  }
})

afterAll(async () => {
  await emulator.close()
})

function authorizeQuery(overrides: Record<string, string | null> = {}): URLSearchParams {
  const params: Record<string, string | null> = {
    response_type: 'code',
    client_id: cfg().clientId,
    scope: 'identify guilds.join',
    state: 'state-123',
    redirect_uri: REDIRECT,
    prompt: 'consent',
    ...overrides,
  }
  const query = new URLSearchParams()
  for (const [key, value] of Object.entries(params)) if (value !== null) query.set(key, value)
  return query
}

const authorizePage = (query: URLSearchParams, headers: Record<string, string> = {}) =>
  fetch(`${emulator.url}/discord/oauth2/authorize?${query}`, { redirect: 'manual', headers })

/** Presses Authorize (or Cancel) on the consent form, as the browser posts it. */
async function decide(decision: 'authorize' | 'cancel', query = authorizeQuery()): Promise<Response> {
  return fetch(`${emulator.url}/discord/oauth2/authorize`, {
    method: 'POST',
    redirect: 'manual',
    headers: { 'content-type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams([...query.entries(), ['decision', decision]]),
  })
}

async function authorizedCode(query = authorizeQuery()): Promise<string> {
  const answer = await decide('authorize', query)
  expect(answer.status).toBe(302)
  const code = new URL(answer.headers.get('location') ?? '').searchParams.get('code')
  if (!code) throw new Error('no code in the redirect')
  return code
}

/** The token request as @discordjs/core sends it: a form body, client credentials in it, no bot token. */
function exchange(form: Record<string, string>) {
  return bot.post(Routes.oauth2TokenExchange(), {
    auth: false,
    passThroughBody: true,
    body: new URLSearchParams(form),
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
  }) as Promise<RESTPostOAuth2AccessTokenResult>
}

const codeGrant = (code: string, extra: Record<string, string> = {}) => ({
  grant_type: 'authorization_code',
  code,
  redirect_uri: REDIRECT,
  client_id: cfg().clientId,
  client_secret: cfg().clientSecret,
  ...extra,
})

async function tokenFor(query = authorizeQuery()): Promise<RESTPostOAuth2AccessTokenResult> {
  return exchange(codeGrant(await authorizedCode(query)))
}

/** A raw token request, to read Discord's OAuth2 error bodies and statuses. */
function tokenRequest(form: Record<string, string>, headers: Record<string, string> = {}) {
  return fetch(`${emulator.url}/discord/api/v10/oauth2/token`, {
    method: 'POST',
    headers: { 'content-type': 'application/x-www-form-urlencoded', ...headers },
    body: new URLSearchParams(form),
  })
}

const addMember = (userId: string, body: Record<string, unknown>) =>
  fetch(`${emulator.url}/discord/api/v10/guilds/${cfg().guildId}/members/${userId}`, {
    method: 'PUT',
    headers: { authorization: `Bot ${cfg().botToken}`, 'content-type': 'application/json' },
    body: JSON.stringify(body),
  })

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the request to fail')
}

const control = (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') =>
  fetch(`${emulator.url}/_control/discord${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

describe('connecting a Discord account', () => {
  it('authorizes, exchanges the code, reads the user and adds them with the member role (201, then 204)', async () => {
    const page = await authorizePage(authorizeQuery())
    expect(page.status).toBe(200)
    const html = await page.text()
    expect(html).toContain('EdgeClub wants to access your Discord account')
    expect(html).toContain('<strong>Jordan</strong> (@jordan)')
    expect(html).toContain('Access your username, avatar, and banner')
    expect(html).toContain('Join servers for you')

    const answer = await decide('authorize')
    expect(answer.status).toBe(302)
    const location = new URL(answer.headers.get('location') ?? '')
    expect(`${location.origin}${location.pathname}`).toBe(REDIRECT)
    expect(location.searchParams.get('state')).toBe('state-123')
    const code = location.searchParams.get('code') ?? ''
    expect(code).toMatch(/^[A-Za-z0-9]{30}$/)

    const token = await exchange(codeGrant(code))
    expect(token).toEqual({
      access_token: expect.stringMatching(/^[A-Za-z0-9]{30}$/),
      token_type: 'Bearer',
      expires_in: 604800,
      refresh_token: expect.stringMatching(/^[A-Za-z0-9]{30}$/),
      scope: 'identify guilds.join',
    })

    const me = (await client(token.access_token, 'Bearer').get(Routes.user())) as APIUser & { email?: string }
    expect(me).toMatchObject({
      id: cfg().signedInUserId,
      username: 'jordan',
      global_name: 'Jordan',
      discriminator: '0',
      avatar: null,
    })
    expect(me.email).toBeUndefined()

    const added = (await bot.put(Routes.guildMember(cfg().guildId, me.id), {
      body: { access_token: token.access_token, roles: [cfg().memberRoleId] },
    })) as APIGuildMember
    expect(added).toMatchObject({ user: { id: me.id, username: 'jordan' }, roles: [cfg().memberRoleId] })
    expect(emulator.discord.member(me.id).roles).toEqual([cfg().memberRoleId])

    const again = await addMember(me.id, { access_token: token.access_token, roles: [] })
    expect(again.status).toBe(204)
    expect(await again.text()).toBe('')
    // Already a member: Discord changes nothing, the role stays.
    const member = (await (await control(`/members/${me.id}`)).json()) as APIGuildMember
    expect(member.roles).toEqual([cfg().memberRoleId])
  })

  it('sends Cancel back as access_denied with the state', async () => {
    const answer = await decide('cancel')
    expect(answer.status).toBe(302)
    const location = new URL(answer.headers.get('location') ?? '')
    expect(Object.fromEntries(location.searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The resource owner or authorization server denied the request',
      state: 'state-123',
    })
  })

  it('takes client credentials by HTTP Basic too, and answers on the unversioned token URL', async () => {
    const code = await authorizedCode()
    const response = await fetch(`${emulator.url}/discord/api/oauth2/token`, {
      method: 'POST',
      headers: {
        'content-type': 'application/x-www-form-urlencoded',
        authorization: `Basic ${Buffer.from(`${cfg().clientId}:${cfg().clientSecret}`).toString('base64')}`,
      },
      body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: REDIRECT }),
    })
    expect(response.status).toBe(200)
    expect(response.headers.get('cache-control')).toBe('no-store')
    const token = (await response.json()) as RESTPostOAuth2AccessTokenResult
    const me = await fetch(`${emulator.url}/discord/api/users/@me`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    })
    expect(((await me.json()) as APIUser).username).toBe('jordan')
  })

  it('adds the email with the email scope, and refreshes tokens', async () => {
    const token = await tokenFor(authorizeQuery({ scope: 'identify email' }))
    const me = (await client(token.access_token, 'Bearer').get(Routes.user())) as APIUser
    expect(me).toMatchObject({ email: 'jordan@example.com', verified: true })

    const refreshed = await exchange({
      grant_type: 'refresh_token',
      refresh_token: token.refresh_token,
      client_id: cfg().clientId,
      client_secret: cfg().clientSecret,
    })
    expect(refreshed.scope).toBe('identify email')
    expect(refreshed.access_token).not.toBe(token.access_token)
    const old = await fetch(`${emulator.url}/discord/api/v10/users/@me`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    })
    expect(old.status).toBe(401)
  })

  it('skips the page with prompt=none once the user granted those scopes', async () => {
    const first = await authorizePage(authorizeQuery({ prompt: 'none' }))
    expect(first.status).toBe(200)
    await authorizedCode()
    const again = await authorizePage(authorizeQuery({ prompt: 'none' }))
    expect(again.status).toBe(302)
    expect(new URL(again.headers.get('location') ?? '').searchParams.get('code')).toMatch(/^[A-Za-z0-9]{30}$/)
  })

  it('keeps answering the bot on /users/@me, and 401 to a bad bearer token', async () => {
    expect(((await bot.get(Routes.user())) as APIUser).id).toBe(cfg().botUserId)
    const bad = await fetch(`${emulator.url}/discord/api/v10/users/@me`, {
      headers: { authorization: 'Bearer not-a-token' },
    })
    expect(bad.status).toBe(401)
    expect(await bad.json()).toEqual({ message: '401: Unauthorized', code: 0 })
    // A user's token is no bot token.
    const token = await tokenFor()
    const guild = await fetch(`${emulator.url}/discord/api/v10/guilds/${cfg().guildId}`, {
      headers: { authorization: `Bearer ${token.access_token}` },
    })
    expect(guild.status).toBe(401)
  })
})

describe('the authorize request', () => {
  it('shows an error page, never a redirect, for an unknown client or an unregistered redirect URI', async () => {
    for (const [query, message] of [
      [authorizeQuery({ client_id: '999999999999999999' }), 'Unknown Application'],
      [authorizeQuery({ redirect_uri: 'https://attacker.example/callback' }), 'Invalid OAuth2 redirect_uri'],
      [authorizeQuery({ redirect_uri: null }), 'Invalid OAuth2 redirect_uri'],
    ] as const) {
      const response = await authorizePage(query)
      expect(response.status).toBe(400)
      expect(response.headers.get('location')).toBeNull()
      expect(await response.text()).toContain(`<h1>${message}</h1>`)
      expect((await decide('authorize', query)).status).toBe(400)
    }
  })

  it('sends a bad response_type or an unknown scope back to the registered redirect URI', async () => {
    const errorOf = async (query: URLSearchParams) => {
      const response = await authorizePage(query)
      expect(response.status).toBe(302)
      return Object.fromEntries(new URL(response.headers.get('location') ?? '').searchParams)
    }
    expect(await errorOf(authorizeQuery({ scope: 'identify guilds.joinn' }))).toEqual({
      error: 'invalid_scope',
      error_description: 'The requested scope is invalid, unknown, or malformed.',
      state: 'state-123',
    })
    expect(await errorOf(authorizeQuery({ response_type: 'token' }))).toEqual({
      error: 'unsupported_response_type',
      state: 'state-123',
    })
    expect(await errorOf(authorizeQuery({ response_type: null }))).toMatchObject({ error: 'invalid_request' })
  })

  it('accepts only the registered redirect URIs once some are registered', async () => {
    const other = 'http://localhost:5173/api/discord/callback'
    expect((await authorizePage(authorizeQuery({ redirect_uri: other }))).status).toBe(200)
    expect((await control('/oauth2/redirect-uris', { redirectUris: [REDIRECT] })).status).toBe(200)
    expect((await authorizePage(authorizeQuery({ redirect_uri: other }))).status).toBe(400)
    expect((await authorizePage(authorizeQuery())).status).toBe(200)
  })
})

describe('the token exchange', () => {
  it('takes a code once', async () => {
    const code = await authorizedCode()
    await exchange(codeGrant(code))
    const reused = await rejection(exchange(codeGrant(code)))
    expect(reused).toBeInstanceOf(DiscordAPIError)
    expect(reused).toMatchObject({ status: 400, message: 'Invalid "code" in request.' })
    const raw = await tokenRequest(codeGrant(code))
    expect(await raw.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'Invalid "code" in request.',
    })
  })

  it('refuses a code after its lifetime', async () => {
    const code = await authorizedCode()
    emulator.discord.advanceTime(cfg().codeLifetimeSeconds + 1)
    const response = await tokenRequest(codeGrant(code))
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toBe('invalid_grant')
  })

  it('wants the redirect URI the code was issued for', async () => {
    const code = await authorizedCode()
    const response = await tokenRequest(codeGrant(code, { redirect_uri: 'http://127.0.0.1:3000/elsewhere' }))
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      error: 'invalid_request',
      error_description: 'Invalid "redirect_uri" in request.',
    })
  })

  it('answers 401 invalid_client to a wrong secret, and names missing or unsupported parameters', async () => {
    const code = await authorizedCode()
    const wrongSecret = await tokenRequest(codeGrant(code, { client_secret: 'guessed' }))
    expect(wrongSecret.status).toBe(401)
    expect(await wrongSecret.json()).toEqual({ error: 'invalid_client' })
    const wrongBasic = await tokenRequest(
      { grant_type: 'authorization_code', code, redirect_uri: REDIRECT },
      { authorization: `Basic ${Buffer.from(`${cfg().clientId}:guessed`).toString('base64')}` },
    )
    expect(wrongBasic.status).toBe(401)

    const password = await tokenRequest({ ...codeGrant(code), grant_type: 'password' })
    expect(password.status).toBe(400)
    expect(await password.json()).toEqual({ error: 'unsupported_grant_type' })
    const noCode = await tokenRequest(codeGrant(''))
    expect(await noCode.json()).toEqual({
      error: 'invalid_request',
      error_description: 'Missing code parameter.',
    })
    // Discord reads form bodies only.
    const json = await fetch(`${emulator.url}/discord/api/v10/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(codeGrant(code)),
    })
    expect(json.status).toBe(400)
    expect(await json.json()).toEqual({ error: 'unsupported_grant_type' })

    // None of that used the code up.
    expect((await exchange(codeGrant(code))).token_type).toBe('Bearer')
  })
})

describe('PKCE (RFC 7636, S256)', () => {
  const verifier = (seed: string) => createHash('sha256').update(seed).digest('base64url').padEnd(64, 'x')
  const challengeOf = (value: string) => createHash('sha256').update(value).digest('base64url')
  const withChallenge = (value: string) =>
    authorizeQuery({ code_challenge: challengeOf(value), code_challenge_method: 'S256' })

  it('binds the code to the challenge: only its verifier redeems it', async () => {
    const mine = verifier('mine')
    const code = await authorizedCode(withChallenge(mine))
    const token = await exchange(codeGrant(code, { code_verifier: mine }))
    expect(token.token_type).toBe('Bearer')
  })

  it('refuses a code issued for a challenge without its verifier, or with another, and spends it', async () => {
    const mine = verifier('mine')
    const missing = await tokenRequest(codeGrant(await authorizedCode(withChallenge(mine))))
    expect(missing.status).toBe(400)
    expect(await missing.json()).toEqual({
      error: 'invalid_grant',
      error_description: 'Invalid "code_verifier" in request.',
    })

    // Someone else's code, redeemed with their own verifier: refused, and the code is gone.
    const code = await authorizedCode(withChallenge(mine))
    const other = await tokenRequest(codeGrant(code, { code_verifier: verifier('theirs') }))
    expect(other.status).toBe(400)
    expect(((await other.json()) as { error: string }).error).toBe('invalid_grant')
    const after = await tokenRequest(codeGrant(code, { code_verifier: mine }))
    expect(((await after.json()) as { error_description: string }).error_description).toBe(
      'Invalid "code" in request.',
    )
    // The challenge itself is not a verifier.
    const code2 = await authorizedCode(withChallenge(mine))
    const sentChallenge = await tokenRequest(codeGrant(code2, { code_verifier: challengeOf(mine) }))
    expect(((await sentChallenge.json()) as { error: string }).error).toBe('invalid_grant')
  })

  it('refuses a verifier for a code that was issued without a challenge (no downgrade)', async () => {
    const code = await authorizedCode()
    const response = await tokenRequest(codeGrant(code, { code_verifier: verifier('mine') }))
    expect(response.status).toBe(400)
    expect(((await response.json()) as { error: string }).error).toBe('invalid_grant')
  })

  it('takes only S256 and well-formed challenges on the authorize request', async () => {
    const errorOf = async (query: URLSearchParams) => {
      const response = await authorizePage(query)
      expect(response.status).toBe(302)
      return Object.fromEntries(new URL(response.headers.get('location') ?? '').searchParams)
    }
    const challenge = challengeOf(verifier('mine'))
    expect(
      await errorOf(authorizeQuery({ code_challenge: challenge, code_challenge_method: 'plain' })),
    ).toMatchObject({
      error: 'invalid_request',
      state: 'state-123',
    })
    // RFC 7636 reads a missing method as plain.
    expect(await errorOf(authorizeQuery({ code_challenge: challenge }))).toMatchObject({
      error: 'invalid_request',
    })
    expect(await errorOf(authorizeQuery({ code_challenge_method: 'S256' }))).toMatchObject({
      error: 'invalid_request',
    })
    expect(
      await errorOf(authorizeQuery({ code_challenge: 'too-short', code_challenge_method: 'S256' })),
    ).toMatchObject({ error: 'invalid_request' })
    expect((await authorizePage(withChallenge(verifier('mine')))).status).toBe(200)
  })
})

describe('adding the member', () => {
  it('refuses a banned user with 40007', async () => {
    const token = await tokenFor()
    expect((await control('/bans', { userId: cfg().signedInUserId, reason: 'spam' })).status).toBe(200)
    const error = await rejection(
      bot.put(Routes.guildMember(cfg().guildId, cfg().signedInUserId), {
        body: { access_token: token.access_token, roles: [cfg().memberRoleId] },
      }),
    )
    expect(error).toMatchObject({ status: 403, code: 40007, message: 'The user is banned from this guild.' })
    expect((await control(`/bans/${cfg().signedInUserId}`, undefined, 'DELETE')).status).toBe(200)
    expect((await addMember(cfg().signedInUserId, { access_token: token.access_token })).status).toBe(201)
  })

  it('refuses to add anyone to a full guild with 30019', async () => {
    const token = await tokenFor()
    const members = emulator.discord.state().members.length
    expect((await control('/guild/max-members', { maxMembers: members })).status).toBe(200)
    const response = await addMember(cfg().signedInUserId, { access_token: token.access_token })
    expect(response.status).toBe(400)
    expect(await response.json()).toEqual({
      message: 'Maximum number of server members reached',
      code: 30019,
    })
    expect(((await bot.get(Routes.guild(cfg().guildId))) as { max_members: number }).max_members).toBe(
      members,
    )
  })

  it('refuses a user who is in as many servers as Discord allows with 30001', async () => {
    const created = (await (
      await control('/users', { username: 'busy_bee', atGuildLimit: true })
    ).json()) as APIUser
    emulator.discord.signIn(created.id)
    const token = await tokenFor()
    const response = await addMember(created.id, { access_token: token.access_token })
    expect(await response.json()).toEqual({ message: 'Maximum number of guilds reached (100)', code: 30001 })
  })

  it("wants that user's token with guilds.join", async () => {
    const token = await tokenFor()
    const other = emulator.discord.createUser({ username: 'someone_else' })
    const wrongUser = await addMember(other.id, { access_token: token.access_token })
    expect(wrongUser.status).toBe(403)
    expect(await wrongUser.json()).toEqual({ message: 'Invalid OAuth2 access token', code: 50025 })

    const identifyOnly = await tokenFor(authorizeQuery({ scope: 'identify' }))
    const noScope = await addMember(cfg().signedInUserId, { access_token: identifyOnly.access_token })
    expect(noScope.status).toBe(403)
    expect(await noScope.json()).toEqual({ message: 'Missing required OAuth2 scope', code: 50026 })

    const missing = await addMember(cfg().signedInUserId, {})
    expect(missing.status).toBe(400)
    expect(await missing.json()).toMatchObject({
      code: 50035,
      errors: { access_token: { _errors: [{ code: 'BASE_TYPE_REQUIRED' }] } },
    })
    expect(emulator.discord.state().members.map((member) => member.user.id)).not.toContain(
      cfg().signedInUserId,
    )
  })

  it("applies the bot's permissions and role hierarchy", async () => {
    const token = await tokenFor()
    const aboveBot = await addMember(cfg().signedInUserId, {
      access_token: token.access_token,
      roles: [cfg().botRoleId],
    })
    expect(await aboveBot.json()).toEqual({ message: 'Missing Permissions', code: 50013 })
    // The default bot role has no MANAGE_NICKNAMES.
    const nick = await addMember(cfg().signedInUserId, { access_token: token.access_token, nick: 'JJ' })
    expect(nick.status).toBe(403)

    const weak = await startEmulator({
      port: 0,
      discord: { botPermissions: ['MANAGE_ROLES', 'SEND_MESSAGES'] },
    })
    try {
      const query = authorizeQuery({ client_id: weak.discord.config.clientId })
      const post = await fetch(`${weak.url}/discord/oauth2/authorize`, {
        method: 'POST',
        redirect: 'manual',
        headers: { 'content-type': 'application/x-www-form-urlencoded' },
        body: new URLSearchParams([...query.entries(), ['decision', 'authorize']]),
      })
      const code = new URL(post.headers.get('location') ?? '').searchParams.get('code') ?? ''
      const token = (await (
        await fetch(`${weak.url}/discord/api/v10/oauth2/token`, {
          method: 'POST',
          headers: { 'content-type': 'application/x-www-form-urlencoded' },
          body: new URLSearchParams({
            ...codeGrant(code),
            client_id: weak.discord.config.clientId,
            client_secret: weak.discord.config.clientSecret,
          }),
        })
      ).json()) as RESTPostOAuth2AccessTokenResult
      const noInvite = await fetch(
        `${weak.url}/discord/api/v10/guilds/${weak.discord.config.guildId}/members/${weak.discord.config.signedInUserId}`,
        {
          method: 'PUT',
          headers: {
            authorization: `Bot ${weak.discord.config.botToken}`,
            'content-type': 'application/json',
          },
          body: JSON.stringify({ access_token: token.access_token }),
        },
      )
      expect(noInvite.status).toBe(403)
      expect(await noInvite.json()).toEqual({ message: 'Missing Permissions', code: 50013 })
    } finally {
      await weak.close()
    }
  })
})

describe('rate limits and outages on the OAuth2 routes', () => {
  it('carries the rate-limit headers and lets tests force 429 with Retry-After and 5xx', async () => {
    const code = await authorizedCode()
    emulator.discord.failNext({ status: 429, retryAfter: 1.5, path: '/oauth2/token' })
    const limited = await tokenRequest(codeGrant(code))
    expect(limited.status).toBe(429)
    expect(limited.headers.get('retry-after')).toBe('2')
    expect(await limited.json()).toEqual({
      message: 'You are being rate limited.',
      retry_after: 1.5,
      global: false,
    })

    emulator.discord.failNext({ status: 503, path: '/guilds', method: 'PUT' })
    emulator.discord.failNext({ status: 502, path: '/oauth2/token' })
    const down = await tokenRequest(codeGrant(code))
    expect(down.status).toBe(502)
    expect(await down.json()).toEqual({ message: '502: Bad Gateway', code: 0 })
    expect(emulator.discord.state().log.at(-1)).toMatchObject({
      path: '/oauth2/token',
      status: 502,
      forced: true,
    })

    // The forced answers spent nothing: the code still works once the bucket resets.
    await new Promise((resolve) => setTimeout(resolve, 1600))
    const token = await exchange(codeGrant(code))
    const response = await addMember(cfg().signedInUserId, { access_token: token.access_token })
    expect(response.status).toBe(503)
    expect(response.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/)
    expect((await addMember(cfg().signedInUserId, { access_token: token.access_token })).status).toBe(201)
  })

  it('lets @discordjs/rest wait out a 429 on PUT member and give up after repeated 5xx', async () => {
    const token = await tokenFor()
    emulator.discord.failNext({ status: 429, retryAfter: 0.3, method: 'PUT', path: '/guilds' })
    const started = Date.now()
    const member = (await bot.put(Routes.guildMember(cfg().guildId, cfg().signedInUserId), {
      body: { access_token: token.access_token, roles: [cfg().memberRoleId] },
    })) as APIGuildMember
    expect(Date.now() - started).toBeGreaterThanOrEqual(250)
    expect(member.roles).toEqual([cfg().memberRoleId])

    const other = emulator.discord.createUser({ username: 'second_member' })
    emulator.discord.signIn(other.id)
    const second = await tokenFor()
    emulator.discord.failNext({ status: 500, count: 2, method: 'PUT', path: '/guilds' })
    const error = await rejection(
      client(cfg().botToken, 'Bot', { retries: 1 }).put(Routes.guildMember(cfg().guildId, other.id), {
        body: { access_token: second.access_token },
      }),
    )
    expect(error).toBeInstanceOf(HTTPError)
    expect(error).toMatchObject({ status: 500 })
  })
})

describe('test controls', () => {
  it('prints the OAuth2 client with the other Discord settings', async () => {
    expect(await (await control('/config')).json()).toMatchObject({
      clientId: '100000000000000099',
      clientSecret: 'emulator-client-secret',
      redirectUris: 'loopback',
      authorizeUrl: `${emulator.url}/discord/oauth2/authorize`,
    })
  })

  it('creates and lists users, picks the signed-in one, and reads a member', async () => {
    const created = await control('/users', { username: 'Riley_R', email: 'riley@example.org' })
    expect(created.status).toBe(200)
    const riley = (await created.json()) as APIUser
    expect(riley).toMatchObject({ username: 'riley_r', global_name: 'Riley_R', discriminator: '0' })
    const users = (await (await control('/users')).json()) as APIUser[]
    expect(users.map((user) => user.username)).toEqual(['clubowner', 'jordan', 'riley_r'])
    expect((await control('/users', { username: 'x' })).status).toBe(400)

    // A browser that switched to Jordan earlier follows the test's later choice.
    const switched = await fetch(`${emulator.url}/discord/oauth2/authorize/account`, {
      method: 'POST',
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        action: 'switch',
        user_id: cfg().signedInUserId,
        return_to: `/discord/oauth2/authorize?${authorizeQuery()}`,
      }),
    })
    const cookie = (switched.headers.get('set-cookie') ?? '').split(';')[0] ?? ''
    expect((await control('/oauth2/sign-in', { userId: riley.id })).status).toBe(200)
    expect(await (await authorizePage(authorizeQuery(), { cookie })).text()).toContain('(@riley_r)')
    expect((await control('/oauth2/sign-in', { userId: cfg().botUserId })).status).toBe(400)

    const token = await tokenFor(authorizeQuery({ scope: 'identify email guilds.join' }))
    const me = (await client(token.access_token, 'Bearer').get(Routes.user())) as APIUser
    expect(me).toMatchObject({ id: riley.id, email: 'riley@example.org' })
    await addMember(riley.id, { access_token: token.access_token, roles: [cfg().memberRoleId] })
    expect(await (await control(`/members/${riley.id}`)).json()).toMatchObject({
      roles: [cfg().memberRoleId],
    })
    expect((await control(`/members/${cfg().signedInUserId}`)).status).toBe(404)
  })
})
