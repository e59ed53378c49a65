import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Emulator, startEmulator } from '../src/server'

/**
 * The wire details @discordjs/rest depends on (headers, error bodies) and the /_control/discord
 * routes, checked over plain HTTP.
 */

let emulator: Emulator
let api: string
let auth: Record<string, string>

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 })
  api = `${emulator.url}/discord/api/v10`
  auth = { authorization: `Bot ${emulator.discord.config.botToken}` }
})

beforeEach(() => emulator.discord.reset())

afterAll(async () => {
  await emulator.close()
})

const control = (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') =>
  fetch(`${emulator.url}/_control/discord${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

describe('wire format', () => {
  it('sends the rate-limit headers on successes and errors alike', async () => {
    for (const response of [
      await fetch(`${api}/users/@me`, { headers: auth }),
      await fetch(`${api}/users/@me`),
      await fetch(`${api}/invites/nope`, { headers: auth }),
    ]) {
      expect(response.headers.get('x-ratelimit-limit')).toBe('50')
      expect(Number(response.headers.get('x-ratelimit-remaining'))).toBeGreaterThanOrEqual(0)
      expect(response.headers.get('x-ratelimit-reset')).toMatch(/^\d+\.\d{3}$/)
      expect(response.headers.get('x-ratelimit-reset-after')).toMatch(/^\d+\.\d{3}$/)
      expect(response.headers.get('x-ratelimit-bucket')).toMatch(/^[0-9a-f]{32}$/)
    }
    const unauthorized = await fetch(`${api}/users/@me`, { headers: { authorization: 'Bot wrong' } })
    expect(unauthorized.status).toBe(401)
    expect(await unauthorized.json()).toEqual({ message: '401: Unauthorized', code: 0 })
  })

  it('answers a 429 the way Discord does', async () => {
    await control('/faults', { status: 429, retryAfter: 0.35, path: '/guilds' })
    const response = await fetch(`${api}/guilds/${emulator.discord.config.guildId}`, { headers: auth })
    expect(response.status).toBe(429)
    expect(await response.json()).toEqual({
      message: 'You are being rate limited.',
      retry_after: 0.35,
      global: false,
    })
    expect(response.headers.get('retry-after')).toBe('1')
    expect(response.headers.get('x-ratelimit-scope')).toBe('user')
    expect(response.headers.get('x-ratelimit-remaining')).toBe('0')
    expect(response.headers.get('x-ratelimit-reset-after')).toBe('0.350')

    // The bucket really is empty until the reset: an impatient client gets a genuine 429.
    const early = await fetch(`${api}/guilds/${emulator.discord.config.guildId}`, { headers: auth })
    expect(early.status).toBe(429)
    const other = await fetch(`${api}/users/@me`, { headers: auth })
    expect(other.status).toBe(200)
  })

  it('answers a genuine 429 when a bucket is exhausted', async () => {
    const tight = await startEmulator({ port: 0, discord: { rateLimit: { limit: 1, windowSeconds: 5 } } })
    try {
      const url = `${tight.url}/discord/api/v10/users/@me`
      expect((await fetch(url, { headers: auth })).status).toBe(200)
      const limited = await fetch(url, { headers: auth })
      expect(limited.status).toBe(429)
      const body = (await limited.json()) as { retry_after: number }
      expect(body.retry_after).toBeGreaterThan(4)
      expect(limited.headers.get('retry-after')).toBe('5')
    } finally {
      await tight.close()
    }
  })

  it("answers Discord's bodies for unknown paths, wrong methods, bad ids, bad JSON and old versions", async () => {
    const unknown = await fetch(`${api}/nothing/here`, { headers: auth })
    expect([unknown.status, await unknown.json()]).toEqual([404, { message: '404: Not Found', code: 0 }])
    const method = await fetch(`${api}/users/@me`, { method: 'PATCH', headers: auth })
    expect([method.status, await method.json()]).toEqual([
      405,
      { message: '405: Method Not Allowed', code: 0 },
    ])
    const badId = await fetch(`${api}/guilds/abc`, { headers: auth })
    expect([badId.status, await badId.json()]).toEqual([
      400,
      {
        message: 'Invalid Form Body',
        code: 50035,
        errors: {
          guild_id: { _errors: [{ code: 'NUMBER_TYPE_COERCE', message: 'Value "abc" is not snowflake.' }] },
        },
      },
    ])
    const badJson = await fetch(`${api}/channels/${emulator.discord.config.announceChannelId}/messages`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: '{"content":',
    })
    expect([badJson.status, ((await badJson.json()) as { code: number }).code]).toEqual([400, 50109])
    const version = await fetch(`${emulator.url}/discord/api/v6/users/@me`, { headers: auth })
    expect([version.status, ((await version.json()) as { code: number }).code]).toEqual([400, 50041])
  })
})

describe('control routes', () => {
  it('joins through an invite, exposes state and resets', async () => {
    const config = (await (await control('/config')).json()) as Record<string, string>
    expect(config).toMatchObject({
      botToken: 'emulator-bot-token',
      guildId: '100000000000000001',
      inviteChannelId: '100000000000000010',
      announceChannelId: '100000000000000011',
      memberRoleId: '100000000000000020',
      botUserId: '100000000000000099',
      apiBase: `${emulator.url}/discord/api`,
    })

    const created = await fetch(`${api}/channels/${config.inviteChannelId}/invites`, {
      method: 'POST',
      headers: {
        ...auth,
        'content-type': 'application/json',
        'x-audit-log-reason': encodeURIComponent('Plan: Pro ✓'),
      },
      body: JSON.stringify({ max_age: 600, max_uses: 1, unique: true }),
    })
    const { code } = (await created.json()) as { code: string }

    const joined = await control('/join', { code, username: 'Carol', userId: '400000000000000001' })
    expect(joined.status).toBe(200)
    expect(await joined.json()).toMatchObject({
      user: { id: '400000000000000001', username: 'carol', global_name: 'Carol', discriminator: '0' },
      roles: [],
    })
    const refused = await control('/join', { code, username: 'dave' })
    expect([refused.status, await refused.json()]).toEqual([404, { message: 'Unknown Invite', code: 10006 }])

    const state = (await (await control('/state')).json()) as ReturnType<typeof emulator.discord.state>
    expect(state.members.find((member) => member.user.username === 'carol')).toMatchObject({
      inviteCode: code,
    })
    expect(state.invites).toEqual([expect.objectContaining({ code, uses: 1, status: 'exhausted' })])
    expect(state.log).toEqual([
      expect.objectContaining({
        method: 'POST',
        status: 200,
        reason: 'Plan: Pro ✓',
        body: expect.any(Object),
      }),
    ])

    await control('/members', { username: 'erin', userId: '400000000000000002' })
    expect((await control('/members/400000000000000002', undefined, 'DELETE')).status).toBe(200)
    expect((await control('/members/400000000000000002', undefined, 'DELETE')).status).toBe(404)

    await control('/reset', {})
    const after = (await (await control('/state')).json()) as ReturnType<typeof emulator.discord.state>
    expect([after.members.length, after.invites.length, after.log.length]).toEqual([2, 0, 0])
  })

  it('queues, lists and clears faults, and expires invites on demand', async () => {
    await control('/faults', { status: 502, count: 2, method: 'get', path: '/discord/api/v10/users' })
    expect(await (await control('/faults')).json()).toEqual([
      expect.objectContaining({ status: 502, count: 2, method: 'GET', path: '/users' }),
    ])
    expect((await fetch(`${api}/users/@me`, { headers: auth })).status).toBe(502)
    await control('/faults', undefined, 'DELETE')
    expect((await fetch(`${api}/users/@me`, { headers: auth })).status).toBe(200)
    expect((await control('/faults', { status: 404 })).status).toBe(400)

    const created = await fetch(`${api}/channels/${emulator.discord.config.inviteChannelId}/invites`, {
      method: 'POST',
      headers: { ...auth, 'content-type': 'application/json' },
      body: JSON.stringify({ max_age: 0, max_uses: 0 }),
    })
    const { code, expires_at } = (await created.json()) as { code: string; expires_at: string | null }
    expect(expires_at).toBeNull()
    await control(`/invites/${code}/expire`, {})
    expect((await fetch(`${api}/invites/${code}`, { headers: auth })).status).toBe(404)
  })
})
