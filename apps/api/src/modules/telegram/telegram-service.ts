import { AsyncLocalStorage } from 'node:async_hooks'
import { createHash, randomBytes } from 'node:crypto'
import {
  type AdminTelegram,
  telegramMessages as messages,
  TELEGRAM_CONNECT_MINUTES,
  TELEGRAM_CONNECTS_PER_HOUR,
  type TelegramChatStatus,
  type TelegramConnect,
  type TelegramStatus,
} from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { Bot } from 'grammy'
import type { ChatMember, Update, User } from 'grammy/types'
import type { Transaction } from 'kysely'
import type { DB, PlaceRow, TelegramAccountRow, TelegramChatMemberRow, UserRow } from '../../db/types'
import {
  ALLOWED_UPDATES,
  descriptionIncludes,
  isInChat,
  type TelegramClient,
  telegramFailure,
} from '../../integrations/telegram/telegram-client'
import { addMs, type Clock, DAY } from '../../lib/clock'
import { AppError, forbidden, notFound, rateLimited } from '../../lib/errors'
import type { Jobs } from '../../queue/job-runner'
import type { PlacesService } from '../places/places-service'
import type { AccessService } from '../subscriptions/access-service'
import type { TelegramRepository } from './telegram-repository'
import type { OutgoingMessage } from './telegram-sender'
import { type BotMessage, botTexts, headlined } from './telegram-texts'

const HOUR = 3_600_000

const hashToken = (token: string) => createHash('sha256').update(token).digest('hex')

/** Where someone stands in a chat, as Telegram answers getChatMember. */
type Presence = 'in' | 'out' | 'banned'

function presenceOf(member: ChatMember): Presence {
  if (isInChat(member)) return 'in'
  return member.status === 'kicked' ? 'banned' : 'out'
}

/** The update being handled: its transaction (the outbox of what it causes) and its id (their keys). */
interface UpdateScope {
  trx: Transaction<DB>
  updateId: number
  replies: number
}

const displayName = (account: Pick<TelegramAccountRow, 'username' | 'first_name'>) =>
  account.username ? `@${account.username}` : account.first_name

/**
 * Telegram: the bot ties a Telegram account to a member (a one-time deep link), keeps them in exactly
 * the chats their plans grant (personal links that create join requests, approved only for the tied
 * account while it has access; removal when access ends), answers /status, /links and /stop, and
 * sends what the club sends (signals, broadcasts, reminders) through the rate-limited queue.
 *
 * Updates arrive on the webhook; each is handled once, in one transaction that also queues every
 * call to Telegram it causes (no network inside it). Telegram calls happen in jobs (telegram-jobs.ts).
 */
export function createTelegramService(deps: {
  telegram: TelegramClient | undefined
  repo: TelegramRepository
  places: Pick<PlacesService, 'grantFor' | 'telegramChats' | 'findTelegramChat'>
  access: Pick<AccessService, 'currentAccess'>
  jobs: Pick<Jobs, 'enqueue' | 'enqueueMany'>
  clock: Clock
  appOrigin: string
  /** Where the bot's deep links point (https://t.me; the emulator's page in the demo). */
  linkBase: string
  webhook: { url: string; secret: string } | undefined
  /** Sends one message now, within the flood limits (for the few that cannot wait in the queue). */
  sendNow: ((message: OutgoingMessage) => Promise<unknown>) | undefined
  log: FastifyBaseLogger
}) {
  const { repo, clock, log } = deps
  const texts = botTexts(deps.appOrigin)
  const scope = new AsyncLocalStorage<UpdateScope>()
  let bot: Promise<Bot> | undefined

  function telegramOrThrow(): TelegramClient {
    if (!deps.telegram) throw new AppError('UPSTREAM_ERROR', messages.notConfigured, { statusCode: 503 })
    return deps.telegram
  }

  // ---- sending (always through the queue) ---------------------------------------------------------

  /** Queues a message to a chat, keyed, in `trx` when given. */
  function queueMessage(chatId: string, message: BotMessage, key: string, trx?: Transaction<DB>) {
    const data: OutgoingMessage = { chatId, ...message }
    return deps.jobs.enqueue('telegram.send', data, { key: `tg-send:${key}`, ...(trx ? { trx } : {}) })
  }

  /** A reply to the update being handled (keyed by the update, so a replay sends nothing twice). */
  function reply(chatId: number, message: BotMessage) {
    const current = scope.getStore()
    if (!current) throw new Error('a reply outside an update')
    current.replies += 1
    return queueMessage(String(chatId), message, `reply:${current.updateId}:${current.replies}`, current.trx)
  }

  /** `resend`: the member's links again (/links). */
  const queueSync = (userId: string, key: string, trx: Transaction<DB>, mode?: 'resend') =>
    deps.jobs.enqueue('telegram.sync', { userId, resend: mode === 'resend' }, { trx, key: `tg-sync:${key}` })

  // ---- Telegram calls used by the syncs -----------------------------------------------------------

  async function presence(chatId: string, telegramUserId: string): Promise<Presence> {
    try {
      return presenceOf(await telegramOrThrow().api.getChatMember(chatId, Number(telegramUserId)))
    } catch (error) {
      // Someone Telegram does not know in this chat is simply not in it.
      if (descriptionIncludes(error, 'user not found', 'PARTICIPANT_ID_INVALID')) return 'out'
      throw error
    }
  }

  /** Removes a member who may come back (Telegram's kick: unban without `only_if_banned`). */
  async function removeFromChat(place: PlaceRow, telegramUserId: string): Promise<boolean> {
    try {
      await telegramOrThrow().api.unbanChatMember(place.external_id, Number(telegramUserId))
      return true
    } catch (error) {
      // The chat's owner and its administrators stay: the bot cannot remove them.
      if (descriptionIncludes(error, 'administrator', "can't remove chat owner")) {
        log.warn({ place: place.id }, 'a Telegram chat administrator lost access but stays in the chat')
        return false
      }
      throw error
    }
  }

  async function revokeLink(place: PlaceRow, link: string): Promise<void> {
    try {
      await telegramOrThrow().api.revokeChatInviteLink(place.external_id, link)
    } catch (error) {
      // Revoked or expired already: nothing left to do.
      if (!descriptionIncludes(error, 'INVITE_HASH_EXPIRED', 'wrong invite link')) throw error
    }
  }

  /** Answers a join request; one that is gone or already granted counts as done. */
  async function answerRequest(place: PlaceRow, telegramUserId: string, approve: boolean): Promise<void> {
    const api = telegramOrThrow().api
    try {
      if (approve) await api.approveChatJoinRequest(place.external_id, Number(telegramUserId))
      else await api.declineChatJoinRequest(place.external_id, Number(telegramUserId))
    } catch (error) {
      if (!descriptionIncludes(error, 'HIDE_REQUESTER_MISSING', 'USER_ALREADY_PARTICIPANT')) throw error
    }
  }

  /** Whether the member may be in this chat now: a live account, no ban, and a plan that grants it. */
  async function entitlement(userId: string) {
    const [account, standing, grant] = await Promise.all([
      repo.findAccount(userId),
      repo.findStanding(userId),
      deps.places.grantFor(userId),
    ])
    const banned = Boolean(standing?.banned_at)
    return {
      account,
      standing,
      banned,
      grant,
      entitledTo: (place: PlaceRow) =>
        Boolean(account) && !banned && grant.telegramPlaceIds.includes(place.id),
    }
  }

  // ---- updates ------------------------------------------------------------------------------------

  /** /start <token>: the token's member gets this Telegram account (one each way; reconnecting moves it). */
  async function start(from: User, chatId: number, token: string) {
    const { trx } = scope.getStore()!
    const now = clock.now()
    if (!token) return reply(chatId, texts.welcome)
    const row = await repo.findToken(hashToken(token), trx)
    if (!row) return reply(chatId, texts.tokenUnknown)
    if (row.used_at) return reply(chatId, texts.tokenUsed)
    if (new Date(row.expires_at) <= now) return reply(chatId, texts.tokenExpired)
    if (!(await repo.useToken(row.id, now, trx))) return reply(chatId, texts.tokenUsed)
    const standing = await repo.findStanding(row.user_id, trx)
    if (standing?.banned_at) return reply(chatId, texts.banned)
    const telegramUserId = String(from.id)
    const holder = await repo.findByTelegramId(telegramUserId, trx)
    if (holder?.user_id === row.user_id) {
      await repo.updateNames(holder.id, { username: from.username ?? null, firstName: from.first_name }, trx)
      await queueSync(row.user_id, `start:${holder.id}:${now.valueOf()}`, trx, 'resend')
      return reply(chatId, texts.alreadyConnected)
    }
    // The account leaves the member who held it; the member's previous account is let go.
    for (const released of [holder, await repo.findAccount(row.user_id, trx)]) {
      if (!released) continue
      await repo.disconnect(released.id, now, trx)
      await deps.jobs.enqueue(
        'telegram.release',
        { userId: released.user_id, telegramUserId: released.telegram_user_id },
        { trx, key: `tg-release:${released.id}` },
      )
    }
    const account = await repo.insertAccount(
      {
        userId: row.user_id,
        telegramUserId,
        username: from.username ?? null,
        firstName: from.first_name,
        moved: Boolean(holder),
        now,
      },
      trx,
    )
    // The answer to Start comes from the sync, with the links it makes: Telegram calls never run
    // inside this transaction.
    await queueSync(row.user_id, `connect:${account.id}`, trx)
  }

  async function status(from: User, chatId: number) {
    const { trx } = scope.getStore()!
    const account = await repo.findByTelegramId(String(from.id), trx)
    if (!account) return reply(chatId, texts.notConnected)
    const [current, chats] = await Promise.all([
      deps.access.currentAccess(account.user_id, trx),
      chatStatuses(account.user_id, trx),
    ])
    return reply(
      chatId,
      texts.status({
        plan: current
          ? {
              name: current.plan_name,
              endDate: current.end_date ? new Date(current.end_date) : null,
              renews: current.provider === 'stripe' && !current.cancel_at_period_end,
            }
          : null,
        chats,
      }),
    )
  }

  async function links(from: User, chatId: number) {
    const { trx, updateId } = scope.getStore()!
    const account = await repo.findByTelegramId(String(from.id), trx)
    if (!account) return reply(chatId, texts.notConnected)
    await queueSync(account.user_id, `links:${updateId}`, trx, 'resend')
  }

  async function stop(from: User, chatId: number) {
    const { trx } = scope.getStore()!
    const account = await repo.findByTelegramId(String(from.id), trx)
    if (!account) return reply(chatId, texts.notConnected)
    await disconnectAccount(account, trx)
    return reply(chatId, texts.stopped)
  }

  /** Someone asked to join a chat: decided (and answered) by a job, with a fresh look at their access. */
  async function joinRequest(request: {
    chatId: number
    telegramUserId: number
    linkCreatorId: number | undefined
  }) {
    const { trx, updateId } = scope.getStore()!
    const me = await telegramOrThrow().botInfo()
    // Requests through links the bot did not make (the owner's own) are for people to answer.
    if (request.linkCreatorId !== me.id) return
    await deps.jobs.enqueue(
      'telegram.join-request',
      { chatId: String(request.chatId), telegramUserId: String(request.telegramUserId) },
      { trx, key: `tg-join:${updateId}` },
    )
  }

  /** Someone's place in a chat changed (joined, approved, left, removed): the record follows. */
  async function chatMember(chatId: number, member: ChatMember) {
    const { trx } = scope.getStore()!
    const place = await deps.places.findTelegramChat(String(chatId), trx)
    const account = place ? await repo.findByTelegramId(String(member.user.id), trx) : undefined
    if (!place || !account) return
    const now = clock.now()
    const state = presenceOf(member)
    await repo.saveChatMember(
      account.user_id,
      place.id,
      state === 'in'
        ? { state: 'member', telegram_user_id: account.telegram_user_id, joined_at: now }
        : { state: state === 'banned' ? 'banned' : 'removed', telegram_user_id: account.telegram_user_id },
      now,
      trx,
    )
  }

  async function disconnectAccount(account: TelegramAccountRow, trx: Transaction<DB>) {
    await repo.disconnect(account.id, clock.now(), trx)
    await deps.jobs.enqueue(
      'telegram.release',
      { userId: account.user_id, telegramUserId: account.telegram_user_id },
      { trx, key: `tg-release:${account.id}` },
    )
  }

  async function buildBot(): Promise<Bot> {
    const created = await telegramOrThrow().createBot()
    const privateChat = created.chatType('private')
    privateChat.command('start', (ctx) => start(ctx.from, ctx.chat.id, ctx.match.trim()))
    privateChat.command('status', (ctx) => status(ctx.from, ctx.chat.id))
    privateChat.command('links', (ctx) => links(ctx.from, ctx.chat.id))
    privateChat.command('stop', (ctx) => stop(ctx.from, ctx.chat.id))
    privateChat.on('message', (ctx) => reply(ctx.chat.id, texts.help))
    created.on('chat_join_request', (ctx) =>
      joinRequest({
        chatId: ctx.chatJoinRequest.chat.id,
        telegramUserId: ctx.chatJoinRequest.from.id,
        linkCreatorId: ctx.chatJoinRequest.invite_link?.creator.id,
      }),
    )
    created.on('chat_member', (ctx) => chatMember(ctx.chatMember.chat.id, ctx.chatMember.new_chat_member))
    return created
  }

  // ---- what members see ---------------------------------------------------------------------------

  async function chatStatuses(userId: string, trx?: Transaction<DB>): Promise<TelegramChatStatus[]> {
    const [grant, chats, rows] = await Promise.all([
      deps.places.grantFor(userId, trx),
      deps.places.telegramChats(trx),
      repo.listChatMembers(userId, trx),
    ])
    return chats
      .filter((place) => grant.telegramPlaceIds.includes(place.id))
      .map((place) => {
        const row = rows.find((candidate) => candidate.place_id === place.id)
        const member = row?.state === 'member'
        return { title: place.title, member, inviteLink: member ? null : (row?.invite_link ?? null) }
      })
  }

  // ---- the sync: a member's chats follow their access ---------------------------------------------

  /**
   * One member's chats made to match their plans: in a chat they may be in, they keep their place
   * (or get a personal join link, sent by the bot); out of one they may not, they are removed (and
   * may come back through a new link once they may again). Throws on Telegram failures (retried).
   */
  async function syncMember(userId: string, options: { resend?: boolean } = {}) {
    if (!deps.telegram) return 'skipped' as const
    const places = await deps.places.telegramChats()
    const { account, banned, entitledTo } = await entitlement(userId)
    const rows = await repo.listChatMembers(userId)
    const now = clock.now()
    // Every link the member may use now, and the ones made in this run (only those are news).
    const links: { title: string; link: string }[] = []
    const created: { title: string; link: string }[] = []
    let granted = 0
    for (const place of places) {
      const row: TelegramChatMemberRow | undefined = rows.find((candidate) => candidate.place_id === place.id)
      const telegramUserId = account?.telegram_user_id
      if (account && telegramUserId && entitledTo(place)) {
        granted += 1
        const where = await presence(place.external_id, telegramUserId)
        if (where === 'in') {
          if (row?.state !== 'member')
            await repo.saveChatMember(
              userId,
              place.id,
              { state: 'member', telegram_user_id: telegramUserId, joined_at: now },
              now,
            )
          continue
        }
        // Banned in the chat by its own moderators: their decision stands.
        if (where === 'banned') {
          await repo.saveChatMember(
            userId,
            place.id,
            { state: 'banned', telegram_user_id: telegramUserId },
            now,
          )
          continue
        }
        let link = row?.invite_link ?? null
        if (!link) {
          const made = await deps.telegram.api.createChatInviteLink(place.external_id, {
            name: `EdgeClub ${userId.slice(0, 8)}`,
            creates_join_request: true,
          })
          // Two syncs of one member may run at once (here or on another instance): the first link
          // recorded is the member's, and a loser's link is revoked rather than sent.
          const kept = await repo.claimInviteLink(userId, place.id, telegramUserId, made.invite_link, now)
          if (kept !== made.invite_link) await revokeLink(place, made.invite_link)
          link = kept
          links.push({ title: place.title, link })
          if (kept === made.invite_link) created.push({ title: place.title, link })
          continue
        }
        links.push({ title: place.title, link })
        await repo.saveChatMember(
          userId,
          place.id,
          { state: 'link-sent', telegram_user_id: telegramUserId, invite_link: link },
          now,
        )
        continue
      }
      // Not theirs (any more): out of the chat, and their link dies with it. Only the account they
      // hold now is looked at: one they let go may be someone else's by now (the release job's case).
      let removed = false
      if (telegramUserId && !banned && (await presence(place.external_id, telegramUserId)) === 'in')
        removed = await removeFromChat(place, telegramUserId)
      if (row?.invite_link) await revokeLink(place, row.invite_link)
      if (row && (row.invite_link || removed || row.state === 'member' || row.state === 'link-sent'))
        await repo.saveChatMember(
          userId,
          place.id,
          { state: banned ? 'banned' : 'removed', invite_link: null },
          now,
        )
    }
    if (account) {
      const chatId = account.telegram_user_id
      const keyOf = (entries: { link: string }[]) =>
        `${userId}:${hashToken(entries.map((entry) => entry.link).join(' ')).slice(0, 16)}`
      // The first sync after Start answers it: tied, and every chat to join, in one message (so the
      // links never arrive before the welcome, whichever sync runs first).
      if (!account.welcomed_at) {
        if (await repo.claimWelcome(account.id, now)) {
          const name = await repo.memberFirstName(userId)
          await queueMessage(
            chatId,
            texts.connected({ ...(name ? { name } : {}), moved: account.moved }, { links, granted }),
            `welcome:${account.id}`,
          )
        }
        // Else another sync of this member, running at the same time, claimed the welcome: it lists
        // every chat's link, the ones this sync recorded included (a link is the first one recorded,
        // and it read or was handed each), so this one sends nothing, never links before the welcome.
      } else if (options.resend) {
        if (links.length > 0)
          await queueMessage(chatId, texts.links(links), `links:${keyOf(links)}:${now.valueOf()}`)
        else
          await queueMessage(
            chatId,
            granted > 0 ? texts.allJoined : texts.noChats,
            `links:${userId}:${now.valueOf()}`,
          )
      } else if (created.length > 0)
        await queueMessage(chatId, texts.links(created), `links:${keyOf(created)}`)
    }
    return 'synced' as const
  }

  return {
    configured: () => Boolean(deps.telegram),

    /** POST /telegram/connect: a one-time deep link to the bot, for this member, valid a few minutes. */
    async connect(user: UserRow): Promise<TelegramConnect> {
      const telegram = telegramOrThrow()
      const now = clock.now()
      const standing = await repo.findStanding(user.id)
      if (standing?.banned_at) throw forbidden(messages.banned)
      if ((await repo.countTokensSince(user.id, addMs(now, -HOUR))) >= TELEGRAM_CONNECTS_PER_HOUR)
        throw rateLimited(messages.tooManyAttempts)
      let me: Awaited<ReturnType<TelegramClient['botInfo']>>
      try {
        me = await telegram.botInfo()
      } catch (error) {
        log.warn({ ...telegramFailure(error) }, 'Telegram did not answer getMe')
        throw new AppError('UPSTREAM_ERROR', messages.notConfigured, { statusCode: 503 })
      }
      await repo.deleteTokensBefore(user.id, addMs(now, -DAY))
      // 24 random bytes are 32 characters of A-Z a-z 0-9 _ -, what a deep link's start parameter allows.
      const token = randomBytes(24).toString('base64url')
      const expiresAt = addMs(now, TELEGRAM_CONNECT_MINUTES * 60_000)
      await repo.insertToken({ hash: hashToken(token), userId: user.id, now, expiresAt })
      return { url: `${deps.linkBase}/${me.username}?start=${token}`, expiresAt: expiresAt.toISOString() }
    },

    /** GET /telegram/status; a member waiting for links gets a fresh look (throttled). */
    async status(user: UserRow): Promise<TelegramStatus> {
      const [account, standing] = await Promise.all([repo.findAccount(user.id), repo.findStanding(user.id)])
      const chats = deps.telegram ? await chatStatuses(user.id) : []
      if (account && deps.telegram && chats.some((chat) => !chat.member && !chat.inviteLink))
        await deps.jobs.enqueue(
          'telegram.sync',
          { userId: user.id, resend: false },
          { throttle: { key: `tg-poll-${user.id}`, seconds: 5 } },
        )
      return {
        configured: Boolean(deps.telegram),
        connected: Boolean(account),
        ...(account ? { username: displayName(account) } : {}),
        chats,
        reminders: Boolean(standing?.reminders),
        banned: Boolean(standing?.banned_at),
      }
    },

    /** PUT /telegram/settings. */
    async saveSettings(user: UserRow, settings: { reminders: boolean }) {
      await repo.saveStanding(user.id, { reminders: settings.reminders }, clock.now())
      return this.status(user)
    },

    /** POST /telegram/disconnect (the web's /stop). */
    async disconnect(user: UserRow): Promise<{ username: string }> {
      const account = await repo.findAccount(user.id)
      if (!account) throw notFound(messages.notConnected)
      await repo.transaction((trx) => disconnectAccount(account, trx))
      return { username: displayName(account) }
    },

    /** POST /webhooks/telegram (the secret checked by the route): handled once, in one transaction. */
    async handleUpdate(update: Update): Promise<void> {
      bot ??= buildBot().catch((error: unknown) => {
        bot = undefined
        throw error
      })
      const router = await bot
      const type = Object.keys(update).find((key) => key !== 'update_id') ?? 'unknown'
      await repo.transaction(async (trx) => {
        if (!(await repo.claimUpdate(update.update_id, type, clock.now(), trx))) return
        await scope.run({ trx, updateId: update.update_id, replies: 0 }, () => router.handleUpdate(update))
      })
    },

    syncMember,

    /** A join request, decided now: approved for the tied account while it may be in the chat. */
    async answerJoinRequest(
      chatId: string,
      telegramUserId: string,
    ): Promise<'approved' | 'declined' | 'ignored'> {
      const place = await deps.places.findTelegramChat(chatId)
      if (!place) return 'ignored'
      const account = await repo.findByTelegramId(telegramUserId)
      const decision = account ? await entitlement(account.user_id) : undefined
      const approve = Boolean(decision?.entitledTo(place))
      // Telegram lets the bot write to someone who asked to join until the request is answered: a
      // stranger hears why first (best effort; the decline does not wait on it).
      if (!approve && !account && deps.sendNow)
        await deps
          .sendNow({ chatId: telegramUserId, ...texts.strangerDeclined(place.title) })
          .catch((error: unknown) =>
            log.warn({ ...telegramFailure(error) }, 'could not tell a declined requester why'),
          )
      await answerRequest(place, telegramUserId, approve)
      const now = clock.now()
      if (account)
        await repo.saveChatMember(
          account.user_id,
          place.id,
          approve
            ? { state: 'member', telegram_user_id: telegramUserId, joined_at: now }
            : { state: decision?.banned ? 'banned' : 'declined', telegram_user_id: telegramUserId },
          now,
        )
      return approve ? 'approved' : 'declined'
    },

    /**
     * A Telegram account its member let go (or that moved to another member): out of every chat unless
     * someone holds it now (then their sync decides); then the member's own sync.
     */
    async releaseAccount(userId: string, telegramUserId: string): Promise<void> {
      const places = await deps.places.telegramChats()
      const holder = await repo.findByTelegramId(telegramUserId)
      if (holder) await syncMember(holder.user_id)
      else if (deps.telegram)
        for (const place of places)
          if ((await presence(place.external_id, telegramUserId)) === 'in')
            await removeFromChat(place, telegramUserId)
      // The member's links were made for the account they let go.
      const now = clock.now()
      for (const row of await repo.listChatMembers(userId)) {
        if (row.telegram_user_id !== telegramUserId) continue
        const place = places.find((candidate) => candidate.id === row.place_id)
        if (place && row.invite_link) await revokeLink(place, row.invite_link)
        await repo.saveChatMember(userId, row.place_id, { state: 'removed', invite_link: null }, now)
      }
      await syncMember(userId)
    },

    syncCandidates: () => repo.syncCandidates(),

    /** Admin: kick, ban or unban the member's Telegram account in every chat; null when there was nothing to do. */
    async moderate(
      action: 'kick' | 'ban' | 'unban',
      userId: string,
    ): Promise<'kicked' | 'banned' | 'removed' | null> {
      const telegram = telegramOrThrow()
      const now = clock.now()
      const account = await repo.findAccount(userId)
      const standing = await repo.findStanding(userId)
      const places = await deps.places.telegramChats()
      const rows = await repo.listChatMembers(userId)
      if (action === 'unban') {
        const banned = standing?.banned_telegram_user_id ?? account?.telegram_user_id
        if (banned)
          for (const place of places)
            await telegram.api.unbanChatMember(place.external_id, Number(banned), { only_if_banned: true })
        await repo.saveStanding(userId, { banned_at: null, banned_telegram_user_id: null }, now)
        for (const row of rows.filter((candidate) => candidate.state === 'banned'))
          await repo.saveChatMember(userId, row.place_id, { state: 'removed' }, now)
        await deps.jobs.enqueue(
          'telegram.sync',
          { userId, resend: false },
          { key: `tg-sync:unban:${userId}:${now.valueOf()}` },
        )
        return 'removed'
      }
      if (action === 'ban') {
        // The ban is the member's: recorded even without an account, so they cannot connect one.
        await repo.saveStanding(
          userId,
          { banned_at: now, banned_telegram_user_id: account?.telegram_user_id ?? null },
          now,
        )
        for (const place of places) {
          const row = rows.find((candidate) => candidate.place_id === place.id)
          if (account) {
            try {
              await telegram.api.banChatMember(place.external_id, Number(account.telegram_user_id))
            } catch (error) {
              if (!descriptionIncludes(error, 'administrator', "can't remove chat owner")) throw error
              log.warn({ place: place.id }, 'a banned member administers a Telegram chat; they stay in it')
            }
          }
          if (row?.invite_link) await revokeLink(place, row.invite_link)
          if (row || account)
            await repo.saveChatMember(
              userId,
              place.id,
              { state: 'banned', invite_link: null, telegram_user_id: account?.telegram_user_id ?? null },
              now,
            )
        }
        return 'banned'
      }
      if (!account) return null
      let kicked = 0
      for (const place of places) {
        if ((await presence(place.external_id, account.telegram_user_id)) !== 'in') continue
        if (await removeFromChat(place, account.telegram_user_id)) {
          kicked += 1
          await repo.saveChatMember(userId, place.id, { state: 'removed' }, now)
        }
      }
      return kicked > 0 ? 'kicked' : null
    },

    /**
     * Admin broadcast: one queued, keyed message to every connected member, in the broadcast's
     * transaction (its record and its other channels commit with it); answers how many.
     */
    async broadcast(
      input: { key: string; title?: string; message: string },
      trx: Transaction<DB>,
    ): Promise<number> {
      if (!deps.telegram) return 0
      const message = texts.broadcast(input.title, input.message)
      const recipients = await repo.broadcastRecipients(trx)
      await deps.jobs.enqueueMany(
        'telegram.send',
        recipients.map((recipient) => ({
          key: `tg-send:${input.key}:${recipient.telegram_user_id}`,
          data: { chatId: recipient.telegram_user_id, ...message },
        })),
        { trx },
      )
      return recipients.length
    },

    /** A signal or result: posted to every Telegram chat whose categories include it. */
    async postToChats(input: {
      key: string
      category: string
      headline: string
      body: string
    }): Promise<number> {
      if (!deps.telegram) return 0
      const chats = (await deps.places.telegramChats()).filter((place) => {
        const categories = place.signal_categories
        return (
          categories === null ||
          categories.some((entry) => entry.toLowerCase() === input.category.toLowerCase())
        )
      })
      const message = headlined(input.headline, input.body)
      for (const place of chats)
        await queueMessage(place.external_id, message, `${input.key}:${place.external_id}`)
      return chats.length
    },

    /** A renewal or failed-payment notice, also by bot message to members who asked for it. */
    async remind(
      notice: {
        userId: string
        key: string
        kind: 'renewal-failed' | 'renewal-reminder'
        planName: string
        date: Date
      },
      trx: Transaction<DB>,
    ): Promise<void> {
      if (!deps.telegram) return
      const [standing, account] = await Promise.all([
        repo.findStanding(notice.userId, trx),
        repo.findAccount(notice.userId, trx),
      ])
      if (!standing?.reminders || !account) return
      const message =
        notice.kind === 'renewal-failed'
          ? texts.renewalFailed(notice.planName, notice.date)
          : texts.renewalReminder(notice.planName, notice.date)
      await queueMessage(account.telegram_user_id, message, `reminder:${notice.key}`, trx)
    },

    /** At start: the webhook (with the secret and the updates the bot needs) and the bot's commands. */
    async setUp(): Promise<void> {
      const telegram = deps.telegram
      if (!telegram || !deps.webhook) return
      await telegram.api.setWebhook(deps.webhook.url, {
        secret_token: deps.webhook.secret,
        allowed_updates: [...ALLOWED_UPDATES],
      })
      await telegram.api.setMyCommands([
        { command: 'status', description: 'Your plan and chats' },
        { command: 'links', description: 'Send my chat links again' },
        { command: 'stop', description: 'Disconnect this Telegram account' },
      ])
    },

    /** The admin console's view of the member's Telegram side. */
    async adminView(userId: string): Promise<AdminTelegram> {
      const [account, standing, grant, places, rows] = await Promise.all([
        repo.findAccount(userId),
        repo.findStanding(userId),
        deps.places.grantFor(userId),
        deps.places.telegramChats(),
        repo.listChatMembers(userId),
      ])
      return {
        account: account
          ? {
              telegramUserId: account.telegram_user_id,
              username: account.username,
              connectedAt: new Date(account.connected_at).toISOString(),
            }
          : null,
        banned: Boolean(standing?.banned_at),
        reminders: Boolean(standing?.reminders),
        chats: places.map((place) => {
          const row = rows.find((candidate) => candidate.place_id === place.id)
          return {
            placeId: place.id,
            title: place.title,
            granted: grant.telegramPlaceIds.includes(place.id),
            state: row?.state ?? 'not-joined',
          }
        }),
      }
    },
  }
}
export type TelegramService = ReturnType<typeof createTelegramService>
