import { createHash, randomUUID } from 'node:crypto'
import {
  type BroadcastDelivery,
  type BroadcastResult,
  communityMessages,
  type DiscordInvite,
  telegramMessages,
} from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { Transaction } from 'kysely'
import { setAuditTarget } from '../../audit/audit-scope'
import type { Config } from '../../config'
import type { DB, DiscordConnectionRow, DiscordLinkRow, UserRow } from '../../db/types'
import {
  type DiscordClient,
  isMissingPermissions,
  isNotFound,
} from '../../integrations/discord/discord-client'
import { addMs, type Clock, DAY } from '../../lib/clock'
import { AppError, badRequest, conflict, forbidden, notFound, rateLimited } from '../../lib/errors'
import type { MailQueue } from '../../mail/mail-queue'
import { broadcastEmail } from '../../mail/member-news-emails'
import type { Jobs } from '../../queue/job-runner'
import type { AccountsService } from '../auth/accounts-service'
import type { PlacesService } from '../places/places-service'
import type { CommunityRepository } from './community-repository'
import type { DiscordConnectRepository } from './discord-connect-repository'

/** Invites a member may create in 24 hours (a live, unused one is handed back instead). */
const INVITES_PER_DAY = 5

/** Discord's nonce for a broadcast (at most 25 characters): the same broadcast, the same nonce. */
const broadcastNonce = (id: string) => createHash('sha256').update(id).digest('base64url').slice(0, 25)

/** A PostgreSQL unique violation (the same broadcast recorded by a request racing this one). */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '23505'
}

const CHANNEL_NAMES: Record<BroadcastDelivery['channel'], string> = {
  discord: 'Discord',
  email: 'email',
  telegram: 'Telegram',
}

/** What a broadcast already did, in the admin's words, for the refusal to send it again. */
function alreadySent(deliveries: { channel: string; recipients: number | null }[]): AppError {
  const parts = deliveries.map((delivery) =>
    delivery.channel === 'email'
      ? `emailed to ${delivery.recipients ?? 0} ${delivery.recipients === 1 ? 'member' : 'members'}`
      : delivery.channel === 'telegram'
        ? `sent on Telegram to ${delivery.recipients ?? 0} ${delivery.recipients === 1 ? 'member' : 'members'}`
        : `posted to ${CHANNEL_NAMES[delivery.channel as BroadcastDelivery['channel']] ?? delivery.channel}`,
  )
  return conflict(communityMessages.broadcastAlreadySent(parts.join(' and ') || 'nothing went out'))
}

/** Who has access now, as the access ledger says. */
export interface AccessReader {
  currentAccess(userId: string): Promise<unknown>
}

/**
 * Discord follows the access ledger: invites only for members with access, the member role exactly
 * while they have access, and the admin's kick, ban, unban and broadcast.
 *
 * Whose Discord account is a member's: the one they connected (verified through Discord's OAuth2)
 * first; without one, the guild member whose username matches what they typed, unless verification
 * is required, and never an account another member has connected.
 */
export const connectionView = (connection: DiscordConnectionRow) => ({
  discordUserId: connection.discord_user_id,
  username: connection.username,
  verifiedAt: new Date(connection.verified_at).toISOString(),
})

/** What the Telegram side does when an admin moderates or broadcasts (undefined: no Telegram). */
export interface TelegramCommunity {
  moderate(action: 'kick' | 'ban' | 'unban', userId: string): Promise<'kicked' | 'banned' | 'removed' | null>
  /** Queues the message to every member who connected Telegram, in `trx`; how many it went to. */
  broadcast(input: { key: string; title?: string; message: string }, trx: Transaction<DB>): Promise<number>
}

export function createCommunityService(deps: {
  config: Config['discord']
  discord: DiscordClient | undefined
  repo: CommunityRepository
  connections: DiscordConnectRepository
  accounts: Pick<AccountsService, 'findById'>
  access: AccessReader
  /** What the member's plans open: their Discord roles, and which roles are places the sync manages. */
  places: Pick<PlacesService, 'grantFor' | 'managedDiscordRoles'>
  telegram: TelegramCommunity | undefined
  jobs: Pick<Jobs, 'enqueue'>
  mail: Pick<MailQueue, 'enqueueBulk'>
  clock: Clock
  log: FastifyBaseLogger
}) {
  const { repo, clock, config } = deps

  function discordOrThrow(): DiscordClient {
    if (!deps.discord)
      throw new AppError('UPSTREAM_ERROR', communityMessages.notConfigured, { statusCode: 503 })
    return deps.discord
  }

  const inviteView = (
    user: UserRow,
    invite: { code: string; expires_at: Date; max_uses: number },
  ): DiscordInvite => ({
    inviteUrl: `${config.inviteUrlBase}/${invite.code}`,
    targetUsername: user.discord_username,
    expiresAt: new Date(invite.expires_at).toISOString(),
    maxUses: invite.max_uses,
  })

  async function memberById(discord: DiscordClient, discordUserId: string) {
    try {
      return await discord.getMember(discordUserId)
    } catch (error) {
      if (isNotFound(error)) return undefined
      throw error
    }
  }

  /** True when another member of ours has connected (proven) this Discord account. */
  async function connectedElsewhere(discordUserId: string, userId: string): Promise<boolean> {
    const owner = await deps.connections.findByDiscordId(discordUserId)
    return owner !== undefined && owner.user_id !== userId
  }

  /**
   * The guild member behind a member of ours: their connected account; else the id we saw before;
   * else (when `byUsername`) the member whose username they typed. A Discord account another member
   * connected is never theirs, whatever they typed.
   */
  async function findGuildMember(
    user: UserRow,
    link: DiscordLinkRow | undefined,
    connection: DiscordConnectionRow | undefined,
    options: { byUsername: boolean },
  ) {
    const discord = discordOrThrow()
    if (connection) return memberById(discord, connection.discord_user_id)
    const seen = link?.discord_user_id
    if (seen && !(await connectedElsewhere(seen, user.id))) return memberById(discord, seen)
    if (!options.byUsername || !user.discord_username) return undefined
    const wanted = user.discord_username.toLowerCase()
    const found = await discord.searchMembers(user.discord_username, 10)
    const match = found.find((member) => member.user.username.toLowerCase() === wanted)
    if (!match || (await connectedElsewhere(match.user.id, user.id))) return undefined
    return match
  }

  /** Kick, ban or unban on Discord: the state the member is left in, or null (a kick of someone not there). */
  async function moderateDiscord(
    discord: DiscordClient,
    action: 'kick' | 'ban' | 'unban',
    user: UserRow,
    reason: string | undefined,
  ): Promise<'kicked' | 'banned' | 'removed' | null> {
    const link = await repo.findLink(user.id)
    const connection = await deps.connections.findConnection(user.id)
    const now = clock.now()
    const auditReason = `EdgeClub admin: ${reason || action}`
    if (action === 'unban') {
      const bannedId = connection?.discord_user_id ?? link?.discord_user_id
      if (bannedId) {
        try {
          await discord.unban(bannedId, auditReason)
        } catch (error) {
          if (!isNotFound(error)) throw error
        }
      }
      // The link's new state in a transaction: the admin's audit row commits with it (plugins/audit.ts).
      await repo.transaction((trx) =>
        repo.saveLink(user.id, { state: 'removed', banned_at: null, role_granted: false }, now, trx),
      )
      return 'removed' as const
    }
    const member = await findGuildMember(user, link, connection, { byUsername: true })
    // An id seen through a typed username is banned only while no other member has connected it.
    const seen =
      link?.discord_user_id && !(await connectedElsewhere(link.discord_user_id, user.id))
        ? link.discord_user_id
        : null
    const discordUserId = member?.user.id ?? connection?.discord_user_id ?? seen
    if (action === 'kick') {
      if (!member) return null
      await discord.kick(member.user.id, auditReason)
      await repo.transaction((trx) =>
        repo.saveLink(
          user.id,
          { discord_user_id: member.user.id, state: 'kicked', role_granted: false },
          now,
          trx,
        ),
      )
      return 'kicked' as const
    }
    // Ban: even someone not in the server yet can be banned once we know their Discord id.
    if (discordUserId) await discord.ban(discordUserId, auditReason)
    const invites = await repo.listLiveInvites(user.id, now)
    for (const invite of invites) {
      await discord.deleteInvite(invite.code, auditReason).catch((error: unknown) => {
        // Without Manage Channels the bot cannot delete invites; a banned user cannot use one anyway,
        // and it expires on its own.
        if (!isNotFound(error) && !isMissingPermissions(error)) throw error
      })
    }
    // Our side of the ban in one transaction, with the admin's audit row (plugins/audit.ts).
    await repo.transaction(async (trx) => {
      for (const invite of invites) await repo.revokeInvite(invite.code, now, trx)
      await repo.saveLink(
        user.id,
        { discord_user_id: discordUserId, state: 'banned', banned_at: now, role_granted: false },
        now,
        trx,
      )
    })
    return 'banned' as const
  }

  return {
    configured: () => Boolean(deps.discord),

    /**
     * POST /discord/create-invite: one live, single-use invite per member with access. It carries the
     * roles the member's plans grant, so they are there the moment the invite is accepted; for a
     * member who connected their Discord account only that account can accept it. A member already
     * in the server gets no invite (the tab says "You're in").
     */
    async createInvite(user: UserRow): Promise<DiscordInvite> {
      const discord = discordOrThrow()
      if (!config.inviteChannelId)
        throw new AppError('UPSTREAM_ERROR', communityMessages.notConfigured, { statusCode: 503 })
      const grant = await deps.places.grantFor(user.id)
      if (!grant.hasAccess) throw forbidden(communityMessages.needsAccess)
      const link = await repo.findLink(user.id)
      if (link?.state === 'banned') throw forbidden(communityMessages.banned)
      const connection = await deps.connections.findConnection(user.id)
      if (!connection && !user.discord_username) throw badRequest(communityMessages.noDiscordUsername)
      const known = connection?.discord_user_id ?? link?.discord_user_id
      if (link?.state === 'joined' && known && (await memberById(discord, known)))
        throw conflict(communityMessages.alreadyInServer)
      const now = clock.now()

      const live = await repo.findLiveInvite(user.id, now)
      if (live) {
        // Discord deletes a single-use invite once it is used (and when it expires), so an invite it
        // still knows is unused: hand the same one back instead of minting another. Unknown: mint anew.
        try {
          await discord.getInvite(live.code)
          return inviteView(user, live)
        } catch (error) {
          if (!isNotFound(error)) throw error
        }
        await repo.revokeInvite(live.code, now)
      }

      if ((await repo.countInvitesSince(user.id, addMs(now, -DAY))) >= INVITES_PER_DAY) {
        throw rateLimited(communityMessages.tooManyInvites)
      }
      const maxAgeSeconds = config.inviteMaxAgeHours * 3600
      const options = {
        maxAgeSeconds,
        reason: `EdgeClub invite for member ${user.id}`,
        // With verification required, only a connected account may get roles (never a typed name).
        roleIds: connection || !config.requireVerified ? grant.discordRoleIds : [],
        targetUserIds: connection ? [connection.discord_user_id] : [],
      }
      let invite: Awaited<ReturnType<DiscordClient['createInvite']>>
      try {
        invite = await discord.createInvite(config.inviteChannelId, options)
      } catch (error) {
        // Limiting who can accept needs Manage Server; without it the invite still works (single use,
        // with its roles), and the admin health check says what to grant.
        if (!isMissingPermissions(error) || options.targetUserIds.length === 0) throw error
        deps.log.warn(
          { userId: user.id },
          'the Discord bot lacks Manage Server: the invite is not limited to the connected account',
        )
        invite = await discord.createInvite(config.inviteChannelId, { ...options, targetUserIds: [] })
      }
      const expiresAt = invite.expires_at ? new Date(invite.expires_at) : addMs(now, maxAgeSeconds * 1000)
      await repo.insertInvite({ userId: user.id, code: invite.code, maxUses: 1, expiresAt, now })
      if (!link || link.state === 'unlinked' || link.state === 'removed' || link.state === 'kicked') {
        await repo.saveLink(user.id, { state: 'invited' }, now)
      }
      return inviteView(user, { code: invite.code, expires_at: expiresAt, max_uses: 1 })
    },

    /**
     * GET /discord/status: what the member's Discord Access tab shows. A member waiting to join gets
     * a fresh look (a role sync, at most one every few seconds) so the role comes once they are in.
     */
    async status(user: UserRow) {
      const link = await repo.findLink(user.id)
      const invite = await repo.findLiveInvite(user.id, clock.now())
      const connection = await deps.connections.findConnection(user.id)
      if (deps.discord && link?.state !== 'banned')
        await deps.jobs.enqueue(
          'discord.sync',
          { userId: user.id },
          { throttle: { key: `poll-${user.id}`, seconds: 5 } },
        )
      return {
        configured: Boolean(deps.discord),
        state: link?.state ?? 'unlinked',
        inServer: link?.state === 'joined',
        roleGranted: Boolean(link?.role_granted),
        discordUsername: user.discord_username,
        invite: invite ? inviteView(user, invite) : null,
        connectAvailable: Boolean(config.oauth),
        verificationRequired: config.requireVerified,
        connection: connection ? connectionView(connection) : null,
      }
    },

    /**
     * The role sync for one member: grant the member role while they have access, remove it (or kick,
     * by configuration) when access ends. Throws on Discord failures so the job retries with backoff.
     */
    async syncMember(
      userId: string,
    ): Promise<'granted' | 'removed' | 'changed' | 'kicked' | 'unchanged' | 'not-in-guild' | 'skipped'> {
      const discord = deps.discord
      const managed = discord ? await deps.places.managedDiscordRoles() : []
      if (!discord || managed.length === 0) return 'skipped'
      const user = await deps.accounts.findById(userId)
      if (!user) return 'skipped'
      const now = clock.now()
      const link = await repo.findLink(userId)
      const connection = await deps.connections.findConnection(userId)
      try {
        const member = await findGuildMember(user, link, connection, { byUsername: !config.requireVerified })
        if (!member) {
          const state = link?.state === 'joined' ? 'removed' : (link?.state ?? 'unlinked')
          // An id we saw through a typed username that another member has since connected is not theirs.
          const forget =
            !connection && link?.discord_user_id && (await connectedElsewhere(link.discord_user_id, userId))
          if (link)
            await repo.saveLink(
              userId,
              {
                state,
                role_granted: false,
                last_synced_at: now,
                last_error: null,
                ...(forget ? { discord_user_id: null } : {}),
              },
              now,
            )
          return 'not-in-guild'
        }
        const banned = link?.state === 'banned'
        // Verification required: an account found by a typed username (before the switch) loses the role.
        const verifiedEnough = Boolean(connection) || !config.requireVerified
        // The roles the member's plans grant, of the roles that are places (others are left alone).
        const grant = await deps.places.grantFor(userId)
        const wanted =
          !banned && verifiedEnough ? grant.discordRoleIds.filter((id) => managed.includes(id)) : []
        const missing = wanted.filter((roleId) => !member.roles.includes(roleId))
        const extra = managed.filter((roleId) => member.roles.includes(roleId) && !wanted.includes(roleId))
        let outcome: 'granted' | 'removed' | 'changed' | 'kicked' | 'unchanged' = 'unchanged'
        if (
          wanted.length === 0 &&
          extra.length > 0 &&
          config.onAccessEnd === 'kick' &&
          !banned &&
          verifiedEnough
        ) {
          await discord.kick(member.user.id, `EdgeClub: ${user.email} no longer has an active plan`)
          outcome = 'kicked'
        } else {
          for (const roleId of missing)
            await discord.addRole(member.user.id, roleId, `EdgeClub: ${user.email}'s plan grants this role`)
          for (const roleId of extra)
            await discord.removeRole(
              member.user.id,
              roleId,
              grant.hasAccess
                ? `EdgeClub: ${user.email}'s plan no longer grants this role`
                : `EdgeClub: ${user.email} no longer has an active plan`,
            )
          if (missing.length > 0 || extra.length > 0)
            outcome = extra.length === 0 ? 'granted' : missing.length === 0 ? 'removed' : 'changed'
        }
        await repo.saveLink(
          userId,
          {
            discord_user_id: member.user.id,
            state: banned ? 'banned' : outcome === 'kicked' ? 'kicked' : 'joined',
            role_granted: outcome !== 'kicked' && wanted.length > 0,
            last_synced_at: now,
            last_error: null,
          },
          now,
        )
        return outcome
      } catch (error) {
        const message = error instanceof Error ? error.message : String(error)
        await repo.saveLink(userId, { last_error: message.slice(0, 300), last_synced_at: now }, now)
        throw error
      }
    },

    syncCandidates: () => repo.syncCandidates(clock.now()),

    /**
     * After a disconnect: the member role leaves the Discord account the member let go, unless that
     * account has been connected again since (then its new owner's sync decides). Then the member's own
     * sync runs, on whatever account is theirs now. Throws on Discord failures so the job retries.
     */
    async releaseAccount(
      userId: string,
      discordUserId: string,
    ): Promise<'released' | 'reconnected' | 'skipped'> {
      const owner = await deps.connections.findByDiscordId(discordUserId)
      if (owner) {
        await deps.jobs.enqueue(
          'discord.sync',
          { userId: owner.user_id },
          { throttle: { key: `poll-${owner.user_id}`, seconds: 5 } },
        )
        return 'reconnected'
      }
      const discord = deps.discord
      const managed = discord ? await deps.places.managedDiscordRoles() : []
      if (!discord || managed.length === 0) return 'skipped'
      const member = await memberById(discord, discordUserId)
      for (const roleId of managed.filter((id) => member?.roles.includes(id))) {
        try {
          await discord.removeRole(
            discordUserId,
            roleId,
            `EdgeClub: member ${userId} disconnected this Discord account`,
          )
        } catch (error) {
          if (!isNotFound(error)) throw error
        }
      }
      await deps.jobs.enqueue('discord.sync', { userId }, { throttle: { key: `poll-${userId}`, seconds: 5 } })
      return 'released'
    },

    /**
     * Admin: kick, ban or unban a member in every community the club runs (Discord and Telegram).
     * A ban also stops invites, join links and roles; kicking someone who is in neither is refused.
     */
    async moderate(action: 'kick' | 'ban' | 'unban', userId: string, reason: string | undefined) {
      if (!deps.discord && !deps.telegram)
        throw new AppError('UPSTREAM_ERROR', communityMessages.notConfigured, { statusCode: 503 })
      const user = await deps.accounts.findById(userId)
      if (!user) throw notFound('Member not found')
      const discord = deps.discord ? await moderateDiscord(deps.discord, action, user, reason) : null
      const telegram = deps.telegram ? await deps.telegram.moderate(action, userId) : null
      if (action === 'kick' && discord === null && telegram === null)
        throw badRequest(
          deps.telegram
            ? `${user.discord_username || user.email} is in neither the Discord server nor the Telegram chats`
            : `${user.discord_username || user.email} is not in the Discord server`,
        )
      const state =
        discord ?? telegram ?? (action === 'unban' ? 'removed' : action === 'ban' ? 'banned' : 'kicked')
      return {
        state,
        ...(deps.discord ? { discord } : {}),
        ...(deps.telegram ? { telegram } : {}),
      }
    },

    /**
     * Admin: a broadcast. It has an identity (`broadcastId`, from the form, or a new one): the same id
     * again is refused as already sent, saying what went out; a new one really goes out on every
     * channel asked for. Discord first when the club has it (a failure there sends nothing anywhere, and
     * the same broadcast can be tried again; its nonce makes Discord post it once even if a crash loses
     * our record of it), then, in one transaction, the record, each channel's delivery, the email outbox
     * and the Telegram sends (one keyed job per recipient each). A club on Telegram only posts there.
     */
    async broadcast(
      input: {
        broadcastId?: string
        message: string
        title?: string
        alsoEmail: boolean
        alsoTelegram?: boolean
      },
      author: { id: string },
    ): Promise<BroadcastResult> {
      const announceChannel = deps.discord && config.announceChannelId ? config.announceChannelId : undefined
      if (input.alsoTelegram && !deps.telegram)
        throw new AppError('UPSTREAM_ERROR', telegramMessages.notConfigured, { statusCode: 503 })
      // Without Discord's channel or Telegram nothing can be posted.
      if (!announceChannel && !input.alsoTelegram)
        throw new AppError('UPSTREAM_ERROR', communityMessages.notConfigured, { statusCode: 503 })
      const id = input.broadcastId ?? randomUUID()
      setAuditTarget(id)
      const earlier = await repo.findBroadcast(id)
      if (earlier) throw alreadySent(earlier.deliveries)

      const content = input.title ? `**${input.title}**\n${input.message}` : input.message
      const posted =
        announceChannel && deps.discord
          ? await deps.discord.sendMessage(announceChannel, content, { nonce: broadcastNonce(id) })
          : undefined
      const now = clock.now()
      const deliveries: BroadcastDelivery[] = posted
        ? [{ channel: 'discord', status: 'sent', externalId: posted.id, recipients: null }]
        : []
      try {
        await repo.transaction(async (trx) => {
          if (input.alsoEmail) {
            const recipients = await repo.listEmailSubscribers(trx)
            // One job per recipient, keyed by the broadcast: queued once, sent once, all or none.
            await deps.mail.enqueueBulk(
              recipients.map((recipient) => ({
                key: `broadcast:${id}:${recipient.id}`,
                message: broadcastEmail(recipient, input),
              })),
              { trx },
            )
            deliveries.push({
              channel: 'email',
              status: 'queued',
              externalId: null,
              recipients: recipients.length,
            })
          }
          if (input.alsoTelegram && deps.telegram) {
            const recipients = await deps.telegram.broadcast(
              { key: `broadcast:${id}`, title: input.title, message: input.message },
              trx,
            )
            deliveries.push({ channel: 'telegram', status: 'queued', externalId: null, recipients })
          }
          await repo.insertBroadcast(
            {
              id,
              title: input.title ?? null,
              message: input.message,
              also_email: input.alsoEmail,
              author_id: author.id,
              created_at: now,
            },
            deliveries.map((delivery) => ({
              channel: delivery.channel,
              status: delivery.status,
              external_id: delivery.externalId,
              recipients: delivery.recipients,
              created_at: now,
            })),
            trx,
          )
        })
      } catch (error) {
        // The same broadcast sent twice at once: the other request recorded it first.
        if (isUniqueViolation(error)) {
          const recorded = await repo.findBroadcast(id)
          if (recorded) throw alreadySent(recorded.deliveries)
        }
        throw error
      }
      const count = (channel: BroadcastDelivery['channel']) =>
        deliveries.find((delivery) => delivery.channel === channel)?.recipients
      const telegram = count('telegram')
      return {
        broadcastId: id,
        sentAt: now.toISOString(),
        messageId: posted?.id ?? null,
        emailed: count('email') ?? 0,
        ...(telegram != null ? { telegram } : {}),
        deliveries,
      }
    },

    /** Admin: is the bot set up right, and do roles match access (drift)? */
    async health() {
      const checks: { name: string; ok: boolean; detail: string }[] = []
      if (!deps.discord) {
        return {
          ok: false,
          checks: [{ name: 'configuration', ok: false, detail: communityMessages.notConfigured }],
          drift: { missingRole: 0, extraRole: 0 },
        }
      }
      const discord = deps.discord
      const check = async (name: string, run: () => Promise<string>) => {
        try {
          checks.push({ name, ok: true, detail: await run() })
        } catch (error) {
          checks.push({ name, ok: false, detail: error instanceof Error ? error.message : String(error) })
        }
      }
      let botId: string | undefined
      await check('bot token', async () => {
        const bot = await discord.botUser()
        botId = bot.id
        return `signed in as ${bot.username}`
      })
      await check('guild', async () => `${(await discord.guild()).name}`)
      for (const [name, id] of [
        ['invite channel', config.inviteChannelId],
        ['announcement channel', config.announceChannelId],
      ] as const) {
        await check(name, async () => {
          if (!id) throw new Error('not configured')
          const channel = await discord.channel(id)
          return 'name' in channel && channel.name ? `#${channel.name}` : id
        })
      }
      await check('member role', async () => {
        if (!config.memberRoleId) throw new Error('DISCORD_MEMBER_ROLE_ID is not set')
        const roles = await discord.roles()
        const role = roles.find((candidate) => candidate.id === config.memberRoleId)
        if (!role) throw new Error('the role does not exist in the guild')
        if (!botId) throw new Error('the bot is unknown')
        const bot = await discord.getMember(botId)
        const botRoles = roles.filter((candidate) => bot.roles.includes(candidate.id))
        const top = Math.max(0, ...botRoles.map((candidate) => candidate.position))
        const manageRoles = botRoles.some(
          (candidate) =>
            (BigInt(candidate.permissions) & (1n << 28n)) !== 0n ||
            (BigInt(candidate.permissions) & 8n) !== 0n,
        )
        if (!manageRoles) throw new Error('the bot lacks the Manage Roles permission')
        if (top <= role.position) throw new Error("the bot's highest role must be above the member role")
        return `@${role.name}; the bot can manage it`
      })
      const rolesWorking = checks.every((item) => item.ok)
      await check('targeted invites', async () => {
        if (!botId) throw new Error('the bot is unknown')
        const [roles, bot] = await Promise.all([discord.roles(), discord.getMember(botId)])
        const manageServer = roles
          // Permissions come from the bot's roles and @everyone (the role at position 0).
          .filter((candidate) => bot.roles.includes(candidate.id) || candidate.position === 0)
          .some((candidate) => (BigInt(candidate.permissions) & (32n | 8n)) !== 0n)
        if (!manageServer)
          throw new Error(
            "the bot lacks Manage Server, so invites cannot be limited to a member's connected account",
          )
        return 'invites for connected members can be accepted by that account only'
      })

      let missingRole = 0
      let extraRole = 0
      const managed = await deps.places.managedDiscordRoles()
      if (rolesWorking && managed.length > 0) {
        for (const link of await repo.listLinkedForDrift(200)) {
          try {
            const member = await discord.getMember(link.discord_user_id!)
            const grant = await deps.places.grantFor(link.user_id)
            const wanted = link.state === 'banned' ? [] : grant.discordRoleIds
            if (wanted.some((roleId) => !member.roles.includes(roleId))) missingRole += 1
            if (managed.some((roleId) => member.roles.includes(roleId) && !wanted.includes(roleId)))
              extraRole += 1
          } catch (error) {
            if (!isNotFound(error)) throw error
          }
        }
      }
      return { ok: checks.every((item) => item.ok), checks, drift: { missingRole, extraRole } }
    },
  }
}
export type CommunityService = ReturnType<typeof createCommunityService>
