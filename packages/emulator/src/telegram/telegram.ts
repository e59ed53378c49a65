import type { ServerResponse } from 'node:http'
import type {
  ChatAdministratorRights,
  ChatInviteLink,
  ChatJoinRequest,
  ChatMember,
  Message,
  Update,
  User,
  WebhookInfo,
} from '@grammyjs/types'
import { parseJson, type RequestContext, type Router, sendJson, sendText } from '../http'
import { createMethods, type EmulatedMethod } from './api'
import { notFound, TelegramError, tooManyRequests, unauthorized } from './errors'
import {
  type ChatFloodStats,
  FloodControl,
  type TelegramFault,
  type TelegramRateLimitOptions,
} from './flood-control'
import { mountTelegramPages } from './pages'
import { Args, parseRequestArgs, type RequestArgs, toInteger } from './request-args'
import {
  DEFAULT_BOT_RIGHTS,
  isActiveMember,
  type TelegramConfig,
  type TelegramState,
  type TelegramStateOptions,
  TelegramStore,
  type TelegramUserInput,
} from './state'
import { type DeliveryRecord, UpdateQueue, type WebhookOptions } from './update-queue'

/**
 * Telegram's Bot API under /telegram/bot<token>/<method> for the real grammY client (its apiRoot is
 * `${emulator.url}/telegram`), the updates it sends to the bot's webhook, a small page where people
 * press Start and join chats, and the /_control/telegram routes tests and the demo use to act as
 * Telegram users and to break things.
 */

export interface TelegramEmulatorOptions extends TelegramStateOptions {
  /** Flood limits on the bot's messages; see flood-control.ts. */
  rateLimit?: TelegramRateLimitOptions
  /** Webhook retry timing. */
  webhook?: WebhookOptions
}

export type JoinOutcome =
  | { outcome: 'joined' | 'already-member'; chatId: number; member: ChatMember }
  | { outcome: 'requested' | 'already-requested'; chatId: number; request: ChatJoinRequest }

export type BotPlace = 'administrator' | 'member' | 'left' | 'kicked'

export interface TelegramControl {
  /** The bot's token, id and username, the owner, and the seeded chats. */
  readonly config: TelegramConfig
  /** grammY's client.apiRoot and the app's TELEGRAM_API_BASE: `${emulator.url}/telegram`. */
  readonly apiRoot: string
  /** This emulator's stand-in for https://t.me (the app's TELEGRAM_LINK_BASE in the demo). */
  readonly pageLinkBase: string
  /** The base of the invite links the API hands out (https://t.me unless configured). */
  readonly linkBase: string
  /** `'emulator'` makes invite links point at this emulator's page. */
  setLinkBase(base: string): void
  /** A Telegram user (a known username is the same person, updated). */
  createUser(input: TelegramUserInput): User
  users(): User[]
  /** The person presses Start in the bot's chat (from a deep link when `payload` is given). */
  start(userId: number, payload?: string): Message
  /** The person writes to the bot (/status, /links, /stop or plain text). They must have started it. */
  sendMessage(userId: number, text: string): Message
  blockBot(userId: number): void
  unblockBot(userId: number): void
  /** The person opens an invite link: joins at once, or asks to join when the link needs approval. */
  joinByLink(userId: number, inviteLink: string): JoinOutcome
  /** The person leaves a chat. */
  leaveChat(userId: number, chatId: number): void
  /** Puts a person in a chat without a link (someone already there); `restricted` may not write. */
  addMember(chatId: number, userId: number, status?: 'member' | 'administrator' | 'restricted'): ChatMember
  /** The owner changes the bot's place or rights in a chat (the bot gets my_chat_member). */
  setBotMembership(chatId: number, place: BotPlace, rights?: Partial<ChatAdministratorRights>): void
  members(chatId: number): ChatMember[]
  member(chatId: number, userId: number): ChatMember
  /** A chat's messages, oldest first; a user id gives their private chat with the bot. */
  messages(chatId: number): Message[]
  joinRequests(chatId: number): ChatJoinRequest[]
  inviteLinks(chatId: number): ChatInviteLink[]
  /** The next matching API calls answer 429 (retry_after) or a 5xx. */
  failNext(fault: TelegramFault): void
  clearFaults(): void
  /**
   * The next call of `method` waits, unanswered, until `release()`: Telegram answering one call
   * slowly. A test holds one side of a race at Telegram's door while the other side runs; `reached`
   * resolves once the held call has arrived. `reset()` lets every held call go.
   */
  holdNext(method: EmulatedMethod): { reached: Promise<void>; release(): void }
  /**
   * Sets the bot's webhook as its own setWebhook call would (for a demo whose app does not register
   * itself); `allowedUpdates` as in the Bot API.
   */
  setWebhook(input: {
    url: string
    secretToken?: string
    allowedUpdates?: string[]
    dropPendingUpdates?: boolean
  }): void
  /** The next `count` webhook deliveries fail as if the webhook answered `status` (default 500). */
  failDeliveries(count: number, status?: number): void
  webhookInfo(): WebhookInfo
  deliveries(): DeliveryRecord[]
  pendingUpdates(): Update[]
  /** Resolves once the webhook has taken every pending update. */
  idle(timeoutMs?: number): Promise<void>
  /** Per chat: messages the bot sent and 429s it got. */
  floodStats(): ChatFloodStats[]
  /** Changes the flood limits until reset (omitted ones are Telegram's); answers the limits in force. */
  setRateLimits(limits: TelegramRateLimitOptions): TelegramRateLimitOptions
  advanceTime(seconds: number): void
  state(): TelegramState
  reset(): void
  close(): void
  /** Called by startEmulator once the emulator listens. */
  setOrigin(origin: string): void
}

const MASKED_PARAMS = new Set(['secret_token'])
const START_PAYLOAD = /^[A-Za-z0-9_-]{1,64}$/

function proxyErrorPage(status: number): string {
  const text = { 502: 'Bad Gateway', 503: 'Service Temporarily Unavailable', 504: 'Gateway Time-out' }[status]
  const title = `${status} ${text ?? 'Error'}`
  return `<html>\r\n<head><title>${title}</title></head>\r\n<body>\r\n<center><h1>${title}</h1></center>\r\n<hr><center>nginx/1.18.0</center>\r\n</body>\r\n</html>\r\n`
}

export function mountTelegram(router: Router, options: TelegramEmulatorOptions = {}): TelegramControl {
  const wantsEmulatorLinks = options.linkBase === 'emulator'
  const store = new TelegramStore({ ...options, linkBase: wantsEmulatorLinks ? undefined : options.linkBase })
  const flood = new FloodControl(options.rateLimit)
  let origin = 'http://127.0.0.1'
  let linkSetting = options.linkBase ?? 'https://t.me'

  const runReply = async (method: string, values: Map<string, string>) => {
    // A webhook reply is an API call whose answer nobody reads; Telegram drops its errors too.
    await call(method, { values, files: new Map() }).catch(() => undefined)
  }
  const queue = new UpdateQueue(store, runReply, options.webhook)
  store.onUpdate = (body) => void queue.push(body)
  const methods = createMethods(store, queue, flood)
  /** Calls to hold (holdNext), oldest first: each holds the next call of its method once. */
  const holds: {
    method: EmulatedMethod
    arrived: () => void
    released: Promise<void>
    release: () => void
  }[] = []

  function logParams(request: RequestArgs): Record<string, string> {
    const params: Record<string, string> = {}
    for (const [key, value] of request.values) params[key] = MASKED_PARAMS.has(key) ? '[redacted]' : value
    for (const [key, file] of request.files)
      params[key] = `<file ${file.filename}, ${file.data.length} bytes>`
    return params
  }

  /** One API call: a forced fault, Telegram's 404 for an unknown method, or the method's answer. */
  async function call(
    method: string,
    request: RequestArgs,
  ): Promise<{ status: number; body: unknown; headers: Record<string, string>; html?: string }> {
    const entry = methods.get(method.toLowerCase())
    const held = holds.findIndex((hold) => hold.method === entry?.name)
    if (held >= 0) {
      const [hold] = holds.splice(held, 1)
      hold!.arrived()
      await hold!.released
    }
    const params = logParams(request)
    const record = (status: number, description: string | null, forced = false) =>
      store.record({ method: entry?.name ?? method, params, status, description, forced })
    const fault = flood.takeFault(method)
    if (fault) {
      if (fault.status === 429) {
        const error = tooManyRequests(fault.retryAfter)
        // A forced 429 on a message counts against the chat like a real one.
        const chatId = toInteger(request.values.get('chat_id') ?? '')
        if (entry?.name === 'sendMessage' && chatId !== 0) flood.recordLimited(chatId, store.now())
        record(429, error.description, true)
        return { status: 429, body: error.body(), headers: error.headers() }
      }
      if (fault.status === 500) {
        const error = new TelegramError(500, 'Internal Server Error')
        record(500, error.description, true)
        return { status: 500, body: error.body(), headers: {} }
      }
      record(fault.status, 'proxy error page', true)
      return { status: fault.status, body: null, headers: {}, html: proxyErrorPage(fault.status) }
    }
    if (!entry) {
      const error = notFound()
      record(404, error.description)
      return { status: 404, body: error.body(), headers: {} }
    }
    const meta: { description?: string } = {}
    try {
      const result = await entry.handler(new Args(request), meta)
      record(200, meta.description ?? null)
      return {
        status: 200,
        body: meta.description ? { ok: true, result, description: meta.description } : { ok: true, result },
        headers: {},
      }
    } catch (error) {
      if (error instanceof TelegramError) {
        record(error.status, error.description)
        return { status: error.status, body: error.body(), headers: error.headers() }
      }
      // An emulator bug, not an emulated outage: say so rather than pose as Telegram.
      const message = `emulator: ${error instanceof Error ? error.message : String(error)}`
      record(500, message)
      return { status: 500, body: { ok: false, error_code: 500, description: message }, headers: {} }
    }
  }

  const reply = (res: ServerResponse, error: TelegramError) =>
    sendJson(res, error.status, error.body(), error.headers())

  const handleApi = async ({ req, res, url, params, rawBody }: RequestContext) => {
    const segment = params.segment ?? ''
    if (!segment.startsWith('bot')) return reply(res, notFound())
    // Tokens are compared whole; a wrong one is never logged.
    if (segment.slice(3) !== store.config.botToken) return reply(res, unauthorized())
    let request: RequestArgs
    try {
      request = parseRequestArgs(req.headers['content-type'], rawBody, url.searchParams)
    } catch (error) {
      if (error instanceof TelegramError) return reply(res, error)
      throw error
    }
    const answer = await call(params.method ?? '', request)
    if (answer.html !== undefined) return sendText(res, answer.status, answer.html, 'text/html')
    sendJson(res, answer.status, answer.body, answer.headers)
  }

  // ---- people's actions ---------------------------------------------------------------------------------

  function start(userId: number, payload?: string): Message {
    const person = store.person(userId)
    if (payload !== undefined && payload !== '' && !START_PAYLOAD.test(payload))
      throw new Error('telegram emulator: a start payload is 1-64 characters of A-Z a-z 0-9 _ -')
    // Start (or Restart after blocking) unblocks the bot.
    if (person.blocked) store.setBlocked(userId, false)
    person.started = true
    return store.userMessage(userId, payload ? `/start ${payload}` : '/start')
  }

  function sendMessage(userId: number, text: string): Message {
    const person = store.person(userId)
    if (typeof text !== 'string' || text.trim() === '')
      throw new Error('telegram emulator: a message needs text')
    if (text.length > 4096) throw new Error('telegram emulator: a message is at most 4096 characters')
    const command = /^\/start(?:@\S+)?(?:\s+(\S+))?\s*$/.exec(text.trim())
    if (command) return start(userId, command[1])
    if (person.blocked)
      throw new Error('telegram emulator: this user blocked the bot; unblock it or press Start')
    if (!person.started) throw new Error('telegram emulator: press Start before writing to the bot')
    return store.userMessage(userId, text)
  }

  function joinByLink(userId: number, inviteLink: string): JoinOutcome {
    const person = store.person(userId)
    const hash = typeof inviteLink === 'string' ? TelegramStore.hashOf(inviteLink) : undefined
    if (!hash) throw new Error('telegram emulator: that is not an invite link')
    const link = store.links.get(hash)
    if (!link) throw new Error('This invite link is invalid.')
    const chat = store.chat(link.chatId)
    const current = store.memberOf(chat, userId)
    if (isActiveMember(current))
      return { outcome: 'already-member', chatId: chat.id, member: store.memberObject(chat, userId) }
    const problem = store.linkProblem(link)
    if (problem) throw new Error(problem)
    if (current?.status === 'kicked')
      throw new Error(`You were banned from ${chat.title} and cannot join it.`)
    if (link.createsJoinRequest) {
      const pending = chat.joinRequests.get(userId)
      if (pending)
        return {
          outcome: 'already-requested',
          chatId: chat.id,
          request: store.joinRequestObject(chat, pending),
        }
      const request = { userId, date: store.unixNow(), inviteHash: hash }
      chat.joinRequests.set(userId, request)
      chat.decisions.delete(userId)
      // Only administrators who may add members hear about join requests.
      if (store.canManageLinks(chat))
        store.onUpdate({ chat_join_request: store.joinRequestObject(chat, request) })
      return { outcome: 'requested', chatId: chat.id, request: store.joinRequestObject(chat, request) }
    }
    store.changeMember(
      chat,
      userId,
      { ...store.membership(userId, 'member', store.unixNow()), inviteHash: hash },
      { ...person.user },
      { inviteHash: hash },
    )
    return { outcome: 'joined', chatId: chat.id, member: store.memberObject(chat, userId) }
  }

  function setLinkBase(base: string): void {
    if (base !== 'emulator' && !/^https?:\/\/[^\s]+$/.test(base))
      throw new Error("telegram emulator: linkBase must be an http(s) URL or 'emulator'")
    linkSetting = base
    store.linkBase = (base === 'emulator' ? `${origin}/telegram/t.me` : base).replace(/\/$/, '')
  }

  const control: TelegramControl = {
    config: store.config,
    get apiRoot() {
      return `${origin}/telegram`
    },
    get pageLinkBase() {
      return `${origin}/telegram/t.me`
    },
    get linkBase() {
      return store.linkBase
    },
    setLinkBase,
    setOrigin: (value) => {
      origin = value.replace(/\/$/, '')
      setLinkBase(linkSetting)
    },
    createUser: (input) => store.createUser(input),
    users: () => [...store.users.values()].map((entry) => ({ ...entry.user })),
    start,
    sendMessage,
    blockBot: (userId) => store.setBlocked(userId, true),
    unblockBot: (userId) => store.setBlocked(userId, false),
    joinByLink,
    leaveChat: (userId, chatId) => {
      const chat = store.chat(chatId)
      const current = store.memberOf(chat, userId)
      if (!isActiveMember(current)) throw new Error('telegram emulator: that user is not in the chat')
      if (current?.status === 'creator') throw new Error('telegram emulator: the owner stays in the chat')
      store.changeMember(
        chat,
        userId,
        { ...store.membership(userId, 'left', store.unixNow()), isMember: false },
        store.person(userId).user,
      )
    },
    addMember: (chatId, userId, status = 'member') => {
      const chat = store.chat(chatId)
      store.person(userId)
      if (status !== 'member' && status !== 'administrator' && status !== 'restricted')
        throw new Error("telegram emulator: status is 'member', 'administrator' or 'restricted'")
      if (store.memberOf(chat, userId)?.status === 'creator') return store.memberObject(chat, userId)
      const rights = status === 'administrator' ? { ...DEFAULT_BOT_RIGHTS, can_invite_users: false } : null
      const owner = store.person(store.config.ownerId).user
      store.changeMember(chat, userId, store.membership(userId, status, store.unixNow(), rights), {
        ...owner,
      })
      return store.memberObject(chat, userId)
    },
    setBotMembership: (chatId, place, rights) => {
      const chat = store.chat(chatId)
      if (!['administrator', 'member', 'left', 'kicked'].includes(place))
        throw new Error("telegram emulator: the bot's place is administrator, member, left or kicked")
      const owner = store.person(store.config.ownerId).user
      const current = store.botMembership(chat)
      const baseRights = current?.rights ?? {
        ...DEFAULT_BOT_RIGHTS,
        ...(chat.type === 'channel' ? { can_post_messages: true, can_edit_messages: true } : {}),
      }
      store.changeMember(
        chat,
        store.config.botId,
        {
          ...store.membership(store.config.botId, place, current?.joinedAt ?? store.unixNow()),
          rights: place === 'administrator' ? { ...baseRights, ...rights } : null,
          isMember: place === 'administrator' || place === 'member',
        },
        { ...owner },
      )
    },
    members: (chatId) => store.members(store.chat(chatId)),
    member: (chatId, userId) => store.memberObject(store.chat(chatId), userId),
    messages: (chatId) =>
      structuredClone(chatId > 0 ? store.person(chatId).messages : store.chat(chatId).messages),
    joinRequests: (chatId) => {
      const chat = store.chat(chatId)
      return [...chat.joinRequests.values()].map((request) => store.joinRequestObject(chat, request))
    },
    inviteLinks: (chatId) =>
      [...store.links.values()]
        .filter((link) => link.chatId === chatId)
        .map((link) => store.linkObject(link)),
    failNext: (fault) => flood.addFault(fault),
    clearFaults: () => flood.clearFaults(),
    holdNext: (method) => {
      let arrived!: () => void
      let release!: () => void
      const reached = new Promise<void>((resolve) => {
        arrived = resolve
      })
      const released = new Promise<void>((resolve) => {
        release = resolve
      })
      holds.push({ method, arrived, released, release })
      return { reached, release }
    },
    setWebhook: (input) => {
      const values = new Map<string, string>([['url', String(input.url ?? '')]])
      if (input.secretToken !== undefined) values.set('secret_token', String(input.secretToken))
      if (input.allowedUpdates !== undefined)
        values.set('allowed_updates', JSON.stringify(input.allowedUpdates))
      if (input.dropPendingUpdates) values.set('drop_pending_updates', 'true')
      if (!input.url) throw new Error('telegram emulator: setWebhook needs a url')
      // The same checks and effects as the bot's own call.
      const method = methods.get('setwebhook')
      if (!method) throw new Error('telegram emulator: setWebhook is missing')
      try {
        void method.handler(new Args({ values, files: new Map() }), {})
      } catch (error) {
        throw new Error(
          `telegram emulator: ${error instanceof TelegramError ? error.description : String(error)}`,
        )
      }
    },
    failDeliveries: (count, status) => queue.failDeliveries(count, status),
    webhookInfo: () => queue.info(),
    deliveries: () => structuredClone(queue.deliveries),
    pendingUpdates: () => queue.pendingUpdates(),
    idle: (timeoutMs) => queue.idle(timeoutMs),
    floodStats: () => flood.chatStats(),
    setRateLimits: (limits) => {
      flood.configure(limits ?? {})
      return flood.limitsInForce()
    },
    advanceTime: (seconds) => store.advanceTime(seconds),
    state: () => store.state(),
    reset: () => {
      for (const hold of holds.splice(0)) hold.release()
      store.reset()
      flood.reset()
      queue.reset()
    },
    close: () => queue.close(),
  }

  // People's page routes first: the API's /telegram/:segment/:method would match them too.
  mountTelegramPages(router, store, control, ({ res }) => reply(res, notFound()))
  for (const method of ['GET', 'POST']) router.on(method, '/telegram/:segment/:method', handleApi)
  mountTelegramControl(router, control, flood)
  return control
}

function mountTelegramControl(router: Router, control: TelegramControl, flood: FloodControl): void {
  const base = '/_control/telegram'
  const guarded =
    (action: (ctx: RequestContext, body: Record<string, unknown>) => unknown) =>
    async (ctx: RequestContext) => {
      try {
        const parsed = ctx.rawBody.length > 0 ? parseJson(ctx.rawBody) : {}
        const body = parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {}
        const result = await action(ctx, body)
        sendJson(ctx.res, 200, result ?? { ok: true })
      } catch (error) {
        sendJson(ctx.res, 400, { error: error instanceof Error ? error.message : String(error) })
      }
    }
  const id = (value: unknown) => {
    const number = Number(value)
    if (!Number.isSafeInteger(number) || number === 0)
      throw new Error(`telegram emulator: "${String(value)}" is not an id`)
    return number
  }

  const routes: Array<[string, string, (ctx: RequestContext, body: Record<string, unknown>) => unknown]> = [
    ['GET', '/state', () => control.state()],
    [
      'GET',
      '/config',
      () => ({
        ...control.config,
        apiRoot: control.apiRoot,
        pageLinkBase: control.pageLinkBase,
        linkBase: control.linkBase,
      }),
    ],
    ['POST', '/reset', () => control.reset()],
    ['POST', '/link-base', (_ctx, body) => control.setLinkBase(String(body.linkBase ?? ''))],
    ['GET', '/users', () => control.users()],
    ['POST', '/users', (_ctx, body) => control.createUser(body as unknown as TelegramUserInput)],
    [
      'POST',
      '/users/:userId/start',
      ({ params }, body) =>
        control.start(id(params.userId), typeof body.payload === 'string' ? body.payload : undefined),
    ],
    [
      'POST',
      '/users/:userId/messages',
      ({ params }, body) => control.sendMessage(id(params.userId), String(body.text ?? '')),
    ],
    ['POST', '/users/:userId/block', ({ params }) => control.blockBot(id(params.userId))],
    ['POST', '/users/:userId/unblock', ({ params }) => control.unblockBot(id(params.userId))],
    ['POST', '/join', (_ctx, body) => control.joinByLink(id(body.userId), String(body.inviteLink ?? ''))],
    ['GET', '/chats/:chatId/members', ({ params }) => control.members(id(params.chatId))],
    [
      'POST',
      '/chats/:chatId/members',
      ({ params }, body) =>
        control.addMember(
          id(params.chatId),
          id(body.userId),
          body.status as 'member' | 'administrator' | undefined,
        ),
    ],
    [
      'GET',
      '/chats/:chatId/members/:userId',
      ({ params }) => control.member(id(params.chatId), id(params.userId)),
    ],
    [
      'DELETE',
      '/chats/:chatId/members/:userId',
      ({ params }) => control.leaveChat(id(params.userId), id(params.chatId)),
    ],
    [
      'POST',
      '/chats/:chatId/bot',
      ({ params }, body) =>
        control.setBotMembership(
          id(params.chatId),
          body.place as BotPlace,
          body.rights as Partial<ChatAdministratorRights> | undefined,
        ),
    ],
    ['GET', '/chats/:chatId/messages', ({ params }) => control.messages(id(params.chatId))],
    ['GET', '/chats/:chatId/join-requests', ({ params }) => control.joinRequests(id(params.chatId))],
    ['GET', '/chats/:chatId/invite-links', ({ params }) => control.inviteLinks(id(params.chatId))],
    ['GET', '/faults', () => flood.pendingFaults()],
    ['POST', '/faults', (_ctx, body) => control.failNext(body as unknown as TelegramFault)],
    ['DELETE', '/faults', () => control.clearFaults()],
    [
      'POST',
      '/webhook/failures',
      (_ctx, body) =>
        control.failDeliveries(
          Number(body.count ?? 1),
          body.status === undefined ? undefined : Number(body.status),
        ),
    ],
    ['GET', '/webhook', () => control.webhookInfo()],
    [
      'POST',
      '/webhook',
      (_ctx, body) =>
        control.setWebhook({
          url: String(body.url ?? ''),
          secretToken: typeof body.secretToken === 'string' ? body.secretToken : undefined,
          allowedUpdates: Array.isArray(body.allowedUpdates) ? body.allowedUpdates.map(String) : undefined,
          dropPendingUpdates: body.dropPendingUpdates === true,
        }),
    ],
    ['GET', '/webhook/deliveries', () => control.deliveries()],
    ['GET', '/webhook/pending', () => control.pendingUpdates()],
    [
      'POST',
      '/webhook/idle',
      (_ctx, body) => control.idle(body.timeoutMs === undefined ? undefined : Number(body.timeoutMs)),
    ],
    ['GET', '/flood', () => control.floodStats()],
    ['POST', '/rate-limits', (_ctx, body) => control.setRateLimits(body as TelegramRateLimitOptions)],
    ['POST', '/clock', (_ctx, body) => control.advanceTime(Number(body.seconds ?? 0))],
  ]
  for (const [method, path, action] of routes) router.on(method, `${base}${path}`, guarded(action))
}
