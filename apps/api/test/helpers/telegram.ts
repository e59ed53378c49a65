import { randomBytes } from 'node:crypto'
import { type Emulator, type EmulatorOptions, startEmulator } from '@edgeclub/emulator'
import type { Config } from '../../src/config'
import type { Clock } from '../../src/lib/clock'
import { eventually } from './billing'
import { as, login, type Session } from './members'
import { freePort } from './server-process'
import { createTestApp, type TestApp } from './test-app'

export const API = '/discord/api'
export const TELEGRAM_ADMIN = { email: 'tg-admin@edgeclub.test', password: 'Tg$Admin2026x' }

export interface TelegramHarness {
  emulator: Emulator
  t: TestApp
  admin: Session
  secret: string
  /** The app's webhook URL as Telegram calls it. */
  webhookUrl: string
  close(): Promise<void>
}

/**
 * The app with its Telegram bot on the emulator, listening on a real port so Telegram's webhook
 * deliveries reach it (the app sets the webhook itself at start, as in production), plus its admin.
 */
export async function startTelegramHarness(
  options: {
    clock?: Clock
    /** More environment, e.g. Discord's (it needs the emulator's address). */
    env?: (emulator: Emulator) => Record<string, string>
    configure?: (config: Config) => void
    emulator?: EmulatorOptions
  } = {},
): Promise<TelegramHarness> {
  const emulator = await startEmulator(options.emulator ?? {})
  const port = await freePort()
  const origin = `http://127.0.0.1:${port}`
  const secret = randomBytes(24).toString('base64url')
  let t: TestApp | undefined
  try {
    t = await createTestApp({
      clock: options.clock,
      configure: options.configure,
      env: {
        APP_ORIGIN: origin,
        ADMIN_EMAIL: TELEGRAM_ADMIN.email,
        ADMIN_PASSWORD: TELEGRAM_ADMIN.password,
        TELEGRAM_BOT_TOKEN: emulator.telegram.config.botToken,
        TELEGRAM_WEBHOOK_SECRET: secret,
        TELEGRAM_API_BASE: emulator.telegram.apiRoot,
        TELEGRAM_LINK_BASE: emulator.telegram.pageLinkBase,
        ...options.env?.(emulator),
      },
    })
    await t.app.listen({ port, host: '127.0.0.1' })
    const webhookUrl = `${origin}${API}/webhooks/telegram`
    await eventually(
      async () => emulator.telegram.webhookInfo(),
      (info) => info.url === webhookUrl && (info.allowed_updates ?? []).includes('chat_member'),
      15_000,
    )
    const admin = await login(t.app, TELEGRAM_ADMIN.email, TELEGRAM_ADMIN.password)
    const started = t
    return {
      emulator,
      t: started,
      admin,
      secret,
      webhookUrl,
      close: async () => {
        await started.close()
        await emulator.close()
      },
    }
  } catch (error) {
    await t?.close()
    await emulator.close()
    throw error
  }
}

/** The emulator's seeded chats by title. */
export function chatByTitle(emulator: Emulator, title: string) {
  const chat = emulator.telegram.config.chats.find((candidate) => candidate.title === title)
  if (!chat) throw new Error(`no seeded chat ${title}`)
  return chat
}

/** Adds a seeded chat as a place through the admin API (what an owner does in the console). */
export async function addChatPlace(
  h: TelegramHarness,
  title: string,
  signalCategories: 'all' | string[] = 'all',
): Promise<{ id: string; title: string }> {
  const response = await as(h.t.app, h.admin.accessToken, {
    method: 'POST',
    url: `${API}/admin/places`,
    payload: { kind: 'telegram_chat', chat: String(chatByTitle(h.emulator, title).id), signalCategories },
  })
  if (response.statusCode !== 201) throw new Error(`adding ${title} failed: ${response.body}`)
  return response.json().data
}

/** Every queued Telegram job has run (sends, syncs, join requests) and the webhook is drained. */
export async function settled(h: TelegramHarness, timeoutMs = 20_000): Promise<void> {
  const queues = [
    'telegram.sync',
    'telegram.join-request',
    'telegram.release',
    'telegram.send',
    'places.plan-changed',
    'signals.telegram',
  ] as const
  await eventually(
    async () => {
      await h.emulator.telegram.idle(timeoutMs)
      let pending = 0
      for (const queue of queues) pending += await h.t.app.services.jobs.pending(queue)
      return pending
    },
    (pending) => pending === 0,
    timeoutMs,
  )
  await h.emulator.telegram.idle(timeoutMs)
}

/** The member presses Start on their deep link as this Telegram person; answers the person. */
export async function connectTelegram(
  h: TelegramHarness,
  member: Session,
  person: { first_name: string; username?: string; id?: number },
) {
  const connect = await as(h.t.app, member.accessToken, { method: 'POST', url: `${API}/telegram/connect` })
  if (connect.statusCode !== 200) throw new Error(`connect failed: ${connect.body}`)
  const token = new URL(connect.json().data.url).searchParams.get('start')
  if (!token) throw new Error('the deep link has no start token')
  const user = h.emulator.telegram.createUser(person)
  h.emulator.telegram.start(user.id, token)
  await settled(h)
  return { user, token }
}

export const telegramStatus = async (h: TelegramHarness, member: Session) =>
  (await as(h.t.app, member.accessToken, { method: 'GET', url: `${API}/telegram/status` })).json().data

/** Texts the bot wrote to a person, oldest first. */
export const botSaid = (h: TelegramHarness, userId: number) =>
  h.emulator.telegram
    .messages(userId)
    .filter((message) => message.from?.id === h.emulator.telegram.config.botId)
    .map((message) => ('text' in message && message.text ? message.text : ''))

/** The URL buttons the bot sent a person, newest message last. */
export const botButtons = (h: TelegramHarness, userId: number) =>
  h.emulator.telegram
    .messages(userId)
    .filter((message) => message.from?.id === h.emulator.telegram.config.botId)
    .flatMap((message) =>
      (message.reply_markup?.inline_keyboard ?? [])
        .flat()
        .flatMap((button) => ('url' in button && button.url ? [{ text: button.text, url: button.url }] : [])),
    )
