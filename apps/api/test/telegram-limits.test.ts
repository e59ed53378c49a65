import { randomUUID } from 'node:crypto'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { as } from './helpers/members'
import {
  API,
  addChatPlace,
  chatByTitle,
  settled,
  startTelegramHarness,
  type TelegramHarness,
} from './helpers/telegram'

/**
 * Telegram's flood limits, kept by the app's queued, keyed sends. Telegram allows about 30 messages a
 * second; a 2,000-member broadcast at that pace takes over a minute, so this run raises the global
 * limit on both sides (the emulator's README suggests it) and checks the app kept to the limits it was
 * given, measured at the emulator: per second overall, per window in a group, one message each.
 */
const GLOBAL = { messages: 150, seconds: 1 }
const GROUP = { messages: 6, seconds: 3 }
const MEMBERS = 2_000

describe('Telegram flood limits', () => {
  let h: TelegramHarness

  beforeAll(async () => {
    h = await startTelegramHarness({
      configure: (config) => {
        config.limits.telegram = { ...config.limits.telegram, global: GLOBAL, group: GROUP }
      },
      emulator: { telegram: { rateLimit: { global: GLOBAL, group: GROUP } } },
    })
  })
  afterAll(async () => {
    await h.close()
  })

  /** When the emulator accepted each message into these chats, in order (ms). */
  const sendTimes = (chatIds: Set<string>) =>
    h.emulator.telegram
      .state()
      .log.filter(
        (entry) =>
          entry.method === 'sendMessage' && entry.status === 200 && chatIds.has(entry.params.chat_id ?? ''),
      )
      .map((entry) => Date.parse(entry.at))
      .sort((a, b) => a - b)

  /** The most messages in any window of this length. */
  function busiestWindow(times: number[], windowMs: number): number {
    let most = 0
    let start = 0
    for (let end = 0; end < times.length; end++) {
      while (times[end]! - times[start]! >= windowMs) start += 1
      most = Math.max(most, end - start + 1)
    }
    return most
  }

  it(`a broadcast to ${MEMBERS} Telegram members keeps to the limits and reaches each once, however often it is sent`, async () => {
    // Members who connected Telegram and pressed Start (their updates are not what this is about:
    // the webhook is off while they arrive, and they are dropped).
    const deleted = await fetch(
      `${h.emulator.telegram.apiRoot}/bot${h.emulator.telegram.config.botToken}/deleteWebhook`,
      { method: 'POST' },
    )
    expect(deleted.ok).toBe(true)
    const people = Array.from({ length: MEMBERS }, (_, index) =>
      h.emulator.telegram.createUser({ first_name: `Fan ${index}`, username: `fan_${index}_x` }),
    )
    for (const person of people) h.emulator.telegram.start(person.id)
    h.emulator.telegram.setWebhook({
      url: h.webhookUrl,
      secretToken: h.secret,
      allowedUpdates: ['message', 'chat_join_request', 'chat_member', 'my_chat_member'],
      dropPendingUpdates: true,
    })
    const db = h.t.database.db
    for (let start = 0; start < people.length; start += 500) {
      const batch = people.slice(start, start + 500)
      const users = await db
        .insertInto('users')
        .values(
          batch.map((person) => ({
            email: `fan${person.id}@example.com`,
            email_normalized: `fan${person.id}@example.com`,
            password_hash: 'not-a-password',
            first_name: person.first_name,
            last_name: 'Fan',
            discord_username: '',
          })),
        )
        .returning(['id', 'email'])
        .execute()
      await db
        .insertInto('telegram_accounts')
        .values(
          batch.map((person) => ({
            user_id: users.find((user) => user.email === `fan${person.id}@example.com`)!.id,
            telegram_user_id: String(person.id),
            username: person.username ?? null,
            first_name: person.first_name,
            connected_at: new Date(),
          })),
        )
        .execute()
    }
    const chats = new Set(people.map((person) => String(person.id)))

    // The broadcast's identity, as the admin form sends it: the same one twice is one broadcast.
    const broadcastId = randomUUID()
    const broadcast = () =>
      as(h.t.app, h.admin.accessToken, {
        method: 'POST',
        url: `${API}/admin/broadcast`,
        payload: {
          broadcastId,
          title: 'Season opener',
          message: 'Our full card is up tonight.',
          alsoTelegram: true,
        },
      })
    const started = Date.now()
    const first = await broadcast()
    expect(first.statusCode, first.body).toBe(200)
    expect(first.json().data).toMatchObject({ messageId: null, telegram: MEMBERS })
    await eventually(
      () => h.t.app.services.jobs.pending('telegram.send'),
      (pending) => pending === 0,
      150_000,
    )
    const elapsed = Date.now() - started

    const stats = h.emulator.telegram.floodStats().filter((entry) => chats.has(String(entry.chatId)))
    expect(stats).toHaveLength(MEMBERS)
    expect(stats.filter((entry) => entry.sent !== 1)).toEqual([])
    expect(stats.reduce((sum, entry) => sum + entry.limited, 0)).toBe(0)
    const times = sendTimes(chats)
    expect(times).toHaveLength(MEMBERS)
    // Counted where they arrive: the network may bunch a few sends paced apart (the emulator, which
    // enforces the same limit, answered no 429 above), so a few more than the limit may land in a second.
    expect(busiestWindow(times, GLOBAL.seconds * 1000)).toBeLessThanOrEqual(Math.ceil(GLOBAL.messages * 1.05))
    // Kept to the pace, not far below it: 2,000 at 150 a second is about 14 s.
    expect(elapsed).toBeGreaterThan(((MEMBERS - GLOBAL.messages) / GLOBAL.messages) * 1000)
    const text = h.emulator.telegram.messages(people[0]!.id).at(-1)
    expect(text && 'text' in text ? text.text : '').toBe('Season opener\nOur full card is up tonight.')

    // The same broadcast again: refused, and sent to nobody twice.
    expect((await broadcast()).statusCode).toBe(409)
    await settled(h, 60_000)
    expect(sendTimes(chats)).toHaveLength(MEMBERS)
  }, 240_000)

  it('posts to one group stay within its per-chat limit, each once', async () => {
    await addChatPlace(h, 'EdgeClub Signals', ['NBA'])
    const chatId = String(chatByTitle(h.emulator, 'EdgeClub Signals').id)
    const before = sendTimes(new Set([chatId])).length
    const count = 10
    for (let index = 0; index < count; index++) {
      const response = await as(h.t.app, h.admin.accessToken, {
        method: 'POST',
        url: `${API}/signals`,
        payload: {
          kind: 'pick',
          sport: 'NBA',
          event: `Game ${index}`,
          startsAt: new Date(Date.now() + 3_600_000).toISOString(),
          market: 'moneyline',
          selection: `Home ${index}`,
          odds: 1.9,
          stake: 1,
        },
      })
      expect(response.statusCode, response.body).toBe(201)
    }
    await settled(h, 60_000)
    const times = sendTimes(new Set([chatId])).slice(before)
    expect(times).toHaveLength(count)
    expect(busiestWindow(times, GROUP.seconds * 1000)).toBeLessThanOrEqual(GROUP.messages)
    const texts = h.emulator.telegram
      .messages(Number(chatId))
      .map((message) => ('text' in message ? message.text : ''))
    for (let index = 0; index < count; index++)
      expect(texts.filter((text) => text?.includes(`Game ${index}`))).toHaveLength(1)
    expect(h.emulator.telegram.floodStats().find((entry) => String(entry.chatId) === chatId)?.limited).toBe(0)
  }, 120_000)
})
