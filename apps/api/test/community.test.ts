import { type Emulator, startEmulator } from '@edgeclub/emulator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { as, login, register, type Session } from './helpers/members'
import { type SmtpSink, startSmtpSink } from './helpers/smtp-sink'
import { createTestApp, type TestApp, testClock } from './helpers/test-app'

const API = '/discord/api'
const ADMIN = { email: 'mod@edgeclub.test', password: 'Mod$ecret123' }
const DAY = 24 * 3600 * 1000

describe('Discord community access', () => {
  let emulator: Emulator
  let smtp: SmtpSink
  let t: TestApp
  let admin: Session
  const clock = testClock()

  beforeAll(async () => {
    // A bot set up as the README asks: Manage Server lets invites be limited to a connected account.
    emulator = await startEmulator({
      discord: {
        botPermissions: [
          'MANAGE_ROLES',
          'KICK_MEMBERS',
          'BAN_MEMBERS',
          'CREATE_INSTANT_INVITE',
          'SEND_MESSAGES',
          'MANAGE_GUILD',
        ],
      },
    })
    smtp = await startSmtpSink()
    const d = emulator.discord.config
    t = await createTestApp({
      clock,
      env: {
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        SMTP_URL: smtp.url,
        DISCORD_BOT_TOKEN: d.botToken,
        DISCORD_GUILD_ID: d.guildId,
        DISCORD_INVITE_CHANNEL_ID: d.inviteChannelId,
        DISCORD_MEMBER_ROLE_ID: d.memberRoleId,
        DISCORD_ANNOUNCE_CHANNEL_ID: d.announceChannelId,
        DISCORD_API_BASE: `${emulator.url}/discord/api`,
      },
    })
    admin = await login(t.app, ADMIN.email, ADMIN.password)
  })
  afterAll(async () => {
    await t.close()
    await emulator.close()
    await smtp.close()
  })

  const createInvite = (token: string) =>
    as(t.app, token, { method: 'POST', url: `${API}/discord/create-invite` })
  const grant = (userId: string, days = 30) =>
    as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${userId}/grant`,
      payload: { days },
    })
  const memberIn = (username: string) =>
    emulator.discord.state().members.find((m) => m.user.username === username)
  const roleId = () => emulator.discord.config.memberRoleId
  const codeOf = (inviteUrl: string) => inviteUrl.split('/').at(-1)!

  async function payingMember(username: string) {
    const member = await register(t.app, { discordUsername: username })
    await grant(member.user.id)
    return member
  }

  it('INVITE-05 refuses an invite without access, with a clear message', async () => {
    const member = await register(t.app)
    const response = await createInvite(member.accessToken)
    expect(response.statusCode).toBe(403)
    expect(response.json()).toEqual({
      success: false,
      error: 'FORBIDDEN',
      message: 'An active subscription is required to join the Discord community.',
    })
    expect(emulator.discord.state().invites).toHaveLength(0)
  })

  it('INVITE-01 API-27 INVITE-08 gives a member with access a single-use invite, and the same one again while unused', async () => {
    const member = await payingMember('ace_trader')
    const first = await createInvite(member.accessToken)
    expect(first.statusCode).toBe(200)
    const invite = first.json().data
    expect(invite).toEqual({
      inviteUrl: expect.stringMatching(/^https:\/\/discord\.gg\/\w+$/),
      targetUsername: 'ace_trader',
      expiresAt: expect.any(String),
      maxUses: 1,
    })
    const hours = (Date.parse(invite.expiresAt) - Date.now()) / 3_600_000
    expect(hours).toBeGreaterThan(23)
    expect(hours).toBeLessThanOrEqual(24.1)
    const remote = emulator.discord.state().invites.find((i) => i.code === codeOf(invite.inviteUrl))
    expect(remote).toMatchObject({
      maxUses: 1,
      unique: true,
      channelId: emulator.discord.config.inviteChannelId,
    })
    const again = (await createInvite(member.accessToken)).json().data
    expect(again.inviteUrl).toBe(invite.inviteUrl)
    emulator.discord.join({ code: codeOf(invite.inviteUrl), username: 'ace_trader' })
    const fresh = (await createInvite(member.accessToken)).json().data
    expect(fresh.inviteUrl).not.toBe(invite.inviteUrl)
    expect(() =>
      emulator.discord.join({ code: codeOf(invite.inviteUrl), username: 'someone_else' }),
    ).toThrow()
  })

  it('limits invite farming', async () => {
    const member = await payingMember('farmer_joe')
    for (let i = 0; i < 5; i++) {
      const invite = (await createInvite(member.accessToken)).json().data
      emulator.discord.expireInvite(codeOf(invite.inviteUrl))
    }
    const sixth = await createInvite(member.accessToken)
    expect(sixth.statusCode).toBe(429)
    expect(sixth.json().message).toContain('too many invites')
  })

  it('grants the member role once the member joins, and removes it when access ends', async () => {
    const member = await payingMember('role_runner')
    const invite = (await createInvite(member.accessToken)).json().data
    emulator.discord.join({ code: codeOf(invite.inviteUrl), username: 'role_runner' })
    // The member's tab polls their status; that queues a look at Discord.
    await as(t.app, member.accessToken, { method: 'GET', url: `${API}/discord/status` })
    await eventually(
      async () => memberIn('role_runner')?.roles ?? [],
      (roles) => roles.includes(roleId()),
    )
    // The sync records what it did right after Discord answers; the tab shows it on its next poll.
    const status = await eventually(
      async () =>
        (await as(t.app, member.accessToken, { method: 'GET', url: `${API}/discord/status` })).json().data,
      (data) => data.roleGranted === true,
    )
    expect(status).toMatchObject({ state: 'joined', roleGranted: true, discordUsername: 'role_runner' })

    clock.advance(31 * DAY)
    try {
      await t.app.services.access.expireEnded()
      await eventually(
        async () => memberIn('role_runner')?.roles ?? ['x'],
        (roles) => !roles.includes(roleId()),
      )
    } finally {
      clock.reset()
    }
    const log = emulator.discord.state()
    expect(log.members.find((m) => m.user.username === 'role_runner')).toBeDefined()
  })

  it('waits out a 429, and retries 5xx answers later with growing delays, without losing the change', async () => {
    const member = await payingMember('patient_pete')
    emulator.discord.addMember({ username: 'patient_pete' })
    await eventually(
      () => t.app.services.jobs.pending('discord.sync'),
      (pending) => pending === 0,
    )
    const removeRoleByHand = () =>
      fetch(
        `${emulator.url}/discord/api/v10/guilds/${emulator.discord.config.guildId}/members/${memberIn('patient_pete')!.user.id}/roles/${roleId()}`,
        { method: 'DELETE', headers: { authorization: `Bot ${emulator.discord.config.botToken}` } },
      )
    // A 429 is waited out inside the call.
    await removeRoleByHand()
    emulator.discord.failNext({ status: 429, count: 1, retryAfter: 0.3, method: 'PUT' })
    expect(await t.app.services.community.syncMember(member.user.id)).toBe('granted')
    expect(memberIn('patient_pete')?.roles).toContain(roleId())

    // A 5xx fails the attempt; the queued sync tries again after a wait, not back to back.
    await removeRoleByHand()
    emulator.discord.failNext({ status: 502, count: 2, path: '/guilds' })
    const started = Date.now()
    await t.app.services.jobs.enqueue('discord.sync', { userId: member.user.id })
    await eventually(
      async () => memberIn('patient_pete')?.roles ?? [],
      (roles) => roles.includes(roleId()),
      20_000,
    )
    // Two failed tries, then success: the waits of 1-2 s and 2-4 s (doubling, jittered) come first.
    expect(Date.now() - started).toBeGreaterThanOrEqual(3_000)
  })

  it('reports drift in the health check and the next sync repairs it', async () => {
    const member = await payingMember('drifty_dan')
    emulator.discord.addMember({ username: 'drifty_dan' })
    await t.app.services.community.syncMember(member.user.id)
    // The grant's own queued role sync has run, so nothing restores the role behind the check below.
    await eventually(
      () => t.app.services.jobs.pending('discord.sync'),
      (pending) => pending === 0,
    )
    expect(memberIn('drifty_dan')?.roles).toContain(roleId())
    // Someone removes the role by hand in Discord.
    const discordId = memberIn('drifty_dan')!.user.id
    await fetch(
      `${emulator.url}/discord/api/v10/guilds/${emulator.discord.config.guildId}/members/${discordId}/roles/${roleId()}`,
      {
        method: 'DELETE',
        headers: { authorization: `Bot ${emulator.discord.config.botToken}` },
      },
    )
    const health = (
      await as(t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/discord/health` })
    ).json().data
    expect(health.checks.filter((check: { ok: boolean }) => !check.ok)).toEqual([])
    expect(health.ok).toBe(true)
    expect(health.checks.map((check: { name: string }) => check.name)).toEqual([
      'bot token',
      'guild',
      'invite channel',
      'announcement channel',
      'member role',
      'targeted invites',
    ])
    expect(health.drift.missingRole).toBeGreaterThanOrEqual(1)
    await t.app.services.community.syncMember(member.user.id)
    expect(memberIn('drifty_dan')?.roles).toContain(roleId())
  })

  it('ADMIN-05 ADMIN-06 ADMIN-07 kicks, bans (no invites or role while banned) and unbans, each audited', async () => {
    const member = await payingMember('bad_actor')
    const invite = (await createInvite(member.accessToken)).json().data
    emulator.discord.join({ code: codeOf(invite.inviteUrl), username: 'bad_actor' })
    await t.app.services.community.syncMember(member.user.id)
    const moderate = (action: string) =>
      as(t.app, admin.accessToken, {
        method: 'POST',
        url: `${API}/admin/users/${action}`,
        payload: { userId: member.user.id, reason: 'spam' },
      })
    expect((await moderate('kick')).json().data).toEqual({ state: 'kicked', discord: 'kicked' })
    expect(memberIn('bad_actor')).toBeUndefined()
    // An unused invite at ban time is deleted (the bot has Manage Server); the ban holds either way.
    const unused = await createInvite(member.accessToken)
    expect(unused.statusCode, unused.body).toBe(200)
    expect((await moderate('ban')).json().data).toEqual({ state: 'banned', discord: 'banned' })
    expect(
      emulator.discord.state().invites.find((invite) => invite.code === codeOf(unused.json().data.inviteUrl))
        ?.status,
    ).toBe('revoked')
    expect(emulator.discord.state().bans.map((ban) => ban.user.username)).toContain('bad_actor')
    const refused = await createInvite(member.accessToken)
    expect(refused.statusCode).toBe(403)
    expect(refused.json().message).toBe('Your Discord access has been suspended. Please contact support.')
    expect((await moderate('unban')).json().data).toEqual({ state: 'removed', discord: 'removed' })
    expect(emulator.discord.state().bans.map((ban) => ban.user.username)).not.toContain('bad_actor')
    expect((await createInvite(member.accessToken)).statusCode).toBe(200)
    const audit = (
      await as(t.app, admin.accessToken, {
        method: 'GET',
        url: `${API}/admin/audit?targetId=${member.user.id}`,
      })
    ).json().data
    expect(audit.items.map((entry: { action: string }) => entry.action).slice(0, 3)).toEqual([
      'discord.unban',
      'discord.ban',
      'discord.kick',
    ])
  })

  it('ADMIN-09 broadcasts to the announcements channel and emails members who opted in', async () => {
    const optedIn = await register(t.app, { emailUpdates: true })
    const response = await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/broadcast`,
      payload: { title: 'Big game tonight', message: 'Celtics -4.5 is our top pick.', alsoEmail: true },
    })
    expect(response.statusCode).toBe(200)
    expect(response.json().data.emailed).toBeGreaterThanOrEqual(1)
    const posted = emulator.discord.state().messages[emulator.discord.config.announceChannelId] ?? []
    expect(posted.at(-1)?.content).toBe('**Big game tonight**\nCeltics -4.5 is our top pick.')
    await smtp.waitFor(
      (mail) =>
        JSON.stringify(mail.to).includes(optedIn.user.email) && /Big game tonight/.test(mail.subject ?? ''),
    )
  })

  describe('a broadcast has an identity', () => {
    const broadcast = (payload: Record<string, unknown>) =>
      as(t.app, admin.accessToken, { method: 'POST', url: `${API}/admin/broadcast`, payload })
    const posted = () => emulator.discord.state().messages[emulator.discord.config.announceChannelId] ?? []
    const mailsWith = (subject: string) => smtp.messages.filter((mail) => mail.subject?.includes(subject))

    it('refuses the same broadcast sent again, saying what went out; nothing is posted or mailed twice', async () => {
      const optedIn = await register(t.app, { emailUpdates: true })
      const broadcastId = crypto.randomUUID()
      const payload = { broadcastId, title: 'Once only', message: 'Sent once.', alsoEmail: true }
      const first = await broadcast(payload)
      expect(first.statusCode, first.body).toBe(200)
      const sent = first.json().data
      expect(sent).toMatchObject({
        broadcastId,
        messageId: posted().at(-1)?.id,
        deliveries: [
          { channel: 'discord', status: 'sent', externalId: posted().at(-1)?.id, recipients: null },
          { channel: 'email', status: 'queued', externalId: null, recipients: sent.emailed },
        ],
      })
      expect(sent.emailed).toBeGreaterThanOrEqual(1)
      await smtp.waitFor(
        (mail) =>
          JSON.stringify(mail.to).includes(optedIn.user.email) && /Once only/.test(mail.subject ?? ''),
      )
      const postedBefore = posted().length

      const again = await broadcast(payload)
      expect(again.statusCode).toBe(409)
      expect(again.json()).toEqual({
        success: false,
        error: 'CONFLICT',
        message: `This broadcast was already sent (posted to Discord and emailed to ${sent.emailed} ${sent.emailed === 1 ? 'member' : 'members'}). Nothing was sent again.`,
      })
      await new Promise((resolve) => setTimeout(resolve, 1_500))
      expect(posted()).toHaveLength(postedBefore)
      expect(mailsWith('Once only')).toHaveLength(sent.emailed)

      // Audited under the broadcast's id: the send, and the refusal.
      const audit = (
        await as(t.app, admin.accessToken, {
          method: 'GET',
          url: `${API}/admin/audit?targetId=${broadcastId}`,
        })
      ).json().data.items as { action: string; outcome: string }[]
      expect(audit.map((entry) => [entry.action, entry.outcome])).toEqual([
        ['discord.broadcast', 'failure'],
        ['discord.broadcast', 'success'],
      ])
    })

    it('a new broadcast with the same text really goes out again, on every channel', async () => {
      const optedIn = await register(t.app, { emailUpdates: true })
      const payload = { title: 'Twice on purpose', message: 'Same words, new broadcast.', alsoEmail: true }
      const first = (await broadcast({ ...payload, broadcastId: crypto.randomUUID() })).json().data
      const second = (await broadcast(payload)).json().data
      expect(second.broadcastId).not.toBe(first.broadcastId)
      expect(second.messageId).not.toBe(first.messageId)
      expect(second.emailed).toBe(first.emailed)
      const toMember = (mail: { to?: unknown; subject?: string }) =>
        JSON.stringify(mail.to).includes(optedIn.user.email) && /Twice on purpose/.test(mail.subject ?? '')
      const { eventually } = await import('./helpers/billing')
      await eventually(
        async () => smtp.messages.filter(toMember).length,
        (count) => count === 2,
        30_000,
      )
      expect(posted().filter((message) => message.content.includes('Twice on purpose'))).toHaveLength(2)
    })

    it('posts once to Discord when the same broadcast is sent twice at once', async () => {
      const broadcastId = crypto.randomUUID()
      const payload = { broadcastId, message: 'Double click.', alsoEmail: false }
      const answers = await Promise.all([broadcast(payload), broadcast(payload)])
      expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 409])
      expect(posted().filter((message) => message.content === 'Double click.')).toHaveLength(1)
    })
  })

  it('refuses the Discord admin routes to members', async () => {
    const member = await register(t.app)
    for (const [method, url, payload] of [
      ['POST', '/admin/users/kick', { userId: member.user.id }],
      ['POST', '/admin/users/ban', { userId: member.user.id }],
      ['POST', '/admin/users/unban', { userId: member.user.id }],
      ['POST', '/admin/broadcast', { message: 'hi' }],
      ['GET', '/admin/discord/health', undefined],
    ] as const) {
      expect(
        (await as(t.app, member.accessToken, { method, url: `${API}${url}`, payload })).statusCode,
        url,
      ).toBe(403)
      expect((await t.app.inject({ method, url: `${API}${url}`, payload })).statusCode, url).toBe(401)
    }
  })
})

describe('without Discord configured', () => {
  it('says so clearly instead of failing', async () => {
    const t = await createTestApp({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } })
    try {
      const member = await register(t.app)
      const response = await as(t.app, member.accessToken, {
        method: 'POST',
        url: `${API}/discord/create-invite`,
      })
      expect(response.statusCode).toBe(503)
      expect(response.json()).toMatchObject({
        success: false,
        error: 'UPSTREAM_ERROR',
        message: expect.stringContaining('not connected'),
      })
    } finally {
      await t.close()
    }
  })
})
