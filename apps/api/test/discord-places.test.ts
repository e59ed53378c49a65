import type { Emulator } from '@edgeclub/emulator'
import { communityMessages } from '@edgeclub/shared'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { as, register, type Session } from './helpers/members'
import {
  API,
  addChatPlace,
  chatByTitle,
  connectTelegram,
  settled,
  startTelegramHarness,
  type TelegramHarness,
} from './helpers/telegram'

const MANAGED_BOT = [
  'MANAGE_ROLES',
  'KICK_MEMBERS',
  'BAN_MEMBERS',
  'CREATE_INSTANT_INVITE',
  'SEND_MESSAGES',
  'MANAGE_GUILD',
] as const

function discordEnv(emulator: Emulator) {
  const d = emulator.discord.config
  return {
    DISCORD_BOT_TOKEN: d.botToken,
    DISCORD_GUILD_ID: d.guildId,
    DISCORD_INVITE_CHANNEL_ID: d.inviteChannelId,
    DISCORD_MEMBER_ROLE_ID: d.memberRoleId,
    DISCORD_ANNOUNCE_CHANNEL_ID: d.announceChannelId,
    DISCORD_API_BASE: `${emulator.url}/discord/api`,
    DISCORD_CLIENT_ID: d.clientId,
    DISCORD_CLIENT_SECRET: d.clientSecret,
  }
}

/**
 * A club on Discord and Telegram at once, with a VIP role and a VIP chat for its VIP plan: invites
 * carry the plan's roles (so the role is there at join), connected members' invites are theirs alone,
 * a member in the server gets "You're in", and moderation acts on both communities.
 */
describe('Places on Discord (a mixed club)', () => {
  let h: TelegramHarness
  let vipRole: { id: string }
  let memberRole: { id: string }
  let vipChat: { id: string }
  let basicPlanId: string
  let vipPlanId: string

  beforeAll(async () => {
    h = await startTelegramHarness({
      emulator: { discord: { botPermissions: [...MANAGED_BOT], extraRoles: [{ name: 'VIP' }] } },
      env: discordEnv,
    })
    const places = (
      await as(h.t.app, h.admin.accessToken, { method: 'GET', url: `${API}/admin/places` })
    ).json().data
    memberRole = places.places.find((place: { builtIn: boolean }) => place.builtIn)
    const added = await as(h.t.app, h.admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/places`,
      payload: { kind: 'discord_role', roleId: '100000000000000100' },
    })
    expect(added.statusCode, added.body).toBe(201)
    vipRole = added.json().data
    expect(added.json().data).toMatchObject({ kind: 'discord_role', title: 'VIP', builtIn: false })
    vipChat = await addChatPlace(h, 'EdgeClub VIP')
    const plans = (
      await as(h.t.app, h.admin.accessToken, { method: 'GET', url: `${API}/admin/plans?limit=50` })
    ).json().data.items as { id: string; slug: string }[]
    basicPlanId = plans.find((plan) => plan.slug === 'monthly')!.id
    vipPlanId = plans.find((plan) => plan.slug === 'yearly')!.id
    // Monthly: the member role only, no chat. Yearly: VIP too, and the VIP chat.
    for (const [planId, places] of [
      [basicPlanId, { discordRoles: [memberRole.id], telegramChats: [], signalCategories: 'all' }],
      [
        vipPlanId,
        { discordRoles: [memberRole.id, vipRole.id], telegramChats: [vipChat.id], signalCategories: 'all' },
      ],
    ] as const) {
      const saved = await as(h.t.app, h.admin.accessToken, {
        method: 'PUT',
        url: `${API}/admin/plans/${planId}`,
        payload: { places },
      })
      expect(saved.statusCode, saved.body).toBe(200)
    }
  })
  afterAll(async () => {
    await h.close()
  })

  const d = () => h.emulator.discord
  const grant = async (userId: string, planId: string) => {
    const response = await as(h.t.app, h.admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${userId}/grant`,
      payload: { days: 30, planId },
    })
    expect(response.statusCode, response.body).toBe(200)
  }
  const createInvite = (member: Session) =>
    as(h.t.app, member.accessToken, { method: 'POST', url: `${API}/discord/create-invite` })
  const codeOf = (url: string) => url.split('/').at(-1)!
  const discordStatus = async (member: Session) =>
    (await as(h.t.app, member.accessToken, { method: 'GET', url: `${API}/discord/status` })).json().data

  /** Connect Discord while without access (so nothing joins yet), as a browser would. */
  async function connectDiscord(member: Session, username: string) {
    const account = d().createUser({ username })
    const started = await as(h.t.app, member.accessToken, { method: 'POST', url: `${API}/discord/connect` })
    const authorize = new URL(started.json().data.authorizeUrl)
    d().signIn(account.id)
    const form = new URLSearchParams(authorize.searchParams)
    form.set('decision', 'authorize')
    const consent = await fetch(`${authorize.origin}${authorize.pathname}`, {
      method: 'POST',
      body: form,
      redirect: 'manual',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
    })
    const back = new URL(consent.headers.get('location') ?? '')
    const done = await as(h.t.app, member.accessToken, {
      method: 'POST',
      url: `${API}/discord/connect/callback`,
      payload: { code: back.searchParams.get('code'), state: back.searchParams.get('state') },
    })
    expect(done.statusCode, done.body).toBe(200)
    return account
  }

  it("an invite carries the plan's roles: they are there the moment the member joins", async () => {
    const member = await register(h.t.app, { discordUsername: 'vip_vera' })
    await grant(member.user.id, vipPlanId)
    const invite = await createInvite(member)
    expect(invite.statusCode, invite.body).toBe(200)
    const code = codeOf(invite.json().data.inviteUrl)
    expect(
      d()
        .state()
        .invites.find((entry) => entry.code === code),
    ).toMatchObject({
      roleIds: expect.arrayContaining([d().config.memberRoleId, '100000000000000100']),
      targetUserIds: null,
    })
    // Join → role: measured the moment Discord answers the join, before any sync could run.
    const joinedAt = performance.now()
    const joined = d().join({ code, username: 'vip_vera' })
    const roleAfterMs = performance.now() - joinedAt
    expect(joined.roles).toEqual(expect.arrayContaining([d().config.memberRoleId, '100000000000000100']))
    expect(roleAfterMs).toBeLessThan(50)
    // The sync confirms rather than grants: nothing more to add.
    expect(await h.t.app.services.community.syncMember(member.user.id)).toBe('unchanged')

    // In the server now: no new invite, the tab says so.
    const status = await eventually(
      () => discordStatus(member),
      (data) => data.inServer === true,
    )
    expect(status).toMatchObject({ state: 'joined', inServer: true, roleGranted: true })
    const again = await createInvite(member)
    expect(again.statusCode).toBe(409)
    expect(again.json().message).toBe(communityMessages.alreadyInServer)

    // A basic member's invite carries the member role only.
    const basic = await register(h.t.app, { discordUsername: 'basic_bo' })
    await grant(basic.user.id, basicPlanId)
    const basicCode = codeOf((await createInvite(basic)).json().data.inviteUrl)
    expect(
      d()
        .state()
        .invites.find((entry) => entry.code === basicCode)?.roleIds,
    ).toEqual([d().config.memberRoleId])
  })

  it('a connected member gets an invite only their Discord account can accept', async () => {
    const member = await register(h.t.app, { discordUsername: 'typed_name' })
    const account = await connectDiscord(member, 'real_rory')
    await grant(member.user.id, basicPlanId)
    const invite = await createInvite(member)
    expect(invite.statusCode, invite.body).toBe(200)
    const code = codeOf(invite.json().data.inviteUrl)
    expect(
      d()
        .state()
        .invites.find((entry) => entry.code === code)?.targetUserIds,
    ).toEqual([account.id])
    expect(() => d().join({ code, username: 'link_buyer' })).toThrow(/Unknown Invite/)
    expect(d().join({ code, username: 'real_rory' }).roles).toEqual([d().config.memberRoleId])
  })

  it("a plan's new roles reach its members within the minute; the sweep is only the safety net", async () => {
    const member = await register(h.t.app, { discordUsername: 'mover_mo' })
    await grant(member.user.id, basicPlanId)
    d().join({ code: codeOf((await createInvite(member)).json().data.inviteUrl), username: 'mover_mo' })
    const discordId = d()
      .state()
      .members.find((entry) => entry.user.username === 'mover_mo')!.user.id
    const started = Date.now()
    const saved = await as(h.t.app, h.admin.accessToken, {
      method: 'PUT',
      url: `${API}/admin/plans/${basicPlanId}`,
      payload: { places: { discordRoles: [vipRole.id], telegramChats: [], signalCategories: 'all' } },
    })
    expect(saved.statusCode, saved.body).toBe(200)
    await eventually(
      async () => d().member(discordId).roles,
      (roles) => roles.includes('100000000000000100') && !roles.includes(d().config.memberRoleId),
      60_000,
    )
    expect(Date.now() - started).toBeLessThan(60_000)
    await as(h.t.app, h.admin.accessToken, {
      method: 'PUT',
      url: `${API}/admin/plans/${basicPlanId}`,
      payload: { places: { discordRoles: [memberRole.id], telegramChats: [], signalCategories: 'all' } },
    })
    await settled(h)
  })

  it('kick and ban act in both communities', async () => {
    const member = await register(h.t.app, { discordUsername: 'both_bea' })
    await grant(member.user.id, vipPlanId)
    d().join({ code: codeOf((await createInvite(member)).json().data.inviteUrl), username: 'both_bea' })
    const { user } = await connectTelegram(h, member, { first_name: 'Bea', username: 'both_bea_tg' })
    const link = await eventually(
      async () =>
        (await as(h.t.app, member.accessToken, { method: 'GET', url: `${API}/telegram/status` })).json().data,
      (data) => data.chats[0]?.inviteLink,
    )
    h.emulator.telegram.joinByLink(user.id, link.chats[0].inviteLink)
    await settled(h)
    const chatId = chatByTitle(h.emulator, 'EdgeClub VIP').id
    expect(h.emulator.telegram.member(chatId, user.id).status).toBe('member')
    const banned = await as(h.t.app, h.admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/ban`,
      payload: { userId: member.user.id },
    })
    expect(banned.json().data).toEqual({ state: 'banned', discord: 'banned', telegram: 'banned' })
    expect(
      d()
        .state()
        .bans.map((ban) => ban.user.username),
    ).toContain('both_bea')
    expect(h.emulator.telegram.member(chatId, user.id).status).toBe('kicked')
    const detail = (
      await as(h.t.app, h.admin.accessToken, { method: 'GET', url: `${API}/admin/users/${member.user.id}` })
    ).json().data
    expect(detail.discord.banned).toBe(true)
    expect(detail.telegram).toMatchObject({
      banned: true,
      chats: [{ title: 'EdgeClub VIP', state: 'banned' }],
    })
    expect(detail.places).toEqual({
      discordRoles: ['Member', 'VIP'],
      telegramChats: ['EdgeClub VIP'],
      signalCategories: 'all',
    })
  })
})

describe('a bot without Manage Server', () => {
  it('still gives connected members a single-use invite with their roles, and the health check says what to grant', async () => {
    const h = await startTelegramHarness({ env: discordEnv })
    try {
      const member = await register(h.t.app, { discordUsername: 'plain_pat' })
      const admin = h.admin
      await as(h.t.app, admin.accessToken, {
        method: 'POST',
        url: `${API}/admin/users/${member.user.id}/grant`,
        payload: { days: 30 },
      })
      // Connected through OAuth2 without access: recorded, not added to the server.
      const account = h.emulator.discord.createUser({ username: 'plain_pat_real' })
      await h.t.database.db
        .insertInto('discord_connections')
        .values({
          user_id: member.user.id,
          discord_user_id: account.id,
          username: account.username,
          verified_at: new Date(),
        })
        .execute()
      const invite = await as(h.t.app, member.accessToken, {
        method: 'POST',
        url: `${API}/discord/create-invite`,
      })
      expect(invite.statusCode, invite.body).toBe(200)
      const code = invite.json().data.inviteUrl.split('/').at(-1)
      expect(h.emulator.discord.state().invites.find((entry) => entry.code === code)).toMatchObject({
        roleIds: [h.emulator.discord.config.memberRoleId],
        targetUserIds: null,
      })
      expect(h.t.logs()).toContain('the Discord bot lacks Manage Server')
      const health = (
        await as(h.t.app, admin.accessToken, { method: 'GET', url: `${API}/admin/discord/health` })
      ).json().data
      expect(
        health.checks.find((check: { name: string }) => check.name === 'targeted invites'),
      ).toMatchObject({
        ok: false,
        detail: expect.stringContaining('Manage Server'),
      })
    } finally {
      await h.close()
    }
  })
})
