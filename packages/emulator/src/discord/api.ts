import type { APIEmbed, APIMessage, APIUser, MessageFlags } from 'discord-api-types/v10'
import {
  bannedFromGuild,
  cannotMessageUser,
  DiscordFileError,
  dmChannelAction,
  emptyMessage,
  FormValidator,
  invalidOAuthToken,
  invalidRecipient,
  maxGuildsReached,
  maxMembersReached,
  missingAccess,
  missingOAuthScope,
  missingPermissions,
  snowflakeFieldError,
  unauthorized,
  unknownBan,
  unknownChannel,
  unknownGuild,
  unknownInvite,
  unknownMember,
  unknownRole,
} from './errors'
import type { FormPart } from './multipart'
import type { AccessToken, OAuth2 } from './oauth2'
import { hasPermission } from './permissions'
import { bucketHash } from './rate-limit'
import { discordTimestamp, isSnowflake, snowflake } from './snowflake'
import type { DiscordStore } from './state'

/**
 * The Discord REST v10 routes EdgeClub's bot uses. Handlers return the status and JSON Discord
 * would, or throw DiscordError; auth, rate limits and logging wrap them in discord.ts.
 */

export interface ApiRequest {
  params: Record<string, string>
  query: URLSearchParams
  body: Record<string, unknown>
  /** Files of a multipart/form-data request (e.g. `target_users_file`), by field name. */
  files: Map<string, FormPart>
  /** A form-encoded body (the OAuth2 token endpoint); empty for other content types. */
  form: URLSearchParams
  /** The raw Authorization header (the token endpoint reads client credentials from it). */
  authorization: string | undefined
  /** The user's OAuth2 access token when the request came with `Authorization: Bearer`. */
  bearer?: AccessToken
  /** Decoded X-Audit-Log-Reason. */
  reason: string | null
}

export interface ApiResponse {
  status: number
  body?: unknown
  headers?: Record<string, string>
}

/**
 * Who may call a route: the bot (`Bot <token>`), the bot or a user's OAuth2 access token
 * (`Bearer <token>`), or an OAuth2 client whose credentials the handler checks itself.
 */
export type RouteAuth = 'bot' | 'bot-or-bearer' | 'client'

export interface ApiRoute {
  method: string
  template: string
  hash: string
  pattern: RegExp
  keys: string[]
  auth: RouteAuth
  handler: (request: ApiRequest) => ApiResponse
}

const ok = (body: unknown): ApiResponse => ({ status: 200, body })
const noContent = (): ApiResponse => ({ status: 204 })

function compile(
  method: string,
  template: string,
  handler: ApiRoute['handler'],
  auth: RouteAuth = 'bot',
): ApiRoute {
  const keys: string[] = []
  const source = template
    .split('/')
    .map((segment) => {
      if (!segment.startsWith(':')) return segment.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')
      keys.push(segment.slice(1))
      return '([^/]+)'
    })
    .join('/')
  return {
    method,
    template,
    hash: bucketHash(method, template),
    pattern: new RegExp(`^${source}/?$`),
    keys,
    auth,
    handler,
  }
}

/** `channelId` → `channel_id`, the name Discord uses in its form errors. */
const snakeCase = (key: string) => key.replace(/[A-Z]/g, (letter) => `_${letter.toLowerCase()}`)

export function matchRoute(
  routes: ApiRoute[],
  method: string,
  path: string,
): { route: ApiRoute; params: Record<string, string> } | 'method-not-allowed' | undefined {
  let pathMatched = false
  for (const route of routes) {
    const found = route.pattern.exec(path)
    if (!found) continue
    pathMatched = true
    if (route.method !== method) continue
    const params: Record<string, string> = {}
    route.keys.forEach((key, index) => {
      params[key] = decodeURIComponent(found[index + 1] ?? '')
    })
    return { route, params }
  }
  return pathMatched ? 'method-not-allowed' : undefined
}

/** Discord validates id path segments before anything else. */
export function validateParams(params: Record<string, string>): void {
  for (const [key, value] of Object.entries(params)) {
    if (key.endsWith('Id') && !isSnowflake(value)) throw snowflakeFieldError(snakeCase(key), value)
  }
}

function intField(
  form: FormValidator,
  body: Record<string, unknown>,
  key: string,
  range: { min: number; max: number; fallback: number },
): number {
  const raw = body[key]
  if (raw === undefined || raw === null) return range.fallback
  const value = typeof raw === 'string' && /^-?\d+$/.test(raw) ? Number(raw) : raw
  if (typeof value !== 'number' || !Number.isInteger(value)) {
    form.add([key], 'NUMBER_TYPE_COERCE', `Value "${String(raw)}" is not int.`)
    return range.fallback
  }
  if (value < range.min)
    form.add([key], 'NUMBER_TYPE_MIN', `int value should be greater than or equal to ${range.min}.`)
  if (value > range.max)
    form.add([key], 'NUMBER_TYPE_MAX', `int value should be less than or equal to ${range.max}.`)
  return value
}

function boolField(form: FormValidator, body: Record<string, unknown>, key: string): boolean {
  const raw = body[key]
  if (raw === undefined || raw === null) return false
  if (typeof raw !== 'boolean') {
    form.add([key], 'BOOLEAN_TYPE_COERCE', `Value "${String(raw)}" is not bool.`)
    return false
  }
  return raw
}

/** A list of ids, e.g. `roles`; each must be a snowflake and none may repeat. */
function snowflakeList(form: FormValidator, key: string, raw: unknown): string[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) {
    form.add([key], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType')
    return []
  }
  raw.forEach((value, index) => {
    if (typeof value !== 'string' || !isSnowflake(value))
      form.add([key, index], 'NUMBER_TYPE_COERCE', `Value "${String(value)}" is not snowflake.`)
  })
  return [...new Set(raw.map(String))]
}

/** How long Discord remembers a nonce for enforce_nonce ("the past few minutes"). */
const NONCE_WINDOW_MS = 5 * 60_000
/** `role_ids` sent as a form field (multipart without payload_json) arrive as JSON text. */
function parseListText(raw: unknown): unknown {
  if (typeof raw !== 'string') return raw
  try {
    return JSON.parse(raw)
  } catch {
    return raw
  }
}

/**
 * The users a `target_users_file` names: a CSV with one column of user ids (a `user_id` header is
 * allowed, duplicates are ignored). Invalid lines answer 400 with each line described, as Discord does.
 */
function targetUsersOf(file: FormPart): string[] {
  const problems: string[] = []
  const ids = new Set<string>()
  file.data
    .toString('utf8')
    .split(/\r?\n/)
    .forEach((line, index) => {
      const value = line.trim().replace(/^"(.*)"$/, '$1')
      if (value === '' || (index === 0 && value.toLowerCase() === 'user_id')) return
      if (!/^\d+$/.test(value)) problems.push(`Line ${index + 1}: invalid user ID format`)
      else if (!isSnowflake(value))
        problems.push(`Line ${index + 1}: invalid user ID - must be a valid Discord snowflake`)
      else ids.add(value)
    })
  if (problems.length > 0) throw new DiscordFileError({ target_users_file: problems })
  return [...ids]
}

function maxLength(form: FormValidator, path: (string | number)[], value: unknown, max: number): number {
  if (value === undefined || value === null) return 0
  if (typeof value !== 'string') {
    form.add(path, 'STRING_TYPE_CONVERT', 'Could not interpret value as string.')
    return 0
  }
  if (value.length > max) form.add(path, 'BASE_TYPE_MAX_LENGTH', `Must be ${max} or fewer in length.`)
  return value.length
}

/** Discord's embed limits: per field, 25 fields, 10 embeds, 6000 characters across all of them. */
function validateEmbeds(form: FormValidator, raw: unknown): APIEmbed[] {
  if (raw === undefined || raw === null) return []
  if (!Array.isArray(raw)) {
    form.add(['embeds'], 'LIST_TYPE_CONVERT', 'Only iterables may be used in a ListType')
    return []
  }
  if (raw.length > 10) form.add(['embeds'], 'BASE_TYPE_MAX_LENGTH', 'Must be 10 or fewer in length.')
  let total = 0
  raw.forEach((embed: Record<string, unknown>, index) => {
    const at = (...rest: (string | number)[]) => ['embeds', index, ...rest]
    total += maxLength(form, at('title'), embed.title, 256)
    total += maxLength(form, at('description'), embed.description, 4096)
    const footer = embed.footer as Record<string, unknown> | undefined
    total += maxLength(form, at('footer', 'text'), footer?.text, 2048)
    const author = embed.author as Record<string, unknown> | undefined
    total += maxLength(form, at('author', 'name'), author?.name, 256)
    const fields = Array.isArray(embed.fields) ? (embed.fields as Record<string, unknown>[]) : []
    if (fields.length > 25) form.add(at('fields'), 'BASE_TYPE_MAX_LENGTH', 'Must be 25 or fewer in length.')
    fields.forEach((field, fieldIndex) => {
      total += maxLength(form, at('fields', fieldIndex, 'name'), field.name, 256)
      total += maxLength(form, at('fields', fieldIndex, 'value'), field.value, 1024)
    })
  })
  if (total > 6000) form.add(['embeds'], 'MAX_EMBED_SIZE_EXCEEDED', 'Embed size exceeds maximum size of 6000')
  return (raw as APIEmbed[]).map((embed) => ({ type: 'rich' as APIEmbed['type'], ...embed }))
}

interface AllowedMentions {
  parse: Set<string>
  users: string[]
  roles: string[]
  /** No allowed_mentions at all: Discord parses every mention in the content. */
  all: boolean
}

function validateAllowedMentions(form: FormValidator, raw: unknown): AllowedMentions {
  if (raw === undefined || raw === null) return { parse: new Set(), users: [], roles: [], all: true }
  const value = raw as Record<string, unknown>
  const parse = Array.isArray(value.parse) ? (value.parse as unknown[]).map(String) : []
  const users = Array.isArray(value.users) ? (value.users as unknown[]).map(String) : []
  const roles = Array.isArray(value.roles) ? (value.roles as unknown[]).map(String) : []
  parse.forEach((entry, index) => {
    if (!['everyone', 'roles', 'users'].includes(entry)) {
      form.add(
        ['allowed_mentions', 'parse', index],
        'ENUM_TYPE_COERCE',
        `Value "${entry}" is not a valid enum value.`,
      )
    }
  })
  if (parse.includes('users') && users.length > 0) {
    form.add(
      ['allowed_mentions'],
      'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
      'parse:["users"] and users: [ids...] are mutually exclusive.',
    )
  }
  if (parse.includes('roles') && roles.length > 0) {
    form.add(
      ['allowed_mentions'],
      'MESSAGE_ALLOWED_MENTIONS_PARSE_EXCLUSIVE',
      'parse:["roles"] and roles: [ids...] are mutually exclusive.',
    )
  }
  return { parse: new Set(parse), users, roles, all: false }
}

export function createApi(store: DiscordStore, oauth: OAuth2): ApiRoute[] {
  const config = store.config

  const requireGuild = (guildId: string | undefined) => {
    if (guildId !== config.guildId) throw unknownGuild()
  }

  const publicUser = (account: APIUser): APIUser => ({ ...account })

  const routes: ApiRoute[] = [
    // ---- users --------------------------------------------------------------------------------
    compile(
      'GET',
      '/users/@me',
      ({ bearer }) => {
        if (!bearer) {
          return ok({
            ...publicUser(store.botUser),
            mfa_enabled: false,
            locale: 'en-US',
            premium_type: 0,
            email: null,
            verified: true,
          })
        }
        // OAuth2: `identify` gives the user, `email` adds the address.
        const withEmail = bearer.scopes.includes('email')
        const account = store.users.get(bearer.userId)
        if (!account || (!bearer.scopes.includes('identify') && !withEmail)) throw unauthorized()
        return ok({
          ...publicUser(account),
          mfa_enabled: false,
          locale: 'en-US',
          premium_type: 0,
          ...(withEmail
            ? { email: store.emails.get(account.id) ?? `${account.username}@example.com`, verified: true }
            : {}),
        })
      },
      'bot-or-bearer',
    ),
    compile('POST', '/users/@me/channels', ({ body }) => {
      const recipientId = body.recipient_id
      if (recipientId === undefined || recipientId === null) {
        const form = new FormValidator()
        form.add(['recipient_id'], 'BASE_TYPE_REQUIRED', 'This field is required')
        form.throwIfAny()
      }
      if (typeof recipientId !== 'string' || !isSnowflake(recipientId)) {
        throw snowflakeFieldError('recipient_id', String(recipientId))
      }
      if (!store.users.has(recipientId) || recipientId === config.botUserId) throw invalidRecipient()
      return ok({ ...store.dmChannelFor(recipientId) })
    }),

    // ---- OAuth2 -------------------------------------------------------------------------------
    compile('POST', '/oauth2/token', ({ form, authorization }) => oauth.token(form, authorization), 'client'),

    // ---- guild --------------------------------------------------------------------------------
    compile('GET', '/guilds/:guildId', ({ params, query }) => {
      requireGuild(params.guildId)
      return ok(store.guild(query.get('with_counts') === 'true'))
    }),
    compile('GET', '/guilds/:guildId/roles', ({ params }) => {
      requireGuild(params.guildId)
      return ok(store.sortedRoles())
    }),
    compile('GET', '/guilds/:guildId/channels', ({ params }) => {
      requireGuild(params.guildId)
      return ok([...store.channels.values()].map((channel) => ({ ...channel })))
    }),

    // ---- channels and invites -----------------------------------------------------------------
    compile('GET', '/channels/:channelId', ({ params }) => {
      const channel = store.channelObject(params.channelId ?? '')
      if (!channel) throw unknownChannel()
      return ok(channel)
    }),
    compile('POST', '/channels/:channelId/invites', ({ params, body, files }) => {
      const channelId = params.channelId ?? ''
      if (!store.channels.has(channelId)) {
        if (store.dmRecipient(channelId)) throw dmChannelAction()
        throw unknownChannel()
      }
      const form = new FormValidator()
      const maxAge = intField(form, body, 'max_age', { min: 0, max: 604_800, fallback: 86_400 })
      const maxUses = intField(form, body, 'max_uses', { min: 0, max: 100, fallback: 0 })
      const temporary = boolField(form, body, 'temporary')
      const unique = boolField(form, body, 'unique')
      const roleIds = snowflakeList(form, 'role_ids', parseListText(body.role_ids))
      if (roleIds.length > 250)
        form.add(['role_ids'], 'BASE_TYPE_MAX_LENGTH', 'Must be 250 or fewer in length.')
      form.throwIfAny()
      store.requirePermission('CREATE_INSTANT_INVITE')
      // Community invites: roles given on acceptance need Manage Roles and roles below the bot's own;
      // a list of the only users who may accept needs Manage Server.
      if (roleIds.length > 0) {
        store.requirePermission('MANAGE_ROLES')
        for (const roleId of roleIds) assignableRole(roleId)
      }
      const targetFile = files.get('target_users_file')
      const targetUserIds = targetFile ? targetUsersOf(targetFile) : null
      if (targetUserIds) store.requirePermission('MANAGE_GUILD')
      const { invite } = store.createInvite(channelId, {
        maxAge,
        maxUses,
        temporary,
        unique: unique || roleIds.length > 0 || targetUserIds !== null,
        roleIds,
        targetUserIds,
      })
      return ok(store.extendedInviteObject(invite))
    }),
    compile('GET', '/invites/:code/target-users', ({ params }) => {
      const invite = store.usableInvite(params.code ?? '')
      requireInviteManager(invite.inviterId, 'VIEW_AUDIT_LOG')
      if (!invite.targetUserIds) throw unknownInvite()
      return {
        status: 200,
        body: ['user_id', ...invite.targetUserIds].join('\n'),
        headers: { 'content-type': 'text/csv' },
      }
    }),
    compile('PUT', '/invites/:code/target-users', ({ params, files }) => {
      const invite = store.usableInvite(params.code ?? '')
      requireInviteManager(invite.inviterId)
      const targetFile = files.get('target_users_file')
      if (!targetFile) {
        const form = new FormValidator()
        form.add(['target_users_file'], 'BASE_TYPE_REQUIRED', 'This field is required')
        form.throwIfAny()
      }
      store.setTargetUsers(invite, targetUsersOf(targetFile as FormPart))
      return noContent()
    }),
    compile('GET', '/invites/:code/target-users/job-status', ({ params }) => {
      const invite = store.usableInvite(params.code ?? '')
      requireInviteManager(invite.inviterId, 'VIEW_AUDIT_LOG')
      return ok(store.targetUsersJob(invite))
    }),
    compile('GET', '/channels/:channelId/invites', ({ params }) => {
      const channelId = params.channelId ?? ''
      if (!store.channels.has(channelId)) {
        if (store.dmRecipient(channelId)) throw dmChannelAction()
        throw unknownChannel()
      }
      store.requirePermission('MANAGE_CHANNELS')
      return ok(
        store
          .activeInvites((invite) => invite.channelId === channelId)
          .map((invite) => store.extendedInviteObject(invite)),
      )
    }),
    compile('GET', '/invites/:code', ({ params, query }) => {
      const invite = store.usableInvite(params.code ?? '')
      // expires_at is always sent now; with_expiration is accepted for older clients.
      return ok(store.inviteObject(invite, query.get('with_counts') === 'true'))
    }),
    compile('DELETE', '/invites/:code', ({ params }) => {
      const invite = store.usableInvite(params.code ?? '')
      // Discord: MANAGE_CHANNELS on the invite's channel, or MANAGE_GUILD for any invite.
      const granted = store.botPermissions()
      if (!hasPermission(granted, 'MANAGE_CHANNELS') && !hasPermission(granted, 'MANAGE_GUILD')) {
        throw missingPermissions()
      }
      invite.status = 'revoked'
      return ok(store.inviteObject(invite, false))
    }),

    // ---- members ------------------------------------------------------------------------------
    compile('GET', '/guilds/:guildId/members/search', ({ params, query }) => {
      requireGuild(params.guildId)
      const form = new FormValidator()
      const search = query.get('query')
      if (search === null) form.add(['query'], 'BASE_TYPE_REQUIRED', 'This field is required')
      else maxLength(form, ['query'], search, 100)
      const limit = intField(form, { limit: query.get('limit') ?? undefined }, 'limit', {
        min: 1,
        max: 1000,
        fallback: 1,
      })
      form.throwIfAny()
      return ok(store.searchMembers(search ?? '', limit))
    }),
    compile('GET', '/guilds/:guildId/members/:userId', ({ params }) => {
      requireGuild(params.guildId)
      return ok(store.memberObject(params.userId ?? ''))
    }),
    compile('PUT', '/guilds/:guildId/members/:userId', ({ params, body }) => {
      requireGuild(params.guildId)
      const userId = params.userId ?? ''
      const form = new FormValidator()
      const accessToken = body.access_token
      if (accessToken === undefined || accessToken === null)
        form.add(['access_token'], 'BASE_TYPE_REQUIRED', 'This field is required')
      else maxLength(form, ['access_token'], accessToken, 10_240)
      const roles = snowflakeList(form, 'roles', body.roles)
      maxLength(form, ['nick'], body.nick, 32)
      form.throwIfAny()
      // The bot adds people the way an invite would.
      store.requirePermission('CREATE_INSTANT_INVITE')
      const token = oauth.accessToken(accessToken)
      if (!token || token.userId !== userId) throw invalidOAuthToken()
      if (!token.scopes.includes('guilds.join')) throw missingOAuthScope()
      if (store.bans.has(userId)) throw bannedFromGuild()
      // Someone already in the guild stays as they are: Discord ignores roles and nick then.
      if (store.members.has(userId)) return noContent()
      if (store.guildFull()) throw maxMembersReached()
      if (store.atGuildLimit.has(userId)) throw maxGuildsReached()
      const given = roles.filter((roleId) => roleId !== config.guildId)
      if (given.length > 0) {
        store.requirePermission('MANAGE_ROLES')
        for (const roleId of given) assignableRole(roleId)
      }
      if (typeof body.nick === 'string') store.requirePermission('MANAGE_NICKNAMES')
      if (body.mute === true) store.requirePermission('MUTE_MEMBERS')
      if (body.deaf === true) store.requirePermission('DEAFEN_MEMBERS')
      store.members.set(userId, {
        userId,
        nick: typeof body.nick === 'string' ? body.nick : null,
        roles: given,
        joinedAt: store.now(),
        inviteCode: null,
      })
      return { status: 201, body: store.memberObject(userId) }
    }),
    compile('DELETE', '/guilds/:guildId/members/:userId', ({ params }) => {
      requireGuild(params.guildId)
      const userId = params.userId ?? ''
      store.requirePermission('KICK_MEMBERS')
      if (!store.members.has(userId)) throw unknownMember()
      store.requireAbove(userId)
      store.members.delete(userId)
      return noContent()
    }),
    compile('PUT', '/guilds/:guildId/members/:userId/roles/:roleId', ({ params }) => {
      const { member, roleId } = roleChange(params)
      if (roleId !== config.guildId && !member.roles.includes(roleId)) member.roles.push(roleId)
      return noContent()
    }),
    compile('DELETE', '/guilds/:guildId/members/:userId/roles/:roleId', ({ params }) => {
      const { member, roleId } = roleChange(params)
      member.roles = member.roles.filter((entry) => entry !== roleId)
      return noContent()
    }),

    // ---- bans ---------------------------------------------------------------------------------
    compile('GET', '/guilds/:guildId/bans/:userId', ({ params }) => {
      requireGuild(params.guildId)
      store.requirePermission('BAN_MEMBERS')
      const ban = store.bans.get(params.userId ?? '')
      if (!ban) throw unknownBan()
      return ok({ reason: ban.reason, user: publicUser(store.userOrPlaceholder(ban.userId)) })
    }),
    compile('PUT', '/guilds/:guildId/bans/:userId', ({ params, body, reason }) => {
      requireGuild(params.guildId)
      const userId = params.userId ?? ''
      const form = new FormValidator()
      const days = intField(form, body, 'delete_message_days', { min: 0, max: 7, fallback: 0 })
      const deleteSeconds = intField(form, body, 'delete_message_seconds', {
        min: 0,
        max: 604_800,
        fallback: days * 86_400,
      })
      form.throwIfAny()
      store.requirePermission('BAN_MEMBERS')
      if (userId === config.botUserId || userId === config.ownerUserId) throw missingPermissions()
      if (store.members.has(userId)) store.requireAbove(userId)
      store.ban(userId, reason, deleteSeconds)
      return noContent()
    }),
    compile('DELETE', '/guilds/:guildId/bans/:userId', ({ params }) => {
      requireGuild(params.guildId)
      store.requirePermission('BAN_MEMBERS')
      if (!store.bans.delete(params.userId ?? '')) throw unknownBan()
      return noContent()
    }),

    // ---- messages -----------------------------------------------------------------------------
    compile('POST', '/channels/:channelId/messages', ({ params, body }) => {
      const channelId = params.channelId ?? ''
      const recipientId = store.dmRecipient(channelId)
      const guildChannel = store.channels.get(channelId)
      if (!guildChannel && !recipientId) throw unknownChannel()

      const form = new FormValidator()
      const contentLength = maxLength(form, ['content'], body.content, 2000)
      if (typeof body.nonce === 'string') maxLength(form, ['nonce'], body.nonce, 25)
      const embeds = validateEmbeds(form, body.embeds)
      const allowed = validateAllowedMentions(form, body.allowed_mentions)
      form.throwIfAny()
      if (contentLength === 0 && embeds.length === 0) throw emptyMessage()

      if (guildChannel) {
        const granted = store.botPermissions()
        if (!hasPermission(granted, 'VIEW_CHANNEL')) throw missingAccess()
        if (!hasPermission(granted, 'SEND_MESSAGES')) throw missingPermissions()
      } else if (recipientId && (!store.members.has(recipientId) || store.dmsClosed.has(recipientId))) {
        // No mutual server any more, or DMs from server members turned off.
        throw cannotMessageUser()
      }

      // enforce_nonce: a message the bot already created with this nonce in the last few minutes is
      // returned again instead of a new one (a retried request posts once).
      const nonce = typeof body.nonce === 'string' || typeof body.nonce === 'number' ? body.nonce : undefined
      if (body.enforce_nonce === true && nonce !== undefined) {
        const since = store.now() - NONCE_WINDOW_MS
        const earlier = (store.messages.get(channelId) ?? []).find(
          (message) =>
            message.nonce === nonce &&
            message.author.id === store.botUser.id &&
            Date.parse(message.timestamp) >= since,
        )
        if (earlier) return ok(earlier)
      }

      const content = typeof body.content === 'string' ? body.content : ''
      const message = buildMessage(channelId, content, embeds, allowed, body, Boolean(guildChannel))
      store.pushMessage(channelId, message)
      return ok(message)
    }),
  ]

  function roleChange(params: Record<string, string>) {
    requireGuild(params.guildId)
    const userId = params.userId ?? ''
    const roleId = params.roleId ?? ''
    store.requirePermission('MANAGE_ROLES')
    const member = store.members.get(userId)
    if (!member) throw unknownMember()
    assignableRole(roleId)
    return { member, roleId }
  }

  /**
   * Target users and their job: the inviter (the bot, for its own invites), Manage Server, or (reading
   * only) View Audit Log, as Discord's invite resource says.
   */
  function requireInviteManager(inviterId: string, alsoAllowed?: 'VIEW_AUDIT_LOG'): void {
    if (inviterId === config.botUserId) return
    const granted = store.botPermissions()
    if (hasPermission(granted, 'MANAGE_GUILD')) return
    if (alsoAllowed && hasPermission(granted, alsoAllowed)) return
    throw missingPermissions()
  }

  /** Only roles strictly below the bot's highest role, and never integration-managed ones. */
  function assignableRole(roleId: string): void {
    const target = store.findRole(roleId)
    if (!target) throw unknownRole()
    if (target.managed || target.position >= store.highestPosition(config.botUserId))
      throw missingPermissions()
  }

  function buildMessage(
    channelId: string,
    content: string,
    embeds: APIEmbed[],
    allowed: AllowedMentions,
    body: Record<string, unknown>,
    inGuild: boolean,
  ): APIMessage {
    const userIds = [...content.matchAll(/<@!?(\d{17,20})>/g)].map((match) => match[1] ?? '')
    const roleIds = [...content.matchAll(/<@&(\d{17,20})>/g)].map((match) => match[1] ?? '')
    const mentions = [...new Set(userIds)]
      .filter((id) => allowed.all || allowed.parse.has('users') || allowed.users.includes(id))
      .map((id) => store.users.get(id))
      .filter((account): account is APIUser => account !== undefined)
      .map(publicUser)
    const mentionRoles = inGuild
      ? [...new Set(roleIds)].filter(
          (id) =>
            store.findRole(id) && (allowed.all || allowed.parse.has('roles') || allowed.roles.includes(id)),
        )
      : []
    const everyoneAllowed = allowed.all || allowed.parse.has('everyone')
    const mentionEveryone =
      inGuild &&
      everyoneAllowed &&
      /@(everyone|here)\b/.test(content) &&
      hasPermission(store.botPermissions(), 'MENTION_EVERYONE')
    const now = store.now()
    const message: APIMessage = {
      type: 0,
      content,
      mentions,
      mention_roles: mentionRoles,
      attachments: [],
      embeds,
      timestamp: discordTimestamp(now),
      edited_timestamp: null,
      flags: (typeof body.flags === 'number' ? body.flags : 0) as MessageFlags,
      components: [],
      id: snowflake(now),
      channel_id: channelId,
      author: publicUser(store.botUser),
      pinned: false,
      mention_everyone: mentionEveryone,
      tts: false,
    }
    if (typeof body.nonce === 'string' || typeof body.nonce === 'number') message.nonce = body.nonce
    return message
  }

  return routes
}
