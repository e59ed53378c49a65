import type {
  APIChannel,
  APIDMChannel,
  APIExtendedInvite,
  APIGuild,
  APIGuildMember,
  APIInvite,
  APIInviteRole,
  APIMessage,
  APIRole,
  APITextChannel,
  APIUser,
  ChannelFlags,
  GuildMemberFlags,
  GuildSystemChannelFlags,
  InviteFlags,
  InviteTargetUsersJobStatus,
  Locale,
  RESTGetAPIInviteTargetUsersJobStatusResult,
  RoleFlags,
  UserFlags,
} from 'discord-api-types/v10'
import {
  bannedFromGuild,
  maxGuildsReached,
  maxMembersReached,
  missingPermissions,
  unknownInvite,
  unknownMember,
  unknownRole,
} from './errors'
import { hasPermission, type PermissionName, permissionBits } from './permissions'
import { discordTimestamp, isSnowflake, snowflake } from './snowflake'

/**
 * The guild EdgeClub's bot manages, held in memory. Payloads are typed with discord-api-types so the
 * compiler holds them to Discord's documented shapes; enum-typed fields are written as the numbers
 * Discord sends because the emulator imports only types from that package.
 */

export interface DiscordOptions {
  botToken?: string
  guildId?: string
  guildName?: string
  /** Text channel 'welcome' that member invites point at. */
  inviteChannelId?: string
  /** Text channel 'announcements' for broadcasts. */
  announceChannelId?: string
  /** Text channel 'signals', readable only with the Member role, where published signals are posted. */
  signalsChannelId?: string
  /** Role 'Member' given to paying members. */
  memberRoleId?: string
  botUserId?: string
  botUsername?: string
  /** The bot's managed role 'EdgeClub Bot', above Member. */
  botRoleId?: string
  /** Permissions of the bot's role (Discord checks them; add MANAGE_CHANNELS to delete or list invites). */
  botPermissions?: PermissionName[]
  /** The guild owner (a member; nobody can kick or ban them). */
  ownerUserId?: string
  /** A Discord user who is not in the guild, signed in on the OAuth2 consent page until another is picked. */
  signedInUserId?: string
  /** The guild's member cap (`max_members`); adding members beyond it fails with 30019. */
  maxMembers?: number
  /** The OAuth2 application's client id (Discord's application id; defaults to the bot's user id, as on Discord). */
  clientId?: string
  clientSecret?: string
  /** The application name the consent page shows. */
  applicationName?: string
  /** Registered OAuth2 redirect URIs (exact match), or 'loopback': any http://127.0.0.1:<port> or http://localhost:<port> URI. */
  redirectUris?: string[] | 'loopback'
  /** How long an authorization code can be exchanged. */
  codeLifetimeSeconds?: number
  /**
   * More roles the club's server has (e.g. per plan: "VIP", "NFL"), lowest first, between Member and
   * the bot's role, so the bot can give them. Ids are generated when not given.
   */
  extraRoles?: Array<{ id?: string; name: string; color?: number }>
}

export type DiscordConfig = Required<DiscordOptions>

export const DEFAULT_BOT_PERMISSIONS: PermissionName[] = [
  'MANAGE_ROLES',
  'KICK_MEMBERS',
  'BAN_MEMBERS',
  'CREATE_INSTANT_INVITE',
  'SEND_MESSAGES',
]

export function resolveConfig(options: DiscordOptions = {}): DiscordConfig {
  const config: DiscordConfig = {
    botToken: options.botToken ?? 'emulator-bot-token',
    guildId: options.guildId ?? '100000000000000001',
    guildName: options.guildName ?? 'EdgeClub Community',
    inviteChannelId: options.inviteChannelId ?? '100000000000000010',
    announceChannelId: options.announceChannelId ?? '100000000000000011',
    signalsChannelId: options.signalsChannelId ?? '100000000000000012',
    memberRoleId: options.memberRoleId ?? '100000000000000020',
    botUserId: options.botUserId ?? '100000000000000099',
    botUsername: options.botUsername ?? 'EdgeClub Bot',
    botRoleId: options.botRoleId ?? '100000000000000021',
    botPermissions: options.botPermissions ?? DEFAULT_BOT_PERMISSIONS,
    ownerUserId: options.ownerUserId ?? '100000000000000002',
    signedInUserId: options.signedInUserId ?? '100000000000000003',
    maxMembers: options.maxMembers ?? 25_000_000,
    clientId: options.clientId ?? options.botUserId ?? '100000000000000099',
    clientSecret: options.clientSecret ?? 'emulator-client-secret',
    applicationName: options.applicationName ?? 'EdgeClub',
    redirectUris: options.redirectUris ?? 'loopback',
    codeLifetimeSeconds: options.codeLifetimeSeconds ?? 600,
    extraRoles: (options.extraRoles ?? []).map((extra, index) => ({
      ...extra,
      id: extra.id ?? `1000000000000001${String(index).padStart(2, '0')}`,
    })),
  }
  for (const key of [
    'guildId',
    'inviteChannelId',
    'announceChannelId',
    'signalsChannelId',
    'memberRoleId',
    'botUserId',
    'signedInUserId',
    'clientId',
  ] as const) {
    if (!isSnowflake(config[key])) throw new Error(`discord emulator: ${key} must be a snowflake`)
  }
  for (const extra of config.extraRoles)
    if (!isSnowflake(extra.id ?? '') || !extra.name)
      throw new Error('discord emulator: extraRoles need a name and a snowflake id')
  return config
}

export type InviteStatus = 'active' | 'exhausted' | 'expired' | 'revoked'

interface StoredInvite {
  code: string
  channelId: string
  inviterId: string
  maxAge: number
  maxUses: number
  temporary: boolean
  unique: boolean
  uses: number
  createdAt: number
  status: InviteStatus
  /** Roles given to whoever accepts (community invites' `role_ids`). */
  roleIds: string[]
  /** The only users who may see and accept it (`target_users_file`); null: anyone with the link. */
  targetUserIds: string[] | null
  /** When the target users list was last processed (Discord does it in a job). */
  targetUsersAt: number | null
}

interface StoredMember {
  userId: string
  nick: string | null
  roles: string[]
  joinedAt: number
  /** The invite the member joined through (control state only; Discord's REST does not expose it). */
  inviteCode: string | null
}

interface StoredBan {
  userId: string
  reason: string | null
  deleteMessageSeconds: number
  bannedAt: number
}

export interface LogEntry {
  seq: number
  at: string
  method: string
  /** The API path after /discord/api/v10, without the query. */
  path: string
  /** The matched route, e.g. `PUT /guilds/:guildId/members/:userId/roles/:roleId`. */
  route: string | null
  query: string
  status: number
  /** Discord's JSON error code when the call failed with one. */
  code: number | null
  /** The decoded X-Audit-Log-Reason header. */
  reason: string | null
  body: unknown
  /** Set when the answer came from a forced fault rather than the emulated API. */
  forced: boolean
}

export interface UserInput {
  username: string
  userId?: string
  globalName?: string
  /** What /users/@me shows with the `email` scope (default `<username>@example.com`). */
  email?: string
  /** true: the user is in 100 servers already, so adding them anywhere fails with 30001. */
  atGuildLimit?: boolean
}

export interface JoinInput extends UserInput {
  code: string
}

export interface AddMemberInput extends UserInput {
  nick?: string | null
  roles?: string[]
  /** false makes DMs to this user fail with 50007, like a user who closed DMs from server members. */
  acceptsDms?: boolean
}

export interface DiscordState {
  guild: { id: string; name: string; ownerId: string }
  members: Array<{
    user: APIUser
    nick: string | null
    roles: string[]
    joinedAt: string
    inviteCode: string | null
  }>
  bans: Array<{ user: APIUser; reason: string | null; deleteMessageSeconds: number; bannedAt: string }>
  invites: Array<{
    code: string
    channelId: string
    inviterId: string
    uses: number
    maxUses: number
    maxAge: number
    temporary: boolean
    unique: boolean
    createdAt: string
    expiresAt: string | null
    status: InviteStatus
    roleIds: string[]
    targetUserIds: string[] | null
  }>
  /** Guild channel id → messages, oldest first. */
  messages: Record<string, APIMessage[]>
  dms: Array<{ channelId: string; recipientId: string; messages: APIMessage[] }>
  log: LogEntry[]
}

const INVITE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

function inviteCode(): string {
  let code = ''
  for (let i = 0; i < 10; i += 1) code += INVITE_ALPHABET[Math.floor(Math.random() * INVITE_ALPHABET.length)]
  return code
}

function user(id: string, username: string, globalName: string | null, bot = false): APIUser {
  return {
    id,
    username,
    avatar: null,
    // Users moved to unique usernames (discriminator '0'); bots kept four-digit discriminators.
    discriminator: bot ? '4821' : '0',
    public_flags: 0 as UserFlags,
    flags: 0 as UserFlags,
    ...(bot ? { bot: true } : {}),
    banner: null,
    accent_color: null,
    global_name: globalName,
    avatar_decoration_data: null,
    collectibles: null,
    primary_guild: null,
  }
}

function role(
  id: string,
  name: string,
  position: number,
  permissions: bigint,
  extra: Partial<APIRole> = {},
): APIRole {
  return {
    id,
    name,
    color: 0,
    colors: { primary_color: 0, secondary_color: null, tertiary_color: null },
    hoist: false,
    icon: null,
    unicode_emoji: null,
    position,
    permissions: permissions.toString(),
    managed: false,
    mentionable: false,
    flags: 0 as RoleFlags,
    ...extra,
  }
}

function textChannel(id: string, guildId: string, name: string, position: number): APITextChannel {
  return {
    id,
    type: 0,
    guild_id: guildId,
    name,
    position,
    flags: 0 as ChannelFlags,
    parent_id: null,
    topic: null,
    permission_overwrites: [],
    nsfw: false,
    last_message_id: null,
    rate_limit_per_user: 0,
  }
}

export class DiscordStore {
  readonly config: DiscordConfig
  private clockOffsetMs = 0
  botUser!: APIUser
  roles: APIRole[] = []
  channels = new Map<string, APITextChannel>()
  users = new Map<string, APIUser>()
  /** Users with DMs from server members turned off. */
  dmsClosed = new Set<string>()
  emails = new Map<string, string>()
  /** Users already in as many servers as Discord allows. */
  atGuildLimit = new Set<string>()
  maxMembers = 0
  members = new Map<string, StoredMember>()
  bans = new Map<string, StoredBan>()
  invites = new Map<string, StoredInvite>()
  messages = new Map<string, APIMessage[]>()
  /** Recipient user id → their DM channel with the bot. */
  dmChannels = new Map<string, APIDMChannel>()
  log: LogEntry[] = []
  private seq = 0

  constructor(options: DiscordOptions = {}) {
    this.config = resolveConfig(options)
    this.reset()
  }

  /** Emulated wall clock: real time plus whatever tests advanced it by (invite expiry reads it). */
  now(): number {
    return Date.now() + this.clockOffsetMs
  }

  advanceTime(seconds: number): void {
    this.clockOffsetMs += seconds * 1000
  }

  reset(): void {
    const c = this.config
    this.clockOffsetMs = 0
    this.seq = 0
    this.log = []
    this.users.clear()
    this.dmsClosed.clear()
    this.emails.clear()
    this.atGuildLimit.clear()
    this.maxMembers = c.maxMembers
    this.members.clear()
    this.bans.clear()
    this.invites.clear()
    this.messages.clear()
    this.dmChannels.clear()
    this.channels.clear()

    this.botUser = user(c.botUserId, c.botUsername, null, true)
    this.users.set(c.botUserId, this.botUser)
    this.users.set(c.ownerUserId, user(c.ownerUserId, 'clubowner', 'Club Owner'))
    this.upsertUser({ userId: c.signedInUserId, username: 'jordan', globalName: 'Jordan' })

    // A private paid community: @everyone can read, only Member can talk, nobody else can invite.
    this.roles = [
      role(c.guildId, '@everyone', 0, permissionBits(['VIEW_CHANNEL', 'READ_MESSAGE_HISTORY'])),
      role(
        c.memberRoleId,
        'Member',
        1,
        permissionBits(['SEND_MESSAGES', 'ADD_REACTIONS', 'EMBED_LINKS', 'ATTACH_FILES']),
        {
          color: 0x2ecc71,
          colors: { primary_color: 0x2ecc71, secondary_color: null, tertiary_color: null },
          hoist: true,
        },
      ),
      ...c.extraRoles.map((extra, index) =>
        role(extra.id ?? '', extra.name, 2 + index, 0n, {
          color: extra.color ?? 0,
          colors: { primary_color: extra.color ?? 0, secondary_color: null, tertiary_color: null },
        }),
      ),
      role(c.botRoleId, 'EdgeClub Bot', 2 + c.extraRoles.length, permissionBits(c.botPermissions), {
        managed: true,
        tags: { bot_id: c.botUserId },
      }),
    ]
    this.channels.set(c.inviteChannelId, textChannel(c.inviteChannelId, c.guildId, 'welcome', 0))
    this.channels.set(c.announceChannelId, textChannel(c.announceChannelId, c.guildId, 'announcements', 1))
    // Members only: @everyone cannot view it, the Member role can.
    this.channels.set(c.signalsChannelId, {
      ...textChannel(c.signalsChannelId, c.guildId, 'signals', 2),
      permission_overwrites: [
        { id: c.guildId, type: 0, allow: '0', deny: String(1 << 10) },
        { id: c.memberRoleId, type: 0, allow: String(1 << 10), deny: '0' },
      ],
    })
    const createdAt = Date.UTC(2024, 0, 15)
    this.members.set(c.ownerUserId, {
      userId: c.ownerUserId,
      nick: null,
      roles: [],
      joinedAt: createdAt,
      inviteCode: null,
    })
    this.members.set(c.botUserId, {
      userId: c.botUserId,
      nick: null,
      roles: [c.botRoleId],
      joinedAt: createdAt + 60_000,
      inviteCode: null,
    })
  }

  record(entry: Omit<LogEntry, 'seq' | 'at'>): void {
    this.seq += 1
    this.log.push({ seq: this.seq, at: new Date().toISOString(), ...entry })
  }

  // ---- guild ----------------------------------------------------------------------------------

  guild(withCounts: boolean): APIGuild & Record<string, unknown> {
    const c = this.config
    const guild: APIGuild = {
      id: c.guildId,
      name: c.guildName,
      icon: null,
      description: null,
      splash: null,
      discovery_splash: null,
      features: [],
      banner: null,
      owner_id: c.ownerUserId,
      application_id: null,
      region: 'deprecated',
      afk_channel_id: null,
      afk_timeout: 300,
      system_channel_id: c.inviteChannelId,
      system_channel_flags: 0 as GuildSystemChannelFlags,
      widget_enabled: false,
      widget_channel_id: null,
      verification_level: 1,
      roles: this.sortedRoles(),
      default_message_notifications: 1,
      mfa_level: 0,
      explicit_content_filter: 2,
      max_presences: null,
      max_members: this.maxMembers,
      max_stage_video_channel_users: 50,
      max_video_channel_users: 25,
      vanity_url_code: null,
      premium_tier: 0,
      premium_subscription_count: 0,
      preferred_locale: 'en-US' as Locale,
      rules_channel_id: null,
      safety_alerts_channel_id: null,
      public_updates_channel_id: null,
      hub_type: null,
      premium_progress_bar_enabled: false,
      nsfw_level: 0,
      emojis: [],
      stickers: [],
      incidents_data: null,
    }
    if (withCounts) {
      guild.approximate_member_count = this.members.size
      guild.approximate_presence_count = this.members.size
    }
    // Fields Discord sends that discord-api-types does not declare.
    return { ...guild, nsfw: false, home_header: null }
  }

  sortedRoles(): APIRole[] {
    return [...this.roles].sort((a, b) => a.position - b.position)
  }

  findRole(roleId: string): APIRole | undefined {
    return this.roles.find((entry) => entry.id === roleId)
  }

  /** The bot's guild-wide permissions: @everyone plus its roles (channel overwrites are not modelled). */
  botPermissions(): bigint {
    const member = this.members.get(this.config.botUserId)
    let bits = BigInt(this.findRole(this.config.guildId)?.permissions ?? '0')
    for (const roleId of member?.roles ?? []) bits |= BigInt(this.findRole(roleId)?.permissions ?? '0')
    return bits
  }

  requirePermission(name: PermissionName): void {
    if (!hasPermission(this.botPermissions(), name)) throw missingPermissions()
  }

  /** Highest role position of a member; the hierarchy Discord checks before role edits, kicks and bans. */
  highestPosition(userId: string): number {
    const member = this.members.get(userId)
    if (!member) return 0
    return Math.max(0, ...member.roles.map((roleId) => this.findRole(roleId)?.position ?? 0))
  }

  /** Discord refuses to act on the owner, on the bot itself, and on anyone at or above the bot's top role. */
  requireAbove(targetUserId: string): void {
    if (targetUserId === this.config.ownerUserId) throw missingPermissions()
    if (this.highestPosition(targetUserId) >= this.highestPosition(this.config.botUserId))
      throw missingPermissions()
  }

  // ---- users and members ----------------------------------------------------------------------

  /** Usernames are unique on Discord, so a known username is the same user. */
  upsertUser(input: UserInput): APIUser {
    if (typeof input.username !== 'string') throw new Error('discord emulator: username is required')
    const username = input.username.trim().toLowerCase()
    if (!/^[a-z0-9_.]{2,32}$/.test(username)) {
      throw new Error(
        `discord emulator: "${input.username}" is not a valid Discord username (2-32 of a-z 0-9 _ .)`,
      )
    }
    if (input.userId !== undefined && !isSnowflake(input.userId)) {
      throw new Error(`discord emulator: userId "${input.userId}" is not a snowflake`)
    }
    const byName = [...this.users.values()].find((entry) => entry.username === username)
    if (byName && input.userId !== undefined && byName.id !== input.userId) {
      throw new Error(`discord emulator: username "${username}" already belongs to user ${byName.id}`)
    }
    const id = input.userId ?? byName?.id ?? snowflake(this.now())
    const existing = this.users.get(id)
    const globalName = input.globalName ?? existing?.global_name ?? input.username.trim()
    const next = user(id, username, globalName)
    this.users.set(id, next)
    if (input.email !== undefined || !this.emails.has(id))
      this.emails.set(id, input.email ?? `${username}@example.com`)
    if (input.atGuildLimit === true) this.atGuildLimit.add(id)
    if (input.atGuildLimit === false) this.atGuildLimit.delete(id)
    return next
  }

  /** Non-bot users the emulator knows, oldest first. */
  people(): APIUser[] {
    return [...this.users.values()].filter((account) => !account.bot)
  }

  guildFull(): boolean {
    return this.members.size >= this.maxMembers
  }

  /** Bans a user (removing them from the guild); banning someone already banned changes nothing. */
  ban(userId: string, reason: string | null, deleteMessageSeconds = 0): void {
    this.members.delete(userId)
    this.userOrPlaceholder(userId)
    if (!this.bans.has(userId)) {
      this.bans.set(userId, { userId, reason, deleteMessageSeconds, bannedAt: this.now() })
    }
  }

  memberObject(userId: string): APIGuildMember {
    const member = this.members.get(userId)
    const account = this.users.get(userId)
    if (!member || !account) throw unknownMember()
    return {
      avatar: null,
      banner: null,
      communication_disabled_until: null,
      flags: 0 as GuildMemberFlags,
      joined_at: discordTimestamp(member.joinedAt),
      nick: member.nick,
      pending: false,
      premium_since: null,
      roles: [...member.roles],
      user: { ...account },
      mute: false,
      deaf: false,
    }
  }

  addMember(input: AddMemberInput, inviteCodeUsed: string | null = null): APIGuildMember {
    const account = this.upsertUser(input)
    if (this.bans.has(account.id)) throw bannedFromGuild()
    if (input.acceptsDms === false) this.dmsClosed.add(account.id)
    if (input.acceptsDms === true) this.dmsClosed.delete(account.id)
    if (!this.members.has(account.id)) {
      if (this.guildFull()) throw maxMembersReached()
      if (this.atGuildLimit.has(account.id)) throw maxGuildsReached()
      for (const roleId of input.roles ?? []) if (!this.findRole(roleId)) throw unknownRole()
      this.members.set(account.id, {
        userId: account.id,
        nick: input.nick ?? null,
        roles: [...new Set(input.roles ?? [])].filter((roleId) => roleId !== this.config.guildId),
        joinedAt: this.now(),
        inviteCode: inviteCodeUsed,
      })
    }
    return this.memberObject(account.id)
  }

  /**
   * A user accepts an invite: the invite must be usable and meant for them (a targeted invite is
   * unknown to everyone else), the user not banned; one use is consumed. Its roles are given on
   * acceptance, to members already in the server too.
   */
  join(input: JoinInput): APIGuildMember {
    if (typeof input.code !== 'string') throw new Error('discord emulator: invite code is required')
    const invite = this.usableInvite(input.code)
    const account = this.upsertUser(input)
    if (invite.targetUserIds && !invite.targetUserIds.includes(account.id)) throw unknownInvite()
    if (this.bans.has(account.id)) throw bannedFromGuild()
    // Roles deleted since the invite was made are skipped.
    const roles = invite.roleIds.filter((roleId) => this.findRole(roleId))
    const existing = this.members.get(account.id)
    // Opening an invite to a server you are already in just switches to it: no use is consumed.
    if (existing) {
      existing.roles = [...new Set([...existing.roles, ...roles])]
      return this.memberObject(account.id)
    }
    if (this.guildFull()) throw maxMembersReached()
    invite.uses += 1
    if (invite.maxUses > 0 && invite.uses >= invite.maxUses) invite.status = 'exhausted'
    return this.addMember({ ...input, userId: account.id, roles }, invite.code)
  }

  removeMember(userId: string): void {
    if (!this.members.delete(userId)) throw unknownMember()
  }

  searchMembers(query: string, limit: number): APIGuildMember[] {
    const prefix = query.toLowerCase()
    return [...this.members.values()]
      .filter((member) => {
        const account = this.users.get(member.userId)
        return (
          account?.username.toLowerCase().startsWith(prefix) || member.nick?.toLowerCase().startsWith(prefix)
        )
      })
      .slice(0, limit)
      .map((member) => this.memberObject(member.userId))
  }

  // ---- invites --------------------------------------------------------------------------------

  /** Marks expired invites; Discord forgets expired and used-up invites, so they answer 10006. */
  usableInvite(code: string): StoredInvite {
    const invite = this.invites.get(code)
    if (!invite) throw unknownInvite()
    if (
      invite.status === 'active' &&
      invite.maxAge > 0 &&
      this.now() >= invite.createdAt + invite.maxAge * 1000
    ) {
      invite.status = 'expired'
    }
    if (invite.status !== 'active') throw unknownInvite()
    return invite
  }

  activeInvites(filter: (invite: StoredInvite) => boolean): StoredInvite[] {
    return [...this.invites.values()].filter((invite) => {
      if (!filter(invite)) return false
      try {
        this.usableInvite(invite.code)
        return true
      } catch {
        return false
      }
    })
  }

  createInvite(
    channelId: string,
    options: {
      maxAge: number
      maxUses: number
      temporary: boolean
      unique: boolean
      roleIds?: string[]
      targetUserIds?: string[] | null
    },
  ): { invite: StoredInvite; created: boolean } {
    // Without `unique`, Discord hands back an existing invite with the same settings: a bot that
    // forgets `unique: true` gives every member the same code.
    if (!options.unique) {
      const reusable = this.activeInvites(
        (invite) =>
          invite.channelId === channelId &&
          invite.inviterId === this.config.botUserId &&
          invite.maxAge === options.maxAge &&
          invite.maxUses === options.maxUses &&
          invite.temporary === options.temporary,
      )[0]
      if (reusable) return { invite: reusable, created: false }
    }
    let code = inviteCode()
    while (this.invites.has(code)) code = inviteCode()
    const invite: StoredInvite = {
      code,
      channelId,
      inviterId: this.config.botUserId,
      maxAge: options.maxAge,
      maxUses: options.maxUses,
      temporary: options.temporary,
      unique: options.unique,
      uses: 0,
      createdAt: this.now(),
      status: 'active',
      roleIds: options.roleIds ?? [],
      targetUserIds: options.targetUserIds ?? null,
      targetUsersAt: options.targetUserIds ? this.now() : null,
    }
    this.invites.set(code, invite)
    return { invite, created: true }
  }

  inviteObject(invite: StoredInvite, withCounts: boolean): APIInvite & { guild_id: string } {
    const channel = this.channels.get(invite.channelId)
    const inviter = this.users.get(invite.inviterId)
    const object: APIInvite = {
      type: 0,
      code: invite.code,
      ...(inviter ? { inviter: { ...inviter } } : {}),
      expires_at: invite.maxAge > 0 ? discordTimestamp(invite.createdAt + invite.maxAge * 1000) : null,
      flags: 0 as InviteFlags,
      guild: {
        id: this.config.guildId,
        name: this.config.guildName,
        splash: null,
        banner: null,
        description: null,
        icon: null,
        features: [],
        verification_level: 1,
        vanity_url_code: null,
        nsfw_level: 0,
        premium_subscription_count: 0,
      },
      channel: { id: invite.channelId, type: 0, name: channel?.name ?? 'unknown' },
    }
    if (withCounts) {
      object.approximate_member_count = this.members.size
      object.approximate_presence_count = this.members.size
    }
    // The roles a community invite gives, as partial role objects (Discord lists the ones that exist).
    const roles = invite.roleIds.flatMap((roleId): APIInviteRole[] => {
      const role = this.findRole(roleId)
      return role
        ? [
            {
              id: role.id,
              name: role.name,
              position: role.position,
              color: role.color,
              colors: role.colors,
              icon: role.icon ?? null,
              unicode_emoji: role.unicode_emoji ?? null,
            },
          ]
        : []
    })
    return { ...object, ...(roles.length > 0 ? { roles } : {}), guild_id: this.config.guildId }
  }

  /** Replaces who may accept the invite (PUT /invites/{code}/target-users). */
  setTargetUsers(invite: StoredInvite, userIds: string[]): void {
    invite.targetUserIds = userIds
    invite.targetUsersAt = this.now()
  }

  /**
   * The target users job of an invite. Discord processes the file in the background; the emulator
   * does it at once, so a job it knows of is always COMPLETED (2); an invite without one reports 0.
   */
  targetUsersJob(invite: StoredInvite): RESTGetAPIInviteTargetUsersJobStatusResult {
    const at = invite.targetUsersAt
    const count = invite.targetUserIds?.length ?? 0
    return {
      status: (at === null ? 0 : 2) as InviteTargetUsersJobStatus,
      total_users: count,
      processed_users: count,
      created_at: at === null ? null : discordTimestamp(at),
      completed_at: at === null ? null : discordTimestamp(at),
      error_message: null,
    }
  }

  extendedInviteObject(invite: StoredInvite): APIExtendedInvite & { guild_id: string } {
    return {
      ...this.inviteObject(invite, false),
      uses: invite.uses,
      max_uses: invite.maxUses,
      max_age: invite.maxAge,
      temporary: invite.temporary,
      created_at: discordTimestamp(invite.createdAt),
    }
  }

  expireInvite(code: string): void {
    const invite = this.invites.get(code)
    if (!invite) throw unknownInvite()
    if (invite.status === 'active') invite.status = 'expired'
  }

  // ---- bans -----------------------------------------------------------------------------------

  /** Discord accepts a ban for any user id; one the emulator never saw gets a placeholder user. */
  userOrPlaceholder(userId: string): APIUser {
    const known = this.users.get(userId)
    if (known) return known
    const placeholder = user(userId, `user${userId.slice(-6)}`, null)
    this.users.set(userId, placeholder)
    return placeholder
  }

  // ---- channels and messages ------------------------------------------------------------------

  channelObject(channelId: string): APIChannel | undefined {
    const guildChannel = this.channels.get(channelId)
    if (guildChannel) return { ...guildChannel }
    for (const dm of this.dmChannels.values()) if (dm.id === channelId) return { ...dm }
    return undefined
  }

  dmChannelFor(recipientId: string): APIDMChannel {
    let channel = this.dmChannels.get(recipientId)
    if (!channel) {
      const recipient = this.users.get(recipientId)
      channel = {
        id: snowflake(this.now()),
        type: 1,
        name: null,
        last_message_id: null,
        flags: 0 as ChannelFlags,
        recipients: recipient ? [{ ...recipient }] : [],
      }
      this.dmChannels.set(recipientId, channel)
    }
    return channel
  }

  dmRecipient(channelId: string): string | undefined {
    for (const [recipientId, channel] of this.dmChannels) if (channel.id === channelId) return recipientId
    return undefined
  }

  pushMessage(channelId: string, message: APIMessage): void {
    const list = this.messages.get(channelId) ?? []
    list.push(message)
    this.messages.set(channelId, list)
    const guildChannel = this.channels.get(channelId)
    if (guildChannel) guildChannel.last_message_id = message.id
    for (const dm of this.dmChannels.values()) if (dm.id === channelId) dm.last_message_id = message.id
  }

  // ---- snapshot -------------------------------------------------------------------------------

  state(): DiscordState {
    const c = this.config
    const dms = [...this.dmChannels.entries()].map(([recipientId, channel]) => ({
      channelId: channel.id,
      recipientId,
      messages: this.messages.get(channel.id) ?? [],
    }))
    const guildMessages: Record<string, APIMessage[]> = {}
    for (const channelId of this.channels.keys())
      guildMessages[channelId] = this.messages.get(channelId) ?? []
    // Touching each invite settles expiry so the snapshot says which ones are still usable.
    for (const code of this.invites.keys()) {
      try {
        this.usableInvite(code)
      } catch {}
    }
    return structuredClone({
      guild: { id: c.guildId, name: c.guildName, ownerId: c.ownerUserId },
      members: [...this.members.values()].map((member) => ({
        user: this.users.get(member.userId) ?? this.userOrPlaceholder(member.userId),
        nick: member.nick,
        roles: member.roles,
        joinedAt: discordTimestamp(member.joinedAt),
        inviteCode: member.inviteCode,
      })),
      bans: [...this.bans.values()].map((ban) => ({
        user: this.userOrPlaceholder(ban.userId),
        reason: ban.reason,
        deleteMessageSeconds: ban.deleteMessageSeconds,
        bannedAt: discordTimestamp(ban.bannedAt),
      })),
      invites: [...this.invites.values()].map((invite) => ({
        code: invite.code,
        channelId: invite.channelId,
        inviterId: invite.inviterId,
        uses: invite.uses,
        maxUses: invite.maxUses,
        maxAge: invite.maxAge,
        temporary: invite.temporary,
        unique: invite.unique,
        createdAt: discordTimestamp(invite.createdAt),
        expiresAt: invite.maxAge > 0 ? discordTimestamp(invite.createdAt + invite.maxAge * 1000) : null,
        status: invite.status,
        roleIds: [...invite.roleIds],
        targetUserIds: invite.targetUserIds ? [...invite.targetUserIds] : null,
      })),
      messages: guildMessages,
      dms,
      log: this.log,
    })
  }
}
