import { type Emulator, startEmulator } from '@edgeclub/emulator'
import { discordConnectMessages as messages } from '@edgeclub/shared'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { as, login, register, type Session } from './helpers/members'
import { createTestApp, type TestApp, testClock } from './helpers/test-app'

const API = '/discord/api'
const ADMIN = { email: 'connect.admin@edgeclub.test', password: 'Conn3ct$Admin' }
const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE

/** What Discord puts on the redirect URI. */
interface Redirect {
  code?: string
  state?: string
  error?: string
  error_description?: string
}

function discordEnv(emulator: Emulator, extra: Record<string, string> = {}) {
  const d = emulator.discord.config
  return {
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    DISCORD_BOT_TOKEN: d.botToken,
    DISCORD_GUILD_ID: d.guildId,
    DISCORD_INVITE_CHANNEL_ID: d.inviteChannelId,
    DISCORD_MEMBER_ROLE_ID: d.memberRoleId,
    DISCORD_ANNOUNCE_CHANNEL_ID: d.announceChannelId,
    DISCORD_API_BASE: `${emulator.url}/discord/api`,
    DISCORD_CLIENT_ID: d.clientId,
    DISCORD_CLIENT_SECRET: d.clientSecret,
    ...extra,
  }
}

/** The member's side of Connect Discord against one app: start, Discord's consent page, the callback. */
function connectDriver(emulator: Emulator, app: () => TestApp) {
  const start = (token: string) => as(app().app, token, { method: 'POST', url: `${API}/discord/connect` })
  /** Discord's consent page as a browser uses it: signed in as this Discord user, Authorize or Cancel. */
  async function consent(authorizeUrl: string, discordUserId: string, decision: 'authorize' | 'cancel') {
    emulator.discord.signIn(discordUserId)
    const url = new URL(authorizeUrl)
    const form = new URLSearchParams(url.searchParams)
    form.set('decision', decision)
    const response = await fetch(`${url.origin}${url.pathname}`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    expect(response.status).toBe(302)
    const back = new URL(response.headers.get('location') ?? '')
    expect(`${back.origin}${back.pathname}`).toBe(app().config.discord.oauth?.redirectUri)
    return Object.fromEntries(back.searchParams) as Redirect
  }
  const callback = (token: string, redirect: Redirect) =>
    as(app().app, token, {
      method: 'POST',
      url: `${API}/discord/connect/callback`,
      payload: {
        code: redirect.code,
        state: redirect.state,
        error: redirect.error,
        errorDescription: redirect.error_description,
      },
    })
  /** Start, consent and come back: what Discord sent back, not yet passed to the callback. */
  async function approve(
    token: string,
    discordUserId: string,
    decision: 'authorize' | 'cancel' = 'authorize',
  ) {
    const started = await start(token)
    expect(started.statusCode, started.body).toBe(200)
    return consent(started.json().data.authorizeUrl, discordUserId, decision)
  }
  const connect = async (token: string, discordUserId: string) =>
    callback(token, await approve(token, discordUserId))
  const status = async (token: string) =>
    (await as(app().app, token, { method: 'GET', url: `${API}/discord/status` })).json().data
  return { start, consent, callback, approve, connect, status }
}

describe('Connect Discord (OAuth2)', () => {
  let emulator: Emulator
  let t: TestApp
  let admin: Session
  const clock = testClock()
  let driver: ReturnType<typeof connectDriver>

  beforeAll(async () => {
    emulator = await startEmulator()
    t = await createTestApp({ clock, env: discordEnv(emulator) })
    admin = await login(t.app, ADMIN.email, ADMIN.password)
    driver = connectDriver(emulator, () => t)
  })
  afterAll(async () => {
    await t?.close()
    await emulator?.close()
  })

  const roleId = () => emulator.discord.config.memberRoleId
  const guildMember = (discordUserId: string) =>
    emulator.discord.state().members.find((member) => member.user.id === discordUserId)
  const discordUser = (username: string) => emulator.discord.createUser({ username })
  const grant = async (userId: string, days = 30) => {
    const response = await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${userId}/grant`,
      payload: { days },
    })
    expect(response.statusCode, response.body).toBe(200)
  }
  const payingMember = async (typedUsername?: string) => {
    const member = await register(t.app, typedUsername ? { discordUsername: typedUsername } : {})
    await grant(member.user.id)
    return member
  }
  const connections = (userId: string) =>
    t.database.db.selectFrom('discord_connections').selectAll().where('user_id', '=', userId).execute()
  const auditOf = async (userId: string) =>
    (
      await as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/audit?targetId=${userId}` })
    ).json().data.items as { action: string; outcome: string; details: Record<string, unknown> }[]
  const apiCalls = (route: string) => emulator.discord.state().log.filter((entry) => entry.route === route)

  it('sends the member to Discord with identify and guilds.join, a fresh state and the configured redirect URI', async () => {
    const member = await register(t.app)
    const first = (await driver.start(member.accessToken)).json().data.authorizeUrl
    const second = (await driver.start(member.accessToken)).json().data.authorizeUrl
    const url = new URL(first)
    expect(`${url.origin}${url.pathname}`).toBe(`${emulator.url}/discord/oauth2/authorize`)
    expect(Object.fromEntries(url.searchParams)).toEqual({
      response_type: 'code',
      client_id: emulator.discord.config.clientId,
      scope: 'identify guilds.join',
      state: expect.stringMatching(/^[\w-]{43}$/),
      redirect_uri: 'http://127.0.0.1:3000/dashboard/discord/callback',
      prompt: 'consent',
      code_challenge: expect.stringMatching(/^[\w-]{43}$/),
      code_challenge_method: 'S256',
    })
    expect(new URL(second).searchParams.get('state')).not.toBe(url.searchParams.get('state'))
    expect(new URL(second).searchParams.get('code_challenge')).not.toBe(
      url.searchParams.get('code_challenge'),
    )
    // Only a hash of the state is kept.
    const stored = await t.database.db
      .selectFrom('discord_oauth_states')
      .selectAll()
      .where('user_id', '=', member.user.id)
      .execute()
    expect(stored).toHaveLength(2)
    expect(stored.map((row) => row.state_hash)).not.toContain(url.searchParams.get('state'))
    // Beside it, the attempt's PKCE challenge (itself a hash; the verifier is never stored).
    expect(stored.map((row) => row.code_challenge)).toContain(url.searchParams.get('code_challenge'))
    const minutes = (new Date(stored[0]!.expires_at).getTime() - clock.now().getTime()) / MINUTE
    expect(minutes).toBeGreaterThan(9)
    expect(minutes).toBeLessThanOrEqual(10)
  })

  it('connects a paying member in one step: verified id and username kept, added to the server with the role (201)', async () => {
    const vera = discordUser('verified_vera')
    const member = await payingMember('vera_typed_this')
    const response = await driver.connect(member.accessToken, vera.id)
    expect(response.statusCode, response.body).toBe(200)
    expect(response.json()).toEqual({
      success: true,
      data: {
        connection: { discordUserId: vera.id, username: 'verified_vera', verifiedAt: expect.any(String) },
        guild: 'added',
        roleGranted: true,
      },
      message: 'Connected as verified_vera. You are in the EdgeClub Discord with the member role.',
    })
    expect(guildMember(vera.id)?.roles).toEqual([roleId()])
    // One call added them with the role; the user's token went in the body (masked in the emulator's log).
    const put = apiCalls('PUT /guilds/:guildId/members/:userId').at(-1)
    expect(put).toMatchObject({ status: 201, body: { access_token: '[redacted]', roles: [roleId()] } })
    expect(await driver.status(member.accessToken)).toMatchObject({
      state: 'joined',
      roleGranted: true,
      connectAvailable: true,
      verificationRequired: false,
      connection: { discordUserId: vera.id, username: 'verified_vera' },
    })
    expect(await connections(member.user.id)).toMatchObject([
      { discord_user_id: vera.id, username: 'verified_vera', disconnected_at: null },
    ])
    const audit = await auditOf(member.user.id)
    expect(audit[0]).toMatchObject({ action: 'discord.connect', outcome: 'success' })
  })

  it('keeps no OAuth2 token: no column for one, and none in the logs', async () => {
    const columns = await sql<{ table_name: string; column_name: string }>`
      select table_name, column_name from information_schema.columns
      where table_name like 'discord%' or table_name = 'users'`.execute(t.database.db)
    expect(columns.rows.length).toBeGreaterThan(10)
    expect(columns.rows.filter((row) => /token|secret/.test(row.column_name))).toEqual([])
    expect(t.logs()).not.toMatch(/access_token"?\s*[:=]\s*"?(?!\[redacted\])\w{20,}/)
    expect(t.logs()).not.toContain('Bearer ')
  })

  it('gives the role through the role endpoint to a member already in the server (204)', async () => {
    const andy = emulator.discord.addMember({ username: 'already_andy' })
    const member = await payingMember()
    const response = await driver.connect(member.accessToken, andy.user.id)
    expect(response.json().data).toMatchObject({ guild: 'already-member', roleGranted: true })
    expect(response.json().message).toBe(
      'Connected as already_andy. You were already in the EdgeClub Discord; the member role is yours.',
    )
    expect(apiCalls('PUT /guilds/:guildId/members/:userId').at(-1)?.status).toBe(204)
    expect(apiCalls('PUT /guilds/:guildId/members/:userId/roles/:roleId').at(-1)).toMatchObject({
      path: `/guilds/${emulator.discord.config.guildId}/members/${andy.user.id}/roles/${roleId()}`,
      status: 204,
    })
    expect(guildMember(andy.user.id)?.roles).toContain(roleId())
  })

  it('connects a member without access but adds them nowhere', async () => {
    const nora = discordUser('no_access_nora')
    const member = await register(t.app)
    const response = await driver.connect(member.accessToken, nora.id)
    expect(response.statusCode).toBe(200)
    expect(response.json().data).toMatchObject({ guild: 'no-access', roleGranted: false })
    expect(response.json().message).toBe(messages.connectedNoAccess('no_access_nora'))
    expect(guildMember(nora.id)).toBeUndefined()
  })

  it('refuses a state used twice', async () => {
    const member = await payingMember()
    const back = await driver.approve(member.accessToken, discordUser('twice_tom').id)
    expect((await driver.callback(member.accessToken, back)).statusCode).toBe(200)
    const again = await driver.callback(member.accessToken, back)
    expect(again.statusCode).toBe(400)
    expect(again.json()).toEqual({ success: false, error: 'VALIDATION_ERROR', message: messages.stateReused })
  })

  it("refuses another member's state, and spends it", async () => {
    const owner = await payingMember()
    const intruder = await payingMember()
    const wendy = discordUser('wrong_member_wendy')
    const back = await driver.approve(owner.accessToken, wendy.id)
    const stolen = await driver.callback(intruder.accessToken, back)
    expect(stolen.statusCode).toBe(403)
    expect(stolen.json()).toMatchObject({ error: 'FORBIDDEN', message: messages.wrongMember })
    const late = await driver.callback(owner.accessToken, back)
    expect(late.json().message).toBe(messages.stateReused)
    expect(await connections(owner.user.id)).toEqual([])
    expect(await connections(intruder.user.id)).toEqual([])
    expect(guildMember(wendy.id)).toBeUndefined()
  })

  it("binds Discord's code to the attempt (PKCE): a code from one member's attempt, brought back with another's valid state, connects nothing", async () => {
    const victim = await payingMember()
    const attacker = await payingMember()
    const carol = discordUser('pkce_carol')
    // Carol's code, issued on the victim's attempt, never reaches the victim's callback...
    const victimsCode = await driver.approve(victim.accessToken, carol.id)
    // ...and the attacker presents it with a state of their own attempt, valid and unused.
    const attackerStarted = (await driver.start(attacker.accessToken)).json().data.authorizeUrl
    const attackersState = new URL(attackerStarted).searchParams.get('state') ?? ''
    const swapped = await driver.callback(attacker.accessToken, {
      code: victimsCode.code,
      state: attackersState,
    })
    expect(swapped.statusCode).toBe(400)
    expect(swapped.json()).toMatchObject({ error: 'VALIDATION_ERROR', message: messages.codeRejected })
    expect(await connections(attacker.user.id)).toEqual([])
    expect(await connections(victim.user.id)).toEqual([])
    expect(guildMember(carol.id)).toBeUndefined()
    // Discord refused the exchange itself: the verifier did not match the code's challenge.
    const exchanges = emulator.discord.state().log.filter((entry) => entry.path.endsWith('/oauth2/token'))
    expect(exchanges.at(-1)?.status).toBe(400)
  })

  it('refuses a missing, unknown or expired state', async () => {
    const member = await payingMember()
    const missing = await driver.callback(member.accessToken, { code: 'abc' })
    expect(missing.json()).toMatchObject({ error: 'VALIDATION_ERROR', message: messages.stateMissing })
    const unknown = await driver.callback(member.accessToken, { code: 'abc', state: 'not-ours' })
    expect(unknown.json().message).toBe(messages.stateUnknown)
    const back = await driver.approve(member.accessToken, discordUser('late_larry').id)
    clock.advance(11 * MINUTE)
    try {
      const expired = await driver.callback(member.accessToken, back)
      expect(expired.statusCode).toBe(400)
      expect(expired.json().message).toBe(
        'This Discord connection link has expired (it lasts 10 minutes). Click Connect Discord to start again.',
      )
    } finally {
      clock.reset()
    }
    expect(await connections(member.user.id)).toEqual([])
  })

  it('says the member cancelled when they press Cancel on Discord, and connects nothing', async () => {
    const member = await payingMember()
    const back = await driver.approve(member.accessToken, discordUser('cancel_carl').id, 'cancel')
    expect(back).toMatchObject({ error: 'access_denied', state: expect.any(String) })
    expect(back.code).toBeUndefined()
    const response = await driver.callback(member.accessToken, back)
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({
      success: false,
      error: 'VALIDATION_ERROR',
      message: 'You cancelled on Discord, so nothing was connected. Click Connect Discord to try again.',
    })
    expect(await connections(member.user.id)).toEqual([])
  })

  it('refuses a Discord account already connected to another EdgeClub account', async () => {
    const shared = discordUser('shared_sam')
    const first = await payingMember()
    const second = await payingMember()
    expect((await driver.connect(first.accessToken, shared.id)).statusCode).toBe(200)
    const response = await driver.connect(second.accessToken, shared.id)
    expect(response.statusCode).toBe(409)
    expect(response.json()).toEqual({
      success: false,
      error: 'CONFLICT',
      message:
        'This Discord account is already connected to another EdgeClub account. Sign in to that account, or connect a different Discord account.',
    })
    expect(await connections(second.user.id)).toEqual([])
    expect((await auditOf(second.user.id))[0]).toMatchObject({
      action: 'discord.connect',
      outcome: 'failure',
    })
  })

  it('asks a connected member to disconnect before connecting a different account', async () => {
    const member = await payingMember()
    expect((await driver.connect(member.accessToken, discordUser('first_fay').id)).statusCode).toBe(200)
    const other = await driver.connect(member.accessToken, discordUser('second_sid').id)
    expect(other.statusCode).toBe(409)
    expect(other.json().message).toBe(messages.disconnectFirst('first_fay'))
    // The same account again is fine (the way back into the server after leaving it).
    const again = await driver.connect(
      member.accessToken,
      (await connections(member.user.id))[0]!.discord_user_id,
    )
    expect(again.statusCode).toBe(200)
  })

  it('lets a ban win: a banned Discord account is recorded but joins nothing and gets no role', async () => {
    const bart = discordUser('banned_bart')
    emulator.discord.ban(bart.id, 'spam')
    const member = await payingMember()
    const response = await driver.connect(member.accessToken, bart.id)
    expect(response.statusCode).toBe(403)
    expect(response.json()).toEqual({
      success: false,
      error: 'FORBIDDEN',
      message: 'Your Discord access has been suspended. Please contact support.',
    })
    expect(apiCalls('PUT /guilds/:guildId/members/:userId').at(-1)).toMatchObject({
      status: 403,
      code: 40007,
    })
    expect(guildMember(bart.id)).toBeUndefined()
    expect(await connections(member.user.id)).toMatchObject([{ discord_user_id: bart.id }])
    expect(await driver.status(member.accessToken)).toMatchObject({ state: 'banned', roleGranted: false })
    // Nothing later gives it the role either, and a new attempt is refused before Discord.
    expect(await t.app.services.community.syncMember(member.user.id)).toBe('not-in-guild')
    const again = await driver.start(member.accessToken)
    expect(again.statusCode).toBe(403)
    // Banned on EdgeClub by an admin: no connecting at all.
    const other = await payingMember()
    await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/ban`,
      payload: { userId: other.user.id, reason: 'chargebacks' },
    })
    expect((await driver.start(other.accessToken)).json().message).toBe(messages.banned)
  })

  it('says Discord is down when the code exchange or /users/@me fails, and connects nothing', async () => {
    const member = await payingMember()
    const dora = discordUser('down_dora')
    for (const path of ['/oauth2/token', '/users/@me']) {
      const back = await driver.approve(member.accessToken, dora.id)
      emulator.discord.failNext({ status: 502, path })
      const response = await driver.callback(member.accessToken, back)
      expect(response.statusCode).toBe(503)
      expect(response.json()).toEqual({
        success: false,
        error: 'UPSTREAM_ERROR',
        message: messages.discordDown,
      })
    }
    expect(await connections(member.user.id)).toEqual([])
    // Discord up again: a new attempt works.
    expect((await driver.connect(member.accessToken, dora.id)).statusCode).toBe(200)
  })

  it('keeps the connection and says so when Discord fails while adding the member', async () => {
    const member = await payingMember()
    const jack = discordUser('join_fail_jack')
    const back = await driver.approve(member.accessToken, jack.id)
    emulator.discord.failNext({ status: 500, method: 'PUT', path: '/guilds' })
    const response = await driver.callback(member.accessToken, back)
    expect(response.statusCode).toBe(503)
    expect(response.json().message).toBe(messages.joinDiscordDown)
    expect(await connections(member.user.id)).toMatchObject([{ discord_user_id: jack.id }])
    expect(guildMember(jack.id)).toBeUndefined()
  })

  it('explains a full server and a Discord account at its server limit', async () => {
    const member = await payingMember()
    const limited = emulator.discord.createUser({ username: 'busy_betty', atGuildLimit: true })
    const busy = await driver.connect(member.accessToken, limited.id)
    expect(busy.statusCode).toBe(409)
    expect(busy.json().message).toBe(messages.tooManyServers)
    expect(apiCalls('PUT /guilds/:guildId/members/:userId').at(-1)).toMatchObject({ code: 30001 })

    const other = await payingMember()
    emulator.discord.setMaxMembers(emulator.discord.state().members.length)
    try {
      const full = await driver.connect(other.accessToken, discordUser('full_fred').id)
      expect(full.statusCode).toBe(409)
      expect(full.json().message).toBe(messages.guildFull)
    } finally {
      emulator.discord.setMaxMembers(25_000_000)
    }
  })

  it('disconnects (audited, a few times a day), and the old account loses the role through the job', async () => {
    const member = await payingMember()
    const dan = discordUser('disconnect_dan')
    expect((await driver.connect(member.accessToken, dan.id)).statusCode).toBe(200)
    expect(guildMember(dan.id)?.roles).toContain(roleId())
    const disconnect = () =>
      as(t.app, member.accessToken, { method: 'POST', url: `${API}/discord/disconnect` })
    const first = await disconnect()
    expect(first.statusCode).toBe(200)
    expect(first.json()).toEqual({
      success: true,
      data: { username: 'disconnect_dan' },
      message: 'Disconnected disconnect_dan. If it had the member role, the role is being removed.',
    })
    await eventually(
      async () => guildMember(dan.id)?.roles ?? [],
      (roles) => !roles.includes(roleId()),
    )
    expect((await driver.status(member.accessToken)).connection).toBeNull()
    expect((await auditOf(member.user.id))[0]).toMatchObject({
      action: 'discord.disconnect',
      outcome: 'success',
      details: { discordUserId: dan.id },
    })
    const none = await disconnect()
    expect(none.statusCode).toBe(404)
    expect(none.json().message).toBe(messages.notConnected)
    // Twice more, then the day's allowance is spent.
    for (let round = 0; round < 2; round++) {
      expect((await driver.connect(member.accessToken, dan.id)).statusCode).toBe(200)
      expect((await disconnect()).statusCode).toBe(200)
    }
    expect((await driver.connect(member.accessToken, dan.id)).statusCode).toBe(200)
    const limited = await disconnect()
    expect(limited.statusCode).toBe(429)
    expect(limited.json().message).toBe(messages.tooManyDisconnects)
    expect(guildMember(dan.id)?.roles).toContain(roleId())
  })

  it('syncs roles by the verified id, never through a typed username another member proved', async () => {
    // Rita connected her own account; she typed nothing useful.
    const rita = discordUser('real_rita')
    const ritaMember = await register(t.app, { discordUsername: 'typo_rita' })
    expect((await driver.connect(ritaMember.accessToken, rita.id)).json().data.guild).toBe('no-access')
    // She joins the server some other way, then pays: the sync finds her by id.
    emulator.discord.addMember({ username: 'real_rita' })
    await grant(ritaMember.user.id)
    await eventually(
      async () => guildMember(rita.id)?.roles ?? [],
      (roles) => roles.includes(roleId()),
    )
    expect(await t.app.services.community.syncMember(ritaMember.user.id)).toBe('unchanged')

    // Someone else types Rita's username and pays for longer: her account is not theirs.
    const copycat = await register(t.app, { discordUsername: 'real_rita' })
    await grant(copycat.user.id, 60)
    expect(await t.app.services.community.syncMember(copycat.user.id)).toBe('not-in-guild')
    // Rita's access ends: her role goes, and the copycat's access does not keep it.
    clock.advance(31 * DAY)
    try {
      await t.app.services.access.expireEnded()
      expect(await t.app.services.community.syncMember(ritaMember.user.id)).toBe('removed')
      expect(await t.app.services.community.syncMember(copycat.user.id)).toBe('not-in-guild')
      expect(guildMember(rita.id)?.roles).not.toContain(roleId())
    } finally {
      clock.reset()
    }
  })

  it('takes the role away when the plan ends', async () => {
    const pat = discordUser('plan_ends_pat')
    const member = await payingMember()
    expect((await driver.connect(member.accessToken, pat.id)).json().data.guild).toBe('added')
    clock.advance(31 * DAY)
    try {
      await t.app.services.access.expireEnded()
      await eventually(
        async () => guildMember(pat.id)?.roles ?? [roleId()],
        (roles) => !roles.includes(roleId()),
      )
    } finally {
      clock.reset()
    }
    expect(guildMember(pat.id)).toBeDefined()
  })

  it('shows admins which links are verified and which are only typed', async () => {
    const victor = discordUser('verified_victor')
    const connected = await payingMember('victor_typed')
    await driver.connect(connected.accessToken, victor.id)
    const typed = await payingMember('just_typed_tina')
    const list = (
      await as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/users?search=typed&limit=50` })
    ).json().data.items as { id: string; discord: { verified: boolean } }[]
    expect(list.find((user) => user.id === connected.user.id)?.discord.verified).toBe(true)
    expect(list.find((user) => user.id === typed.user.id)?.discord.verified).toBe(false)
    const detail = (
      await as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/users/${connected.user.id}` })
    ).json().data
    expect(detail.discord).toMatchObject({
      verified: true,
      verifiedUsername: 'verified_victor',
      verifiedAt: expect.any(String),
      discordUserId: victor.id,
    })
    const unverified = (
      await as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/users/${typed.user.id}` })
    ).json().data
    expect(unverified.discord).toMatchObject({ verified: false, verifiedUsername: null, verifiedAt: null })
  })

  describe('when verification is required', () => {
    let strict: TestApp
    let strictAdmin: Session
    let strictDriver: ReturnType<typeof connectDriver>

    beforeAll(async () => {
      strict = await createTestApp({ env: discordEnv(emulator, { DISCORD_REQUIRE_VERIFIED: 'true' }) })
      strictAdmin = await login(strict.app, ADMIN.email, ADMIN.password)
      strictDriver = connectDriver(emulator, () => strict)
    })
    afterAll(async () => {
      await strict?.close()
    })

    const strictPayingMember = async (typedUsername: string) => {
      const member = await register(strict.app, { discordUsername: typedUsername })
      await as(strict.app, strictAdmin.accessToken, {
        method: 'POST',
        url: `${API}/admin/users/${member.user.id}/grant`,
        payload: { days: 30 },
      })
      return member
    }

    it('ignores typed usernames: the account behind one gets no role, and one that had it loses it', async () => {
      const tyler = emulator.discord.addMember({ username: 'typed_tyler' })
      const member = await strictPayingMember('typed_tyler')
      expect(await strictDriver.status(member.accessToken)).toMatchObject({ verificationRequired: true })
      const searches = apiCalls('GET /guilds/:guildId/members/search').length
      expect(await strict.app.services.community.syncMember(member.user.id)).toBe('not-in-guild')
      expect(apiCalls('GET /guilds/:guildId/members/search').length).toBe(searches)
      expect(guildMember(tyler.user.id)?.roles).toEqual([])

      // Found by username before verification was required, and given the role then: it goes.
      const olive = emulator.discord.addMember({ username: 'old_olive', roles: [roleId()] })
      const before = await strictPayingMember('old_olive')
      await strict.database.db
        .insertInto('discord_links')
        .values({
          user_id: before.user.id,
          discord_user_id: olive.user.id,
          state: 'joined',
          role_granted: true,
        })
        .execute()
      expect(await strict.app.services.community.syncMember(before.user.id)).toBe('removed')
      expect(guildMember(olive.user.id)?.roles).toEqual([])
      // Connecting is the way back to the role.
      const back = await strictDriver.connect(before.accessToken, olive.user.id)
      expect(back.json().data).toMatchObject({ guild: 'already-member', roleGranted: true })
      expect(guildMember(olive.user.id)?.roles).toEqual([roleId()])
      expect(await strict.app.services.community.syncMember(before.user.id)).toBe('unchanged')
    })
  })
})
