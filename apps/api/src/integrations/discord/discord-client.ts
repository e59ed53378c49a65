import { DiscordAPIError, REST, RequestMethod } from '@discordjs/rest'
import {
  type APIChannel,
  type APIGuild,
  type APIGuildMember,
  type APIInvite,
  type APIMessage,
  type APIRole,
  type APIUser,
  type RESTPostAPIChannelInviteJSONBody,
  type RESTPutAPIGuildMemberJSONBody,
  Routes,
} from 'discord-api-types/v10'

/**
 * Discord's REST API v10 through the official @discordjs/rest client, which keeps to Discord's rate
 * limits (it queues per bucket and waits out a 429's Retry-After). A 5xx is not retried here, back to
 * back: the call fails, and the job that made it tries again later with growing, jittered delays
 * (interactive calls show the error instead). DISCORD_API_BASE points it elsewhere (the emulator).
 */

export interface DiscordSettings {
  botToken: string
  guildId: string
  inviteChannelId: string | undefined
  memberRoleId: string | undefined
  announceChannelId: string | undefined
  apiBase: string | undefined
}

/** Discord's own "not found" codes: unknown invite, member, ban, user. */
const NOT_FOUND_CODES = new Set([10006, 10007, 10013, 10026])

export function isNotFound(error: unknown): boolean {
  return error instanceof DiscordAPIError && (error.status === 404 || NOT_FOUND_CODES.has(Number(error.code)))
}

/** 50013 Missing Permissions (e.g. deleting invites needs Manage Channels, which the bot may lack). */
export function isMissingPermissions(error: unknown): boolean {
  return error instanceof DiscordAPIError && Number(error.code) === 50013
}

/** Discord's error code of a failed call (e.g. 40007 banned, 30001 too many servers), if it gave one. */
export function discordErrorCode(error: unknown): number | undefined {
  if (!(error instanceof DiscordAPIError)) return undefined
  const code = Number(error.code)
  return Number.isInteger(code) ? code : undefined
}

export function createDiscordClient(settings: DiscordSettings) {
  const rest = new REST({
    version: '10',
    retries: 0,
    timeout: 15_000,
    ...(settings.apiBase ? { api: settings.apiBase } : {}),
  }).setToken(settings.botToken)
  const { guildId } = settings

  return {
    settings,
    botUser: () => rest.get(Routes.user('@me')) as Promise<APIUser>,
    guild: () => rest.get(Routes.guild(guildId)) as Promise<APIGuild>,
    roles: () => rest.get(Routes.guildRoles(guildId)) as Promise<APIRole[]>,
    channel: (channelId: string) => rest.get(Routes.channel(channelId)) as Promise<APIChannel>,

    /**
     * A single-use invite. `roleIds` are given the moment it is accepted (a community invite; the bot
     * needs Manage Roles); `targetUserIds` are the only accounts that can see and accept it (sent as
     * Discord's `target_users_file` CSV, multipart; the bot needs Manage Server).
     */
    createInvite: (
      channelId: string,
      options: { maxAgeSeconds: number; reason: string; roleIds?: string[]; targetUserIds?: string[] },
    ) => {
      const body: RESTPostAPIChannelInviteJSONBody = {
        max_age: options.maxAgeSeconds,
        max_uses: 1,
        unique: true,
        temporary: false,
        ...(options.roleIds && options.roleIds.length > 0 ? { role_ids: options.roleIds } : {}),
      }
      const targets = options.targetUserIds ?? []
      return rest.post(Routes.channelInvites(channelId), {
        body,
        reason: options.reason,
        ...(targets.length > 0
          ? {
              files: [
                {
                  key: 'target_users_file',
                  name: 'target-users.csv',
                  contentType: 'text/csv',
                  data: Buffer.from(targets.join('\n')),
                },
              ],
            }
          : {}),
      }) as Promise<APIInvite>
    },
    getInvite: (code: string) =>
      rest.get(Routes.invite(code), {
        query: new URLSearchParams({ with_expiration: 'true' }),
      }) as Promise<APIInvite>,
    deleteInvite: (code: string, reason: string) => rest.delete(Routes.invite(code), { reason }),

    /** Guild members whose username starts with the query (Discord's search), up to `limit`. */
    searchMembers: (query: string, limit = 10) =>
      rest.get(Routes.guildMembersSearch(guildId), {
        query: new URLSearchParams({ query, limit: String(limit) }),
      }) as Promise<APIGuildMember[]>,
    /**
     * Adds a user to the guild with their OAuth2 access token (guilds.join) and these roles: 'added'
     * (201), or 'already-member' (204: Discord then changes nothing, roles included). A failure's
     * DiscordAPIError carries the request body, token included: callers read its code, never log it.
     */
    async addMember(
      userId: string,
      accessToken: string,
      roles: string[],
      reason: string,
    ): Promise<'added' | 'already-member'> {
      const body: RESTPutAPIGuildMemberJSONBody = { access_token: accessToken, roles }
      const response = await rest.queueRequest({
        fullRoute: Routes.guildMember(guildId, userId),
        method: RequestMethod.Put,
        body,
        reason,
      })
      // Read the body to its end, so the connection goes back to the pool.
      await response.arrayBuffer()
      return response.status === 201 ? 'added' : 'already-member'
    },
    getMember: (userId: string) => rest.get(Routes.guildMember(guildId, userId)) as Promise<APIGuildMember>,
    addRole: (userId: string, roleId: string, reason: string) =>
      rest.put(Routes.guildMemberRole(guildId, userId, roleId), { reason }),
    removeRole: (userId: string, roleId: string, reason: string) =>
      rest.delete(Routes.guildMemberRole(guildId, userId, roleId), { reason }),
    kick: (userId: string, reason: string) => rest.delete(Routes.guildMember(guildId, userId), { reason }),
    ban: (userId: string, reason: string) =>
      rest.put(Routes.guildBan(guildId, userId), { body: { delete_message_seconds: 0 }, reason }),
    unban: (userId: string, reason: string) => rest.delete(Routes.guildBan(guildId, userId), { reason }),
    /**
     * Posts a message. With `nonce`, Discord posts it once however often the request is repeated within
     * a few minutes (enforce_nonce): a retry after a lost answer returns the first message.
     */
    sendMessage: (channelId: string, content: string, options: { nonce?: string } = {}) =>
      rest.post(Routes.channelMessages(channelId), {
        body: {
          content,
          allowed_mentions: { parse: [] },
          ...(options.nonce ? { nonce: options.nonce, enforce_nonce: true } : {}),
        },
      }) as Promise<APIMessage>,
  }
}
export type DiscordClient = ReturnType<typeof createDiscordClient>
