import type { ChatJoinRequest, ChatMemberUpdated, Message, Update } from '@grammyjs/types'
import { Bot, GrammyError } from 'grammy'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Emulator, startEmulator } from '../src/server'
import { startTelegramBotApp, type TelegramBotApp, updateType } from './telegram-bot-app'
import { expectShape, USER_KEYS } from './telegram-shapes'

/**
 * Updates reaching a grammY bot in webhook mode, as EdgeClub's bot will run: /start with a deep-link
 * payload ties a Telegram account, join requests are approved for a tied account and declined for
 * anyone else, and deliveries carry the secret header, count up their update_id and are retried
 * the way Telegram retries them.
 */

const SECRET = 'edgeclub_webhook-secret'
const JORDAN = 1000000002
const ALEX = 1000000003

let emulator: Emulator
let app: TelegramBotApp
let api: Bot['api']
/** Telegram user id → the start payload it connected with (the app's "tie"). */
let ties: Map<number, string>

beforeAll(async () => {
  emulator = await startEmulator({ telegram: { webhook: { retryBaseMs: 40 } } })
})

beforeEach(async () => {
  emulator.telegram.reset()
  ties = new Map()
  app = await startTelegramBotApp(emulator, { secretToken: SECRET, setup: edgeClubBot })
  api = app.bot.api
})

afterEach(async () => {
  await app.close()
})

afterAll(async () => {
  await emulator.close()
})

function edgeClubBot(bot: Bot): void {
  bot.command('start', async (ctx) => {
    if (ctx.match) {
      ties.set(ctx.from!.id, ctx.match)
      await ctx.reply('Connected to EdgeClub.')
    } else await ctx.reply('Open EdgeClub and press Connect Telegram.')
  })
  bot.command('status', (ctx) => ctx.reply('Plan: VIP, renews 2026-12-31'))
  bot.on('chat_join_request', async (ctx) => {
    if (ties.has(ctx.chatJoinRequest.from.id)) await ctx.approveChatJoinRequest(ctx.chatJoinRequest.from.id)
    else await ctx.declineChatJoinRequest(ctx.chatJoinRequest.from.id)
  })
  bot.on('message:text', (ctx) => ctx.reply(`Unknown command: ${ctx.message.text}`))
}

const vip = () => emulator.telegram.config.chats[1]!.id
const texts = (messages: Message[]) => messages.map((message) => ('text' in message ? message.text : ''))

async function setWebhook(options: Parameters<Bot['api']['setWebhook']>[1] = {}) {
  await api.setWebhook(app.url, { secret_token: SECRET, ...options })
}

describe('webhook delivery', () => {
  it('delivers /start <payload> with the secret header; the bot answers in the private chat', async () => {
    await setWebhook()
    emulator.telegram.start(JORDAN, 'tok_abc-123')
    await app.waitFor((received) => received.length === 1)
    const [delivery] = app.received
    expect(delivery?.secret).toBe(SECRET)
    expect(delivery?.contentType).toBe('application/json')
    const update = delivery!.update
    expectShape<Update>(update, { update_id: true }, { message: true })
    const message = update.message!
    expectShape<Message.TextMessage>(
      message,
      { message_id: true, date: true, chat: true, text: true },
      { from: true, entities: true },
    )
    expectShape(message.from, USER_KEYS, { username: true, language_code: true })
    expect(message).toMatchObject({
      text: '/start tok_abc-123',
      entities: [{ type: 'bot_command', offset: 0, length: 6 }],
      chat: { id: JORDAN, type: 'private', first_name: 'Jordan', username: 'jordan_t' },
      from: { id: JORDAN, is_bot: false },
    })
    await emulator.telegram.idle()
    expect(ties.get(JORDAN)).toBe('tok_abc-123')
    expect(texts(emulator.telegram.messages(JORDAN))).toEqual([
      '/start tok_abc-123',
      'Connected to EdgeClub.',
    ])

    emulator.telegram.sendMessage(JORDAN, '/status')
    await app.waitFor((received) => received.length === 2)
    await emulator.telegram.idle()
    emulator.telegram.sendMessage(JORDAN, 'hello?')
    await app.waitFor((received) => received.length === 3)
    await emulator.telegram.idle()
    expect(texts(emulator.telegram.messages(JORDAN)).slice(2)).toEqual([
      '/status',
      'Plan: VIP, renews 2026-12-31',
      'hello?',
      'Unknown command: hello?',
    ])
    const ids = app.received.map((entry) => entry.update.update_id)
    expect(ids).toEqual([...ids].sort((a, b) => a - b))
    expect(new Set(ids).size).toBe(ids.length)
  })

  it('approves a join request from the tied account and declines a stranger using the same link', async () => {
    await setWebhook({ allowed_updates: ['message', 'chat_join_request', 'chat_member'] })
    const link = await api.createChatInviteLink(vip(), { creates_join_request: true, name: 'for Jordan' })
    emulator.telegram.start(JORDAN, 'tok_jordan')
    await app.waitFor(() => ties.has(JORDAN))

    expect(emulator.telegram.joinByLink(ALEX, link.invite_link).outcome).toBe('requested')
    expect(emulator.telegram.joinByLink(JORDAN, link.invite_link).outcome).toBe('requested')
    await app.waitFor((received) => received.filter((entry) => entry.update.chat_member).length === 1)
    await emulator.telegram.idle()

    expect(emulator.telegram.member(vip(), JORDAN).status).toBe('member')
    expect(emulator.telegram.member(vip(), ALEX).status).toBe('left')
    expect(emulator.telegram.joinRequests(vip())).toEqual([])

    const requests = app.received.filter((entry) => entry.update.chat_join_request)
    expect(requests.map((entry) => entry.update.chat_join_request?.from.id)).toEqual([ALEX, JORDAN])
    const request = requests[1]!.update.chat_join_request!
    expectShape<ChatJoinRequest>(
      request,
      { chat: true, from: true, user_chat_id: true, date: true },
      { invite_link: true },
    )
    expect(request).toMatchObject({
      chat: { id: vip(), type: 'supergroup', title: 'EdgeClub VIP' },
      user_chat_id: JORDAN,
      invite_link: { invite_link: link.invite_link, creates_join_request: true, name: 'for Jordan' },
    })

    const joined = app.received.find((entry) => entry.update.chat_member)!.update.chat_member!
    expectShape<ChatMemberUpdated>(
      joined,
      { chat: true, from: true, date: true, old_chat_member: true, new_chat_member: true },
      { invite_link: true, via_join_request: true },
    )
    expect(joined).toMatchObject({
      old_chat_member: { status: 'left', user: { id: JORDAN } },
      new_chat_member: { status: 'member', user: { id: JORDAN } },
      via_join_request: true,
      invite_link: { invite_link: link.invite_link },
      from: { id: emulator.telegram.config.botId },
    })
  })

  it('sends chat_member updates only when the bot asks for them', async () => {
    await setWebhook()
    const link = await api.createChatInviteLink(vip())
    expect(emulator.telegram.joinByLink(ALEX, link.invite_link).outcome).toBe('joined')
    await api.banChatMember(vip(), ALEX)
    emulator.telegram.start(JORDAN)
    await app.waitFor((received) => received.length === 1)
    await emulator.telegram.idle()
    expect(app.received.map((entry) => updateType(entry.update))).toEqual(['message'])

    await setWebhook({ allowed_updates: ['chat_member'] })
    await api.unbanChatMember(vip(), ALEX)
    emulator.telegram.joinByLink(ALEX, link.invite_link)
    await app.waitFor((received) => received.length === 3)
    expect(app.received.slice(1).map((entry) => entry.update.chat_member?.new_chat_member.status)).toEqual([
      'left',
      'member',
    ])
    expect((await api.getWebhookInfo()).allowed_updates).toEqual(['chat_member'])
  })

  it('retries a failed delivery like Telegram and reports the error in getWebhookInfo', async () => {
    await setWebhook()
    app.respondWith(500, 500, 503)
    emulator.telegram.start(JORDAN, 'tok_retry')
    await app.waitFor((received) => received.length === 2)
    const failing = await api.getWebhookInfo()
    expect(failing).toMatchObject({
      pending_update_count: 1,
      last_error_message: 'Wrong response from the webhook: 500 Internal Server Error',
    })
    expect(failing.last_error_date).toBeGreaterThan(0)

    await app.waitFor(() => ties.has(JORDAN), 5_000)
    await emulator.telegram.idle()
    expect(app.received.map((entry) => entry.status)).toEqual([500, 500, 503, 200])
    // The same update each time: one update_id, handled once.
    expect(new Set(app.received.map((entry) => entry.update.update_id)).size).toBe(1)
    expect(texts(emulator.telegram.messages(JORDAN))).toEqual(['/start tok_retry', 'Connected to EdgeClub.'])
    const deliveries = emulator.telegram.deliveries()
    expect(deliveries.map((entry) => [entry.attempt, entry.status])).toEqual([
      [1, 500],
      [2, 500],
      [3, 503],
      [4, 200],
    ])
    // Telegram retries the first failure at once, then waits 2, 4 ... units.
    const at = deliveries.map((entry) => Date.parse(entry.at))
    expect(at[2]! - at[1]!).toBeGreaterThanOrEqual(70)
    expect(at[3]! - at[2]!).toBeGreaterThanOrEqual(150)
    expect(await api.getWebhookInfo()).toMatchObject({
      pending_update_count: 0,
      last_error_message: 'Wrong response from the webhook: 503 Service Unavailable',
    })
  })

  it('fails deliveries on request without calling the webhook', async () => {
    await setWebhook()
    emulator.telegram.failDeliveries(2)
    emulator.telegram.start(JORDAN, 'tok_forced')
    await app.waitFor(() => ties.has(JORDAN), 5_000)
    await emulator.telegram.idle()
    expect(app.received).toHaveLength(1)
    expect(emulator.telegram.deliveries().map((entry) => [entry.forced, entry.status])).toEqual([
      [true, 500],
      [true, 500],
      [false, 200],
    ])
  })

  it('keeps retrying while the webhook refuses the secret, and delivers once it matches', async () => {
    await api.setWebhook(app.url, { secret_token: 'not_the_app_secret' })
    emulator.telegram.start(JORDAN, 'tok_secret')
    await app.waitFor((received) => received.length >= 2)
    expect(app.received.every((entry) => entry.status === 401 && entry.secret === 'not_the_app_secret')).toBe(
      true,
    )
    expect((await api.getWebhookInfo()).last_error_message).toBe(
      'Wrong response from the webhook: 401 Unauthorized',
    )
    expect(ties.has(JORDAN)).toBe(false)

    await setWebhook()
    await app.waitFor((received) => received.at(-1)?.status === 200, 5_000)
    expect(ties.get(JORDAN)).toBe('tok_secret')
    expect(app.received.at(-1)?.secret).toBe(SECRET)
  })

  it('keeps updates until a webhook is set, unless asked to drop them', async () => {
    emulator.telegram.start(JORDAN, 'tok_early')
    expect((await api.getWebhookInfo()).pending_update_count).toBe(1)
    await setWebhook({ drop_pending_updates: true })
    expect((await api.getWebhookInfo()).pending_update_count).toBe(0)

    await api.deleteWebhook()
    emulator.telegram.sendMessage(JORDAN, '/status')
    await setWebhook()
    await app.waitFor((received) => received.length === 1)
    expect(app.received[0]?.update.message?.text).toBe('/status')
  })

  it('runs a method the webhook answers with (a webhook reply)', async () => {
    await app.close()
    app = await startTelegramBotApp(emulator, { secretToken: SECRET, setup: edgeClubBot, webhookReply: true })
    api = app.bot.api
    await setWebhook()
    emulator.telegram.start(JORDAN, 'tok_reply')
    await app.waitFor((received) => received.length === 1)
    await emulator.telegram.idle()
    expect(texts(emulator.telegram.messages(JORDAN))).toEqual(['/start tok_reply', 'Connected to EdgeClub.'])
    expect(emulator.telegram.state().log.at(-1)).toMatchObject({ method: 'sendMessage', status: 200 })
  })
})

describe('getUpdates', () => {
  it('long-polls the queue and confirms by offset; refuses while a webhook is set', async () => {
    const bot = new Bot(emulator.telegram.config.botToken, { client: { apiRoot: emulator.telegram.apiRoot } })
    const waiting = bot.api.getUpdates({ timeout: 5 })
    setTimeout(() => emulator.telegram.start(ALEX), 50)
    const [first] = await waiting
    expect(first?.message?.text).toBe('/start')
    emulator.telegram.sendMessage(ALEX, 'one')
    const next = await bot.api.getUpdates({ offset: first!.update_id + 1 })
    expect(next.map((update) => update.message?.text)).toEqual(['one'])
    expect(next[0]!.update_id).toBe(first!.update_id + 1)

    await bot.api.setWebhook('https://app.example/hook')
    const error = await bot.api.getUpdates().catch((caught: unknown) => caught)
    expect(error).toBeInstanceOf(GrammyError)
    expect((error as GrammyError).error_code).toBe(409)
    expect((error as GrammyError).description).toBe(
      "Conflict: can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
    )
  })
})
