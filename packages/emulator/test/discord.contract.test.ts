import { DiscordAPIError, HTTPError, REST, type RESTOptions } from '@discordjs/rest'
import {
  type APIChannel,
  type APIDMChannel,
  type APIExtendedInvite,
  type APIGuild,
  type APIGuildMember,
  type APIInvite,
  type APIMessage,
  type APIRole,
  type APIUser,
  type RESTGetAPIGuildBanResult,
  Routes,
} from 'discord-api-types/v10'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { DiscordError } from '../src/discord'
import { type Emulator, startEmulator } from '../src/server'

/**
 * Contract tests: the real @discordjs/rest client, configured the way the app configures it, against
 * the emulator. If these pass, the app's Discord code sees the requests and answers Discord gives.
 */

let emulator: Emulator
let rest: REST
const clients: REST[] = []

function client(target: Emulator, token: string, options: Partial<RESTOptions> = {}): REST {
  const created = new REST({ version: '10', api: `${target.url}/discord/api`, ...options }).setToken(token)
  clients.push(created)
  return created
}

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the request to fail')
}

async function discordError(promise: Promise<unknown>): Promise<DiscordAPIError> {
  const error = await rejection(promise)
  expect(error).toBeInstanceOf(DiscordAPIError)
  return error as DiscordAPIError
}

beforeAll(async () => {
  emulator = await startEmulator({ port: 0 })
})

beforeEach(() => {
  emulator.discord.reset()
  rest = client(emulator, emulator.discord.config.botToken)
})

afterEach(() => {
  // REST keeps sweep timers; stop them so nothing outlives the test.
  for (const created of clients.splice(0)) {
    created.clearHashSweeper()
    created.clearHandlerSweeper()
  }
})

afterAll(async () => {
  await emulator.close()
})

const cfg = () => emulator.discord.config

async function createInvite(body: Record<string, unknown> = { max_age: 3600, max_uses: 1, unique: true }) {
  return (await rest.post(Routes.channelInvites(cfg().inviteChannelId), {
    body,
    reason: 'EdgeClub membership',
  })) as APIExtendedInvite
}

describe('bot, guild, roles and channels', () => {
  it('answers who the bot is and what the guild looks like', async () => {
    const me = (await rest.get(Routes.user('@me'))) as APIUser
    expect(me).toMatchObject({ id: cfg().botUserId, username: 'EdgeClub Bot', bot: true })

    const guild = (await rest.get(Routes.guild(cfg().guildId), {
      query: new URLSearchParams({ with_counts: 'true' }),
    })) as APIGuild
    expect(guild).toMatchObject({
      id: cfg().guildId,
      name: 'EdgeClub Community',
      approximate_member_count: 2,
    })

    const roles = (await rest.get(Routes.guildRoles(cfg().guildId))) as APIRole[]
    const member = roles.find((role) => role.id === cfg().memberRoleId)
    const bot = roles.find((role) => role.name === 'EdgeClub Bot')
    expect(member?.name).toBe('Member')
    expect(bot?.managed).toBe(true)
    expect(bot!.position).toBeGreaterThan(member!.position)
    const permissions = BigInt(bot!.permissions)
    for (const bit of [1n << 28n, 1n << 1n, 1n << 2n, 1n << 0n, 1n << 11n])
      expect(permissions & bit).toBe(bit)

    const channels = (await rest.get(Routes.guildChannels(cfg().guildId))) as APIChannel[]
    expect(channels.map((channel) => [channel.id, channel.name, channel.type])).toEqual([
      [cfg().inviteChannelId, 'welcome', 0],
      [cfg().announceChannelId, 'announcements', 0],
      [cfg().signalsChannelId, 'signals', 0],
    ])
    const channel = (await rest.get(Routes.channel(cfg().announceChannelId))) as APIChannel
    expect(channel).toMatchObject({ name: 'announcements', guild_id: cfg().guildId })
  })

  it('answers Discord errors for unknown guilds and channels', async () => {
    const guild = await discordError(rest.get(Routes.guild('200000000000000001')))
    expect([guild.status, guild.code, guild.message]).toEqual([404, 10004, 'Unknown Guild'])
    const channel = await discordError(rest.get(Routes.channel('200000000000000001')))
    expect([channel.status, channel.code]).toEqual([404, 10003])
  })
})

describe('invites', () => {
  it('creates a single-use invite that one join consumes, after which it is unknown', async () => {
    const invite = await createInvite()
    expect(invite).toMatchObject({
      type: 0,
      uses: 0,
      max_uses: 1,
      max_age: 3600,
      temporary: false,
      guild: { id: cfg().guildId, name: 'EdgeClub Community' },
      channel: { id: cfg().inviteChannelId, name: 'welcome', type: 0 },
      inviter: { id: cfg().botUserId },
    })
    expect(invite.code).toMatch(/^[A-Za-z0-9]{8,10}$/)
    expect(Date.parse(invite.expires_at!) - Date.parse(invite.created_at)).toBe(3_600_000)

    const fetched = (await rest.get(Routes.invite(invite.code), {
      query: new URLSearchParams({ with_counts: 'true', with_expiration: 'true' }),
    })) as APIInvite
    expect(fetched).toMatchObject({
      code: invite.code,
      approximate_member_count: 2,
      expires_at: invite.expires_at,
    })

    const member = emulator.discord.join({ code: invite.code, username: 'alice' })
    expect(member.user).toMatchObject({ username: 'alice', global_name: 'alice', discriminator: '0' })
    expect(member.roles).toEqual([])
    expect(emulator.discord.state().invites).toEqual([
      expect.objectContaining({ code: invite.code, uses: 1, maxUses: 1, status: 'exhausted' }),
    ])

    const gone = await discordError(rest.get(Routes.invite(invite.code)))
    expect([gone.status, gone.code, gone.message]).toEqual([404, 10006, 'Unknown Invite'])
    expect(() => emulator.discord.join({ code: invite.code, username: 'mallory' })).toThrow(DiscordError)
    expect(emulator.discord.state().members.map((entry) => entry.user.username)).not.toContain('mallory')
  })

  it('hands back the same invite when `unique` is not set, as Discord does', async () => {
    const first = await createInvite({ max_age: 3600, max_uses: 1 })
    const second = await createInvite({ max_age: 3600, max_uses: 1 })
    const unique = await createInvite({ max_age: 3600, max_uses: 1, unique: true })
    expect(second.code).toBe(first.code)
    expect(unique.code).not.toBe(first.code)
  })

  it('forgets an invite once its max_age has passed', async () => {
    const invite = await createInvite({ max_age: 60, max_uses: 1, unique: true })
    emulator.discord.advanceTime(61)
    expect((await discordError(rest.get(Routes.invite(invite.code)))).code).toBe(10006)
    expect(emulator.discord.state().invites[0]?.status).toBe('expired')
  })

  it('rejects out-of-range invite settings with Invalid Form Body', async () => {
    const error = await discordError(createInvite({ max_age: 700_000, max_uses: 101 }))
    expect([error.status, error.code]).toEqual([400, 50035])
    expect(error.rawError).toMatchObject({
      errors: {
        max_age: { _errors: [{ code: 'NUMBER_TYPE_MAX' }] },
        max_uses: { _errors: [{ code: 'NUMBER_TYPE_MAX' }] },
      },
    })
  })

  it('needs MANAGE_CHANNELS to delete or list invites, like Discord', async () => {
    const invite = await createInvite()
    const refused = await discordError(rest.delete(Routes.invite(invite.code)))
    expect([refused.status, refused.code]).toEqual([403, 50013])

    const permitted = await startEmulator({
      port: 0,
      discord: {
        botPermissions: [
          'MANAGE_ROLES',
          'KICK_MEMBERS',
          'BAN_MEMBERS',
          'CREATE_INSTANT_INVITE',
          'SEND_MESSAGES',
          'MANAGE_CHANNELS',
        ],
      },
    })
    try {
      const bot = client(permitted, permitted.discord.config.botToken)
      const created = (await bot.post(Routes.channelInvites(cfg().inviteChannelId), {
        body: { max_age: 3600, max_uses: 1, unique: true },
      })) as APIExtendedInvite
      const listed = (await bot.get(Routes.channelInvites(cfg().inviteChannelId))) as APIExtendedInvite[]
      expect(listed.map((entry) => [entry.code, entry.uses])).toEqual([[created.code, 0]])

      const deleted = (await bot.delete(Routes.invite(created.code), { reason: 'plan ended' })) as APIInvite
      expect(deleted.code).toBe(created.code)
      expect((await discordError(bot.get(Routes.invite(created.code)))).code).toBe(10006)
      expect(() => permitted.discord.join({ code: created.code, username: 'alice' })).toThrow(
        /Unknown Invite/,
      )
      expect(permitted.discord.state().invites[0]?.status).toBe('revoked')
      expect(permitted.discord.state().log.at(-2)).toMatchObject({
        method: 'DELETE',
        status: 200,
        reason: 'plan ended',
      })
    } finally {
      await permitted.close()
    }
  })
})

describe('community invites: roles on acceptance and target users', () => {
  const memberRole = () => cfg().memberRoleId
  const withManageServer = () =>
    startEmulator({
      port: 0,
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
  const csv = (lines: string[]) => ({
    key: 'target_users_file',
    name: 'members.csv',
    contentType: 'text/csv',
    data: Buffer.from(lines.join('\n')),
  })

  it('gives the role_ids roles the moment someone accepts, and lists them on the invite', async () => {
    const invite = await createInvite({ max_age: 3600, max_uses: 1, unique: true, role_ids: [memberRole()] })
    expect(invite.roles?.map((role) => [role.id, role.name])).toEqual([[memberRole(), 'Member']])
    const fetched = (await rest.get(Routes.invite(invite.code))) as APIInvite
    expect(fetched.roles?.map((role) => role.id)).toEqual([memberRole()])
    const joined = emulator.discord.join({ code: invite.code, username: 'quick_quinn' })
    expect(joined.roles).toEqual([memberRole()])
    expect(emulator.discord.state().invites[0]?.roleIds).toEqual([memberRole()])
  })

  it('gives the roles to a member already in the server, without using the invite up', async () => {
    emulator.discord.addMember({ username: 'already_here' })
    const invite = await createInvite({ max_age: 3600, max_uses: 1, unique: true, role_ids: [memberRole()] })
    expect(emulator.discord.join({ code: invite.code, username: 'already_here' }).roles).toEqual([
      memberRole(),
    ])
    expect(emulator.discord.state().invites[0]?.uses).toBe(0)
  })

  it('refuses roles the bot may not give: unknown, managed, at or above its own, or without Manage Roles', async () => {
    const unknown = await discordError(createInvite({ role_ids: ['100000000000000777'] }))
    expect([unknown.status, unknown.code]).toEqual([404, 10011])
    const botRole = await discordError(createInvite({ role_ids: [cfg().botRoleId] }))
    expect([botRole.status, botRole.code]).toEqual([403, 50013])
    const malformed = await discordError(createInvite({ role_ids: ['nope'] }))
    expect([malformed.status, malformed.code]).toEqual([400, 50035])

    const noRoles = await startEmulator({
      port: 0,
      discord: { botPermissions: ['CREATE_INSTANT_INVITE', 'SEND_MESSAGES'] },
    })
    try {
      const bot = client(noRoles, noRoles.discord.config.botToken)
      const refused = await discordError(
        bot.post(Routes.channelInvites(cfg().inviteChannelId), { body: { role_ids: [memberRole()] } }),
      )
      expect([refused.status, refused.code]).toEqual([403, 50013])
      // Without role_ids the same bot still makes plain invites.
      await bot.post(Routes.channelInvites(cfg().inviteChannelId), { body: {} })
    } finally {
      await noRoles.close()
    }
  })

  it('needs Manage Server for target users, then only the listed users can accept', async () => {
    const refused = await discordError(
      rest.post(Routes.channelInvites(cfg().inviteChannelId), {
        body: { max_uses: 1, unique: true },
        files: [csv(['100000000000000003'])],
      }),
    )
    expect([refused.status, refused.code]).toEqual([403, 50013])

    const permitted = await withManageServer()
    try {
      const bot = client(permitted, permitted.discord.config.botToken)
      const jordan = permitted.discord.users().find((user) => user.username === 'jordan')!
      // @discordjs/rest sends the JSON parameters as payload_json beside the file.
      const invite = (await bot.post(Routes.channelInvites(cfg().inviteChannelId), {
        body: { max_age: 3600, max_uses: 1, unique: true, role_ids: [memberRole()] },
        files: [csv([jordan.id])],
      })) as APIExtendedInvite
      expect(invite).toMatchObject({ max_uses: 1, max_age: 3600 })
      expect(permitted.discord.state().invites[0]).toMatchObject({
        targetUserIds: [jordan.id],
        roleIds: [memberRole()],
      })
      const job = (await bot.get(`/invites/${invite.code}/target-users/job-status`)) as Record<
        string,
        unknown
      >
      expect(job).toMatchObject({ status: 2, total_users: 1, processed_users: 1, error_message: null })
      const listed = (await bot.get(`/invites/${invite.code}/target-users`)) as ArrayBuffer
      expect(Buffer.from(listed).toString('utf8')).toBe(`user_id\n${jordan.id}`)

      // Anyone else is told the invite does not exist; the listed user joins with the roles.
      expect(() => permitted.discord.join({ code: invite.code, username: 'link_sharer' })).toThrow(
        /Unknown Invite/,
      )
      expect(permitted.discord.state().invites[0]?.uses).toBe(0)
      expect(permitted.discord.join({ code: invite.code, username: 'jordan' }).roles).toEqual([memberRole()])

      // The list can be replaced later.
      const second = (await bot.post(Routes.channelInvites(cfg().inviteChannelId), {
        body: { max_uses: 1, unique: true },
        files: [csv(['user_id', '100000000000000500'])],
      })) as APIExtendedInvite
      await bot.put(`/invites/${second.code}/target-users`, { files: [csv(['100000000000000501'])] })
      expect(permitted.discord.state().invites[1]?.targetUserIds).toEqual(['100000000000000501'])
    } finally {
      await permitted.close()
    }
  })

  it('seeds extra roles between Member and the bot, which invites can give', async () => {
    const club = await startEmulator({ port: 0, discord: { extraRoles: [{ name: 'VIP' }, { name: 'NFL' }] } })
    try {
      const bot = client(club, club.discord.config.botToken)
      const roles = (await bot.get(Routes.guildRoles(cfg().guildId))) as APIRole[]
      expect(roles.map((role) => [role.name, role.position])).toEqual([
        ['@everyone', 0],
        ['Member', 1],
        ['VIP', 2],
        ['NFL', 3],
        ['EdgeClub Bot', 4],
      ])
      const vip = roles.find((role) => role.name === 'VIP')!
      expect(vip.id).toBe('100000000000000100')
      const invite = (await bot.post(Routes.channelInvites(cfg().inviteChannelId), {
        body: { max_uses: 1, unique: true, role_ids: [vip.id, cfg().memberRoleId] },
      })) as APIExtendedInvite
      expect(club.discord.join({ code: invite.code, username: 'vip_val' }).roles).toEqual([
        vip.id,
        cfg().memberRoleId,
      ])
    } finally {
      await club.close()
    }
  })

  it('answers a target users file with bad lines with each line described', async () => {
    const permitted = await withManageServer()
    try {
      const response = await fetch(
        `${permitted.url}/discord/api/v10/channels/${cfg().inviteChannelId}/invites`,
        {
          method: 'POST',
          headers: { authorization: `Bot ${permitted.discord.config.botToken}` },
          body: (() => {
            const form = new FormData()
            form.append('payload_json', JSON.stringify({ max_uses: 1 }))
            form.append(
              'target_users_file',
              new Blob(['100000000000000003\nabc\n99999999999999999999999'], { type: 'text/csv' }),
              'members.csv',
            )
            return form
          })(),
        },
      )
      expect(response.status).toBe(400)
      expect(await response.json()).toEqual({
        target_users_file: [
          'Line 2: invalid user ID format',
          'Line 3: invalid user ID - must be a valid Discord snowflake',
        ],
      })
      expect(permitted.discord.state().invites).toEqual([])
    } finally {
      await permitted.close()
    }
  })
})

describe('members', () => {
  it('searches members by username prefix, case-insensitively, honouring limit', async () => {
    for (const username of ['alice', 'alicia', 'bob']) emulator.discord.addMember({ username })
    const search = (query: string, limit?: number) =>
      rest.get(Routes.guildMembersSearch(cfg().guildId), {
        query: new URLSearchParams({ query, ...(limit ? { limit: String(limit) } : {}) }),
      }) as Promise<APIGuildMember[]>

    expect((await search('ALI', 10)).map((member) => member.user.username)).toEqual(['alice', 'alicia'])
    expect(await search('ali')).toHaveLength(1)
    expect(await search('zed', 10)).toEqual([])
    const missing = await discordError(rest.get(Routes.guildMembersSearch(cfg().guildId)))
    expect([missing.status, missing.code]).toEqual([400, 50035])
  })

  it('adds and removes the member role, recording the audit-log reason', async () => {
    const alice = emulator.discord.addMember({ username: 'alice' })
    const route = Routes.guildMemberRole(cfg().guildId, alice.user.id, cfg().memberRoleId)

    await rest.put(route, { reason: 'Plan active: Pro (monthly)' })
    const member = (await rest.get(Routes.guildMember(cfg().guildId, alice.user.id))) as APIGuildMember
    expect(member.roles).toEqual([cfg().memberRoleId])
    expect(emulator.discord.state().log.find((entry) => entry.method === 'PUT')).toMatchObject({
      path: `/guilds/${cfg().guildId}/members/${alice.user.id}/roles/${cfg().memberRoleId}`,
      route: 'PUT /guilds/:guildId/members/:userId/roles/:roleId',
      status: 204,
      reason: 'Plan active: Pro (monthly)',
    })

    await rest.delete(route, { reason: 'Plan expired' })
    expect(emulator.discord.state().members.find((entry) => entry.user.id === alice.user.id)?.roles).toEqual(
      [],
    )
  })

  it('refuses unknown members, unknown roles and roles at or above the bot', async () => {
    const alice = emulator.discord.addMember({ username: 'alice' })
    const nobody = await discordError(
      rest.put(Routes.guildMemberRole(cfg().guildId, '300000000000000001', cfg().memberRoleId)),
    )
    expect([nobody.status, nobody.code, nobody.message]).toEqual([404, 10007, 'Unknown Member'])
    const noRole = await discordError(
      rest.put(Routes.guildMemberRole(cfg().guildId, alice.user.id, '300000000000000001')),
    )
    expect([noRole.status, noRole.code]).toEqual([404, 10011])
    const botRole = await discordError(
      rest.put(Routes.guildMemberRole(cfg().guildId, alice.user.id, cfg().botRoleId)),
    )
    expect([botRole.status, botRole.code]).toEqual([403, 50013])
    const missing = await discordError(rest.get(Routes.guildMember(cfg().guildId, '300000000000000001')))
    expect(missing.code).toBe(10007)
  })

  it('kicks a member but not the owner', async () => {
    const alice = emulator.discord.addMember({ username: 'alice' })
    await rest.delete(Routes.guildMember(cfg().guildId, alice.user.id), { reason: 'Refund' })
    expect((await discordError(rest.get(Routes.guildMember(cfg().guildId, alice.user.id)))).code).toBe(10007)
    expect(emulator.discord.state().log.at(-2)).toMatchObject({
      method: 'DELETE',
      status: 204,
      reason: 'Refund',
    })

    const owner = await discordError(rest.delete(Routes.guildMember(cfg().guildId, cfg().ownerUserId)))
    expect([owner.status, owner.code]).toEqual([403, 50013])
  })

  it('bans a member, which removes them and blocks joining until unbanned', async () => {
    const invite = await createInvite()
    const alice = emulator.discord.join({ code: invite.code, username: 'alice' })

    await rest.put(Routes.guildBan(cfg().guildId, alice.user.id), {
      body: { delete_message_seconds: 3600 },
      reason: 'Chargeback',
    })
    expect(emulator.discord.state().members.map((member) => member.user.id)).not.toContain(alice.user.id)
    const ban = (await rest.get(Routes.guildBan(cfg().guildId, alice.user.id))) as RESTGetAPIGuildBanResult
    expect(ban).toMatchObject({ reason: 'Chargeback', user: { id: alice.user.id, username: 'alice' } })
    expect(emulator.discord.state().bans).toEqual([
      expect.objectContaining({ reason: 'Chargeback', deleteMessageSeconds: 3600 }),
    ])

    const next = await createInvite()
    let refused: unknown
    try {
      emulator.discord.join({ code: next.code, username: 'alice' })
    } catch (error) {
      refused = error
    }
    expect(refused).toMatchObject({ status: 403, code: 40007 })
    expect(emulator.discord.state().invites.find((entry) => entry.code === next.code)?.uses).toBe(0)

    await rest.delete(Routes.guildBan(cfg().guildId, alice.user.id), { reason: 'Resolved' })
    const again = await discordError(rest.delete(Routes.guildBan(cfg().guildId, alice.user.id)))
    expect([again.status, again.code, again.message]).toEqual([404, 10026, 'Unknown Ban'])
    expect(emulator.discord.join({ code: next.code, username: 'alice' }).user.id).toBe(alice.user.id)
  })
})

describe('messages and DMs', () => {
  it('posts a broadcast with embeds to a channel and records it', async () => {
    const message = (await rest.post(Routes.channelMessages(cfg().announceChannelId), {
      body: {
        content: 'New signal @everyone',
        embeds: [{ title: 'BTC long', description: 'Entry 67k', color: 0x2ecc71 }],
        allowed_mentions: { parse: [] },
      },
    })) as APIMessage
    expect(message).toMatchObject({
      channel_id: cfg().announceChannelId,
      content: 'New signal @everyone',
      author: { id: cfg().botUserId, bot: true },
      embeds: [{ type: 'rich', title: 'BTC long' }],
      mention_everyone: false,
      type: 0,
    })
    expect(emulator.discord.state().messages[cfg().announceChannelId]).toEqual([message])
  })

  it('posts once per nonce with enforce_nonce (for a few minutes), and refuses a nonce over 25 characters', async () => {
    const post = (nonce: string, enforce: boolean) =>
      rest.post(Routes.channelMessages(cfg().announceChannelId), {
        body: { content: 'Once only', nonce, enforce_nonce: enforce },
      }) as Promise<APIMessage>
    const first = await post('broadcast-1', true)
    const again = await post('broadcast-1', true)
    expect(again.id).toBe(first.id)
    expect(again.nonce).toBe('broadcast-1')
    // Without enforce_nonce the nonce is only echoed: a new message.
    expect((await post('broadcast-1', false)).id).not.toBe(first.id)
    // After a few minutes the nonce is forgotten.
    emulator.discord.advanceTime(6 * 60)
    expect((await post('broadcast-1', true)).id).not.toBe(first.id)
    expect(emulator.discord.state().messages[cfg().announceChannelId]).toHaveLength(3)
    const long = await discordError(post('n'.repeat(26), true))
    expect([long.status, long.code]).toEqual([400, 50035])
  })

  it('opens a DM channel and records messages sent there', async () => {
    const alice = emulator.discord.addMember({ username: 'alice' })
    const dm = (await rest.post(Routes.userChannels(), {
      body: { recipient_id: alice.user.id },
    })) as APIDMChannel
    expect(dm).toMatchObject({ type: 1, recipients: [{ id: alice.user.id }] })
    const again = (await rest.post(Routes.userChannels(), {
      body: { recipient_id: alice.user.id },
    })) as APIDMChannel
    expect(again.id).toBe(dm.id)

    await rest.post(Routes.channelMessages(dm.id), { body: { content: 'Welcome to EdgeClub!' } })
    expect(emulator.discord.state().dms).toEqual([
      {
        channelId: dm.id,
        recipientId: alice.user.id,
        messages: [expect.objectContaining({ content: 'Welcome to EdgeClub!' })],
      },
    ])
  })

  it('refuses DMs to users who closed them, and empty or oversized messages', async () => {
    const bob = emulator.discord.addMember({ username: 'bob', acceptsDms: false })
    const dm = (await rest.post(Routes.userChannels(), {
      body: { recipient_id: bob.user.id },
    })) as APIDMChannel
    const closed = await discordError(rest.post(Routes.channelMessages(dm.id), { body: { content: 'hi' } }))
    expect([closed.status, closed.code]).toEqual([403, 50007])

    const empty = await discordError(rest.post(Routes.channelMessages(cfg().announceChannelId), { body: {} }))
    expect([empty.status, empty.code]).toEqual([400, 50006])
    const long = await discordError(
      rest.post(Routes.channelMessages(cfg().announceChannelId), { body: { content: 'x'.repeat(2001) } }),
    )
    expect([long.status, long.code]).toEqual([400, 50035])
  })
})

describe('failures @discordjs/rest must cope with', () => {
  it('waits out a 429 using the rate-limit headers, then succeeds', async () => {
    emulator.discord.failNext({ status: 429, retryAfter: 0.2, method: 'GET', path: '/users/@me' })
    const waits: number[] = []
    rest.on('rateLimited', (info) => waits.push(info.timeToReset))
    const started = Date.now()
    const me = (await rest.get(Routes.user('@me'))) as APIUser
    const elapsed = Date.now() - started
    expect(me.id).toBe(cfg().botUserId)
    expect(elapsed).toBeGreaterThanOrEqual(200)
    expect(elapsed).toBeLessThan(1000)
    expect(waits.length).toBeGreaterThan(0)
    expect(emulator.discord.state().log.map((entry) => [entry.status, entry.forced])).toEqual([
      [429, true],
      [200, false],
    ])
  })

  it('retries a 5xx (its `retries` option) and gives up with HTTPError after that', async () => {
    const retrying = client(emulator, cfg().botToken, { retries: 2 })
    emulator.discord.failNext({ status: 500, count: 2 })
    const guild = (await retrying.get(Routes.guild(cfg().guildId))) as APIGuild
    expect(guild.id).toBe(cfg().guildId)
    expect(emulator.discord.state().log.map((entry) => entry.status)).toEqual([500, 500, 200])

    emulator.discord.failNext({ status: 503, count: 3 })
    const error = await rejection(retrying.get(Routes.guild(cfg().guildId)))
    expect(error).toBeInstanceOf(HTTPError)
    expect((error as HTTPError).status).toBe(503)
  })

  it('surfaces a bad token as a 401 DiscordAPIError', async () => {
    const wrong = client(emulator, 'not-the-token')
    const error = await discordError(wrong.get(Routes.user('@me')))
    expect([error.status, error.code, error.message]).toEqual([401, 0, '401: Unauthorized'])
  })

  it('keeps within a bucket limit by itself, never hitting a 429', async () => {
    const tight = await startEmulator({ port: 0, discord: { rateLimit: { limit: 2, windowSeconds: 0.25 } } })
    try {
      const bot = client(tight, tight.discord.config.botToken)
      const started = Date.now()
      for (let i = 0; i < 3; i += 1) await bot.get(Routes.guildRoles(cfg().guildId))
      expect(Date.now() - started).toBeGreaterThanOrEqual(200)
      expect(tight.discord.state().log.map((entry) => entry.status)).toEqual([200, 200, 200])
    } finally {
      await tight.close()
    }
  })
})
