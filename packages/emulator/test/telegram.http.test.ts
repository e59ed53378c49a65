import type { ChatMember, Message, User } from '@grammyjs/types'
import { Bot, GrammyError, HttpError, InputFile } from 'grammy'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Emulator, startEmulator } from '../src/server'

/**
 * The wire details grammY and other clients depend on (how parameters arrive, the error bodies, 429
 * and outages), Telegram's flood limits, and the /_control/telegram routes, checked over HTTP.
 */

let emulator: Emulator
let bot: Bot
let base: string

beforeAll(async () => {
  emulator = await startEmulator({
    telegram: {
      rateLimit: {
        global: { messages: 10, seconds: 1 },
        group: { messages: 3, seconds: 60 },
        private: { messages: 1, seconds: 1, burst: 2 },
      },
    },
  })
})

beforeEach(() => {
  emulator.telegram.reset()
  bot = new Bot(emulator.telegram.config.botToken, { client: { apiRoot: emulator.telegram.apiRoot } })
  base = `${emulator.telegram.apiRoot}/bot${emulator.telegram.config.botToken}`
})

afterAll(async () => {
  await emulator.close()
})

const vip = () => emulator.telegram.config.chats[1]!.id
const nfl = () => emulator.telegram.config.chats[2]!.id
const JORDAN = 1000000002

const control = (path: string, body?: unknown, method = body === undefined ? 'GET' : 'POST') =>
  fetch(`${emulator.url}/_control/telegram${path}`, {
    method,
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })

/** A control route's JSON answer, typed as the test expects it. */
const json = async <T>(response: Promise<Response>) => (await (await response).json()) as T

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  try {
    await promise
  } catch (error) {
    return error
  }
  throw new Error('expected the call to fail')
}

describe('parameters', () => {
  it('reads the query string, form and JSON bodies alike, method names in any case', async () => {
    const byQuery = await fetch(`${base}/sendMessage?chat_id=${vip()}&text=from%20the%20query`)
    expect(await byQuery.json()).toMatchObject({ ok: true, result: { text: 'from the query' } })
    const byForm = await fetch(`${base}/SENDMESSAGE`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        chat_id: String(vip()),
        text: 'from a form',
        reply_markup: JSON.stringify({ inline_keyboard: [[{ text: 'Go', url: 'https://example.com' }]] }),
      }),
    })
    expect(await byForm.json()).toMatchObject({
      ok: true,
      result: { text: 'from a form', reply_markup: { inline_keyboard: [[{ text: 'Go' }]] } },
    })
    // JSON objects may carry nested values as objects or as JSON strings.
    const byJson = await fetch(`${base}/sendmessage`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({
        chat_id: String(vip()),
        text: 'from JSON',
        link_preview_options: JSON.stringify({ is_disabled: true }),
      }),
    })
    expect(await byJson.json()).toMatchObject({
      ok: true,
      result: { link_preview_options: { is_disabled: true } },
    })
  })

  it('reads multipart/form-data as grammY writes it when a file is attached', async () => {
    await bot.api.setWebhook('https://app.example/hook', {
      certificate: new InputFile(Buffer.from('-----BEGIN CERTIFICATE-----'), 'cert.pem'),
      secret_token: 'multipart_secret',
      allowed_updates: ['message', 'chat_member'],
    })
    expect(await bot.api.getWebhookInfo()).toMatchObject({
      url: 'https://app.example/hook',
      allowed_updates: ['message', 'chat_member'],
    })
    const logged = emulator.telegram.state().log.find((entry) => entry.method === 'setWebhook')
    expect(logged?.params).toMatchObject({ secret_token: '[redacted]', url: 'https://app.example/hook' })
    expect(Object.values(logged?.params ?? {}).some((value) => value.startsWith('<file cert.pem'))).toBe(true)
  })

  it('answers malformed bodies as the Bot API does', async () => {
    const broken = await fetch(`${base}/getMe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{nope',
    })
    expect(broken.status).toBe(400)
    expect(await broken.json()).toMatchObject({ ok: false, error_code: 400 })
    const list = await fetch(`${base}/getMe`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '[1]',
    })
    expect(await list.json()).toEqual({
      ok: false,
      error_code: 400,
      description: 'Bad Request: JSON object expected',
    })
  })
})

describe('authentication and unknown paths', () => {
  it('answers 401 for a wrong token and 404 for an unknown method or path', async () => {
    const wrong = await fetch(
      `${emulator.telegram.apiRoot}/bot123456:AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA/getMe`,
    )
    expect(wrong.status).toBe(401)
    expect(await wrong.json()).toEqual({ ok: false, error_code: 401, description: 'Unauthorized' })
    const error = (await rejection(
      new Bot('1:wrong', { client: { apiRoot: emulator.telegram.apiRoot } }).api.getMe(),
    )) as GrammyError
    expect([error.error_code, error.description]).toEqual([401, 'Unauthorized'])

    for (const path of [`${base}/noSuchMethod`, `${emulator.telegram.apiRoot}/getMe`, `${base}`]) {
      const response = await fetch(path)
      expect(response.status, path).toBe(404)
      expect(await response.json()).toEqual({ ok: false, error_code: 404, description: 'Not Found' })
    }
    // The token never reaches the log.
    expect(JSON.stringify(emulator.telegram.state().log)).not.toContain(emulator.telegram.config.botToken)
  })
})

describe('forced faults', () => {
  it('answers a forced 429 with retry_after in the body and Retry-After in the headers', async () => {
    emulator.telegram.failNext({ status: 429, retryAfter: 7, method: 'sendMessage' })
    await bot.api.getMe()
    const response = await fetch(`${base}/sendMessage?chat_id=${vip()}&text=x`)
    expect(response.status).toBe(429)
    expect(response.headers.get('retry-after')).toBe('7')
    expect(await response.json()).toEqual({
      ok: false,
      error_code: 429,
      description: 'Too Many Requests: retry after 7',
      parameters: { retry_after: 7 },
    })
    expect(emulator.telegram.floodStats()).toEqual([
      expect.objectContaining({ chatId: vip(), sent: 0, limited: 1 }),
    ])
    expect(emulator.telegram.state().log.at(-1)).toMatchObject({
      method: 'sendMessage',
      status: 429,
      forced: true,
    })
  })

  it('answers a forced 500 as JSON and a 502 as the proxy page grammY cannot read', async () => {
    emulator.telegram.failNext({ status: 500, count: 1 })
    const internal = (await rejection(bot.api.getMe())) as GrammyError
    expect(internal).toBeInstanceOf(GrammyError)
    expect([internal.error_code, internal.description]).toEqual([500, 'Internal Server Error'])
    emulator.telegram.failNext({ status: 502 })
    expect(await rejection(bot.api.getMe())).toBeInstanceOf(HttpError)
    expect((await bot.api.getMe()).username).toBe('edgeclub_demo_bot')
    expect(() => emulator.telegram.failNext({ status: 404 })).toThrow('429 or 5xx')
  })
})

describe('flood limits', () => {
  it('limits one group to its messages per minute, other chats unaffected', async () => {
    for (const text of ['one', 'two', 'three']) await bot.api.sendMessage(vip(), text)
    const error = (await rejection(bot.api.sendMessage(vip(), 'four'))) as GrammyError
    expect(error.error_code).toBe(429)
    // 3 a minute: the next slot is 20 seconds away.
    expect(error.parameters.retry_after).toBe(20)
    expect(error.description).toBe('Too Many Requests: retry after 20')
    await bot.api.sendMessage(nfl(), 'elsewhere')
    emulator.telegram.advanceTime(20)
    await bot.api.sendMessage(vip(), 'four')
    expect(emulator.telegram.floodStats().find((entry) => entry.chatId === vip())).toMatchObject({
      sent: 4,
      limited: 1,
    })
  })

  it('takes new limits at run time until reset', async () => {
    const response = await control('/rate-limits', { group: { messages: 1, seconds: 2 }, global: false })
    expect(await response.json()).toEqual({
      global: false,
      group: { messages: 1, seconds: 2, burst: 1 },
      private: { messages: 1, seconds: 1, burst: 3 },
    })
    await bot.api.sendMessage(vip(), 'one')
    const error = (await rejection(bot.api.sendMessage(vip(), 'two'))) as GrammyError
    expect(error.parameters.retry_after).toBe(2)
    expect((await control('/rate-limits', { group: { messages: 0, seconds: 1 } })).status).toBe(400)
    emulator.telegram.reset()
    for (const text of ['a', 'b', 'c']) await bot.api.sendMessage(vip(), text)
  })

  it('lets a private chat take a short burst, then one a second', async () => {
    emulator.telegram.start(JORDAN)
    await bot.api.sendMessage(JORDAN, 'a')
    await bot.api.sendMessage(JORDAN, 'b')
    const error = (await rejection(bot.api.sendMessage(JORDAN, 'c'))) as GrammyError
    expect([error.error_code, error.parameters.retry_after]).toEqual([429, 1])
  })

  it('a broadcast that waits out every 429 reaches each person exactly once', async () => {
    const people = Array.from({ length: 24 }, (_, index) => {
      const user = emulator.telegram.createUser({
        first_name: `Member ${index}`,
        username: `member_${index}_x`,
      })
      emulator.telegram.start(user.id)
      return user.id
    })
    // What the app's queued, keyed sender does: on 429, wait retry_after and send the same message again.
    const sendOnce = async (chatId: number) => {
      for (;;) {
        try {
          return await bot.api.sendMessage(chatId, 'Renewal reminder: your plan renews tomorrow.')
        } catch (error) {
          if (!(error instanceof GrammyError) || error.error_code !== 429) throw error
          await new Promise((resolve) => setTimeout(resolve, (error.parameters.retry_after ?? 1) * 1000))
        }
      }
    }
    await Promise.all(people.map((chatId) => sendOnce(chatId)))

    const stats = emulator.telegram.floodStats().filter((entry) => people.includes(entry.chatId))
    expect(stats).toHaveLength(people.length)
    expect(stats.every((entry) => entry.sent === 1)).toBe(true)
    // The global limit (10 a second) did refuse some, and every refused one was sent afterwards.
    expect(stats.some((entry) => entry.limited > 0)).toBe(true)
    for (const entry of stats.filter((candidate) => candidate.limited > 0))
      expect(entry.lastSentAt!).toBeGreaterThan(entry.lastLimitedAt!)
    for (const chatId of people)
      expect(emulator.telegram.messages(chatId).filter((message) => message.from?.is_bot)).toHaveLength(1)
  }, 20_000)
})

describe('/_control/telegram', () => {
  it('acts as people and reports what happened', async () => {
    const config = await (await control('/config')).json()
    expect(config).toMatchObject({
      botUsername: 'edgeclub_demo_bot',
      apiRoot: emulator.telegram.apiRoot,
      pageLinkBase: `${emulator.url}/telegram/t.me`,
      linkBase: 'https://t.me',
    })
    const user = await json<User>(control('/users', { first_name: 'Robin', username: 'robin_http' }))
    expect(user).toMatchObject({ first_name: 'Robin', username: 'robin_http', is_bot: false })
    const started = await json<Message.TextMessage>(control(`/users/${user.id}/start`, { payload: 'abc' }))
    expect(started.text).toBe('/start abc')
    expect((await control(`/users/${user.id}/start`, { payload: 'bad payload!' })).status).toBe(400)

    const link = await bot.api.createChatInviteLink(vip(), { creates_join_request: true })
    const joined = await (await control('/join', { userId: user.id, inviteLink: link.invite_link })).json()
    expect(joined).toMatchObject({ outcome: 'requested', chatId: vip() })
    expect(await (await control(`/chats/${vip()}/join-requests`)).json()).toHaveLength(1)
    await bot.api.approveChatJoinRequest(vip(), user.id)
    const members = await json<ChatMember[]>(control(`/chats/${vip()}/members`))
    expect(members.map((member) => member.user.id)).toContain(user.id)
    expect((await control(`/chats/${vip()}/members/${user.id}`, undefined, 'DELETE')).status).toBe(200)
    expect((await json<ChatMember>(control(`/chats/${vip()}/members/${user.id}`))).status).toBe('left')

    expect((await control('/faults', { status: 429, retryAfter: 2, count: 2 })).status).toBe(200)
    expect(await (await control('/faults')).json()).toEqual([{ status: 429, count: 2, retryAfter: 2 }])
    await control('/faults', undefined, 'DELETE')
    expect((await control('/webhook/failures', { count: 2, status: 503 })).status).toBe(200)
    expect((await control('/webhook/failures', { count: 0 })).status).toBe(400)

    await control('/link-base', { linkBase: 'emulator' })
    const local = await bot.api.createChatInviteLink(vip())
    expect(local.invite_link.startsWith(`${emulator.url}/telegram/t.me/+`)).toBe(true)
    expect((await control('/link-base', { linkBase: 'nope' })).status).toBe(400)
    await control('/link-base', { linkBase: 'https://t.me' })

    await control('/webhook', {
      url: 'https://app.example/hook',
      secretToken: 'demo_1',
      allowedUpdates: ['message'],
    })
    expect(emulator.telegram.webhookInfo()).toMatchObject({
      url: 'https://app.example/hook',
      allowed_updates: ['message'],
    })
    const refused = await control('/webhook', { url: 'not a url' })
    expect([refused.status, ((await refused.json()) as { error: string }).error]).toEqual([
      400,
      'telegram emulator: Bad Request: invalid webhook URL specified',
    ])

    await control('/reset', {})
    expect((await json<User[]>(control('/users'))).map((entry) => entry.id)).not.toContain(user.id)
  })

  it('answers bad input with 400 and changes nothing', async () => {
    const before = emulator.telegram.users().length
    for (const body of [
      { first_name: '' },
      { first_name: 'X', username: 'no' },
      { first_name: 'Y', id: -4 },
    ]) {
      const response = await control('/users', body)
      expect(response.status).toBe(400)
      expect(((await response.json()) as { error: string }).error).toMatch(/telegram emulator/)
    }
    expect(
      (await control('/join', { userId: JORDAN, inviteLink: 'https://t.me/+unknownHash000' })).status,
    ).toBe(400)
    expect((await control('/users/42/messages', { text: 'hi' })).status).toBe(400)
    expect(emulator.telegram.users()).toHaveLength(before)
  })
})
