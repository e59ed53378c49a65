import { createHash, createHmac, randomBytes, timingSafeEqual } from 'node:crypto'
import { DiscordAPIError } from '@discordjs/rest'
import {
  DISCORD_DISCONNECTS_PER_DAY,
  DISCORD_OAUTH_STATE_MINUTES,
  type DiscordCallback,
  type DiscordConnectResult,
  discordConnectMessages as messages,
} from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { Transaction } from 'kysely'
import type { AuditLog } from '../../audit/audit-log'
import type { DB, DiscordConnectionRow, UserRow } from '../../db/types'
import { type DiscordClient, discordErrorCode } from '../../integrations/discord/discord-client'
import type { DiscordOAuth } from '../../integrations/discord/discord-oauth'
import { addMs, type Clock, DAY } from '../../lib/clock'
import { AppError, badRequest, conflict, forbidden, notFound, rateLimited } from '../../lib/errors'
import type { Jobs } from '../../queue/job-runner'
import type { PlacesService } from '../places/places-service'
import type { CommunityRepository } from './community-repository'
import { type AccessReader, connectionView } from './community-service'
import type { DiscordConnectRepository } from './discord-connect-repository'

/** Connect Discord attempts a member may start in an hour. */
const CONNECT_ATTEMPTS_PER_HOUR = 10

const HOUR = 3_600_000

const hashState = (state: string) => createHash('sha256').update(state).digest('hex')

/** RFC 7636 S256: BASE64URL(SHA-256(verifier)). */
const s256 = (verifier: string) => createHash('sha256').update(verifier, 'ascii').digest('base64url')

/** Discord could not be reached or failed (5xx, timeout, network): not something the member did. */
const discordDown = (message: string = messages.discordDown) =>
  new AppError('UPSTREAM_ERROR', message, { statusCode: 503 })

/** A PostgreSQL unique violation (two requests racing for the same Discord account). */
function isUniqueViolation(error: unknown): boolean {
  return typeof error === 'object' && error !== null && 'code' in error && error.code === '23505'
}

/** What may be logged about a failed Discord call: never the error itself (its request body holds tokens). */
function failureOf(error: unknown) {
  if (error instanceof DiscordAPIError) return { status: error.status, discordCode: String(error.code) }
  return { type: error instanceof Error ? error.name : typeof error }
}

/**
 * Connect Discord: Discord's OAuth2 authorization-code flow (identify, guilds.join). The member proves
 * which Discord account is theirs; while they have access the bot adds that account to the server
 * with the member role in the same step. The member's OAuth2 tokens live only inside `complete`: they
 * are used once and never stored. A single-use state, bound to the member who started and valid for
 * a few minutes, protects the callback from forged and replayed requests; PKCE (S256) binds Discord's
 * code to that attempt, so a code issued on one member's attempt connects nothing on another's.
 */
export function createDiscordConnectService(deps: {
  oauth: DiscordOAuth | undefined
  discord: DiscordClient | undefined
  repo: DiscordConnectRepository
  links: CommunityRepository
  access: AccessReader
  /** The Discord roles the member's plans grant. */
  places: Pick<PlacesService, 'grantFor'>
  audit: Pick<AuditLog, 'record'>
  jobs: Pick<Jobs, 'enqueue'>
  clock: Clock
  log: FastifyBaseLogger
  /** The server's key: an attempt's PKCE verifier is derived from its state with it, never stored. */
  pkceSecret: string
}) {
  const { repo, clock, log } = deps

  /**
   * The attempt's PKCE code_verifier (43 base64url characters, 256 bits): only the server, holding
   * the key, can make it from the state, so a code issued on one member's attempt cannot be redeemed
   * with another attempt's state, even a valid one.
   */
  const verifierOf = (state: string) =>
    createHmac('sha256', deps.pkceSecret).update(`discord-connect-pkce\n${state}`).digest('base64url')

  function oauthOrThrow(): DiscordOAuth {
    if (!deps.oauth) throw new AppError('UPSTREAM_ERROR', messages.notConfigured, { statusCode: 503 })
    return deps.oauth
  }

  /** The member's own audit row; with `trx`, it commits with the change it records, or not at all. */
  const record = (
    user: UserRow,
    action: 'discord.connect' | 'discord.disconnect',
    outcome: 'success' | 'failure',
    details: Record<string, unknown>,
    trx?: Transaction<DB>,
  ) =>
    deps.audit.record(
      {
        actor: { id: user.id, email: user.email },
        action,
        targetType: 'user',
        targetId: user.id,
        outcome,
        details,
      },
      trx,
    )

  /**
   * Checks the state Discord sent back: known, started by this member, unused, unexpired; then uses
   * it up. A state presented by another member is used up too, so a leaked one is dead.
   */
  async function spendState(user: UserRow, state: string | undefined, now: Date): Promise<string> {
    if (!state) throw badRequest(messages.stateMissing)
    const row = await repo.findState(hashState(state))
    if (!row) throw badRequest(messages.stateUnknown)
    if (row.user_id !== user.id) {
      await repo.useState(row.id, now)
      throw forbidden(messages.wrongMember)
    }
    if (row.used_at) throw badRequest(messages.stateReused)
    if (new Date(row.expires_at) <= now) throw badRequest(messages.stateExpired)
    if (!(await repo.useState(row.id, now))) throw badRequest(messages.stateReused)
    // The verifier made now must be the one the attempt's challenge was made from (an attempt from
    // before PKCE, or from before the key changed, has to start again).
    const verifier = verifierOf(state)
    const challenge = Buffer.from(s256(verifier))
    const stored = Buffer.from(row.code_challenge ?? '')
    if (stored.length !== challenge.length || !timingSafeEqual(stored, challenge))
      throw badRequest(messages.stateExpired)
    return verifier
  }

  /** The member's tokens for the code, proven with the attempt's verifier; never kept. */
  async function exchange(oauth: DiscordOAuth, code: string, verifier: string) {
    try {
      return await oauth.exchangeCode(code, verifier)
    } catch (error) {
      if (error instanceof DiscordAPIError && error.code === 'invalid_client') {
        log.error(failureOf(error), 'Discord refused the OAuth2 client credentials (DISCORD_CLIENT_SECRET)')
        throw new AppError('UPSTREAM_ERROR', messages.notConfigured, { statusCode: 503 })
      }
      log.warn(failureOf(error), 'Connect Discord: the code exchange failed')
      if (error instanceof DiscordAPIError && error.status < 500) throw badRequest(messages.codeRejected)
      throw discordDown()
    }
  }

  /** Records the account as the member's, unless it is someone else's or they hold another one. */
  async function link(user: UserRow, account: { id: string; username: string }, now: Date) {
    try {
      return await repo.transaction(async (trx) => {
        const mine = await repo.findConnection(user.id, trx)
        if (mine && mine.discord_user_id !== account.id)
          throw conflict(messages.disconnectFirst(mine.username))
        const owner = await repo.findByDiscordId(account.id, trx)
        if (owner && owner.user_id !== user.id) throw conflict(messages.alreadyLinked)
        const row = mine
          ? await repo.refreshConnection(mine.id, account.username, now, trx)
          : await repo.insertConnection(
              { userId: user.id, discordUserId: account.id, username: account.username, now },
              trx,
            )
        await deps.links.saveLink(user.id, { discord_user_id: account.id, last_error: null }, now, trx)
        await record(
          user,
          'discord.connect',
          'success',
          { discordUserId: account.id, username: account.username },
          trx,
        )
        return row
      })
    } catch (error) {
      if (isUniqueViolation(error)) throw conflict(messages.alreadyLinked)
      throw error
    }
  }

  /**
   * Puts the connected account in the server with the member role: added with the role (201), or
   * already there (204) and the role added. Discord's refusals become the member's messages.
   */
  async function join(
    user: UserRow,
    discord: DiscordClient,
    roleIds: string[],
    connection: DiscordConnectionRow,
    accessToken: string,
    now: Date,
  ): Promise<'added' | 'already-member'> {
    const reason = `EdgeClub: member ${user.id} connected Discord and has an active plan`
    try {
      const outcome = await discord.addMember(connection.discord_user_id, accessToken, roleIds, reason)
      // Already in: Discord ignored `roles`, so each is given on its own.
      if (outcome === 'already-member')
        for (const roleId of roleIds) await discord.addRole(connection.discord_user_id, roleId, reason)
      return outcome
    } catch (error) {
      const code = discordErrorCode(error)
      log.warn(
        { ...failureOf(error), userId: user.id },
        'Connect Discord: adding the member to the server failed',
      )
      if (code === 40007) {
        // Banned in the server (by a moderator on Discord): the ban holds here too.
        await deps.links.saveLink(
          user.id,
          {
            discord_user_id: connection.discord_user_id,
            state: 'banned',
            banned_at: now,
            role_granted: false,
          },
          now,
        )
        throw forbidden(messages.banned)
      }
      if (code === 30001) throw conflict(messages.tooManyServers)
      if (code === 30019) throw conflict(messages.guildFull)
      if (code === 50025 || code === 50026) throw badRequest(messages.missingScope)
      await deps.links.saveLink(
        user.id,
        { last_error: error instanceof Error ? error.message.slice(0, 300) : 'join failed' },
        now,
      )
      throw discordDown(messages.joinDiscordDown)
    }
  }

  async function complete(
    user: UserRow,
    input: DiscordCallback,
  ): Promise<{ result: DiscordConnectResult; message: string }> {
    const oauth = oauthOrThrow()
    const now = clock.now()
    if (input.error) {
      // Cancelled (or refused) on Discord's page: nothing to connect. The state is spent if it is theirs.
      const row = input.state ? await repo.findState(hashState(input.state)) : undefined
      if (row && row.user_id === user.id && !row.used_at) await repo.useState(row.id, now)
      throw badRequest(input.error === 'access_denied' ? messages.cancelled : messages.discordRefused)
    }
    const verifier = await spendState(user, input.state, now)
    if (!input.code) throw badRequest(messages.codeMissing)

    const tokens = await exchange(oauth, input.code, verifier)
    let account: Awaited<ReturnType<DiscordOAuth['currentUser']>>
    try {
      account = await oauth.currentUser(tokens.access_token)
    } catch (error) {
      log.warn(failureOf(error), 'Connect Discord: reading the Discord user failed')
      throw discordDown()
    }

    let connection: DiscordConnectionRow
    try {
      connection = await link(user, account, now)
    } catch (error) {
      if (error instanceof AppError)
        await record(user, 'discord.connect', 'failure', { discordUserId: account.id, reason: error.message })
      throw error
    }
    const view = connectionView(connection)
    const result = (guild: DiscordConnectResult['guild'], roleGranted: boolean) => ({
      connection: view,
      guild,
      roleGranted,
    })

    // Ban wins: the account is recorded as theirs, but it joins nothing and gets no role.
    const standing = await deps.links.findLink(user.id)
    if (standing?.state === 'banned') throw forbidden(messages.banned)

    const discord = deps.discord
    if (!discord)
      return { result: result('not-configured', false), message: messages.connectedOnly(account.username) }
    const syncLater = () =>
      deps.jobs.enqueue(
        'discord.sync',
        { userId: user.id },
        { throttle: { key: `poll-${user.id}`, seconds: 5 } },
      )
    const grant = await deps.places.grantFor(user.id)
    if (!grant.hasAccess) {
      // The account may hold the role from before (another member's typed username): the sync decides.
      await syncLater()
      return { result: result('no-access', false), message: messages.connectedNoAccess(account.username) }
    }
    try {
      const outcome = await join(user, discord, grant.discordRoleIds, connection, tokens.access_token, now)
      await deps.links.saveLink(
        user.id,
        {
          discord_user_id: connection.discord_user_id,
          state: 'joined',
          role_granted: grant.discordRoleIds.length > 0,
          last_synced_at: now,
          last_error: null,
        },
        now,
      )
      return {
        result: result(outcome, grant.discordRoleIds.length > 0),
        message:
          outcome === 'added' ? messages.joined(account.username) : messages.alreadyMember(account.username),
      }
    } catch (error) {
      await syncLater()
      throw error
    }
  }

  return {
    configured: () => Boolean(deps.oauth),

    /** POST /discord/connect: a fresh single-use state and Discord's consent page to send the member to. */
    async start(user: UserRow): Promise<{ authorizeUrl: string }> {
      const oauth = oauthOrThrow()
      const now = clock.now()
      const standing = await deps.links.findLink(user.id)
      if (standing?.state === 'banned') throw forbidden(messages.banned)
      if ((await repo.countStatesSince(user.id, addMs(now, -HOUR))) >= CONNECT_ATTEMPTS_PER_HOUR)
        throw rateLimited(messages.tooManyAttempts)
      await repo.deleteStatesBefore(user.id, addMs(now, -DAY))
      const state = randomBytes(32).toString('base64url')
      const codeChallenge = s256(verifierOf(state))
      await repo.insertState({
        hash: hashState(state),
        userId: user.id,
        codeChallenge,
        now,
        expiresAt: addMs(now, DISCORD_OAUTH_STATE_MINUTES * 60_000),
      })
      return { authorizeUrl: oauth.authorizeUrl(state, codeChallenge) }
    },

    complete,

    /**
     * POST /discord/disconnect: the account stops being the member's. The member role leaves it through
     * a job queued with the change (see releaseAccount), so a crash in between loses nothing.
     */
    async disconnect(user: UserRow): Promise<{ username: string }> {
      const now = clock.now()
      const connection = await repo.findConnection(user.id)
      if (!connection) throw notFound(messages.notConnected)
      const standing = await deps.links.findLink(user.id)
      // A ban stays on the account it was made for.
      if (standing?.state === 'banned') throw forbidden(messages.banned)
      if ((await repo.countDisconnectsSince(user.id, addMs(now, -DAY))) >= DISCORD_DISCONNECTS_PER_DAY)
        throw rateLimited(messages.tooManyDisconnects)
      await repo.transaction(async (trx) => {
        await repo.disconnect(connection.id, now, trx)
        await deps.links.saveLink(
          user.id,
          { discord_user_id: null, state: 'unlinked', role_granted: false, last_error: null },
          now,
          trx,
        )
        await deps.jobs.enqueue(
          'discord.release',
          { userId: user.id, discordUserId: connection.discord_user_id },
          { trx, key: `release:${connection.id}` },
        )
        await record(
          user,
          'discord.disconnect',
          'success',
          { discordUserId: connection.discord_user_id, username: connection.username },
          trx,
        )
      })
      return { username: connection.username }
    },
  }
}
export type DiscordConnectService = ReturnType<typeof createDiscordConnectService>
