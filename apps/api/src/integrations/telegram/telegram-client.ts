import { Api, Bot, GrammyError, HttpError } from 'grammy'
import type { ChatMember, UserFromGetMe } from 'grammy/types'

/**
 * The Telegram Bot API through grammY, the way the bot runs here: webhook mode (Telegram POSTs each
 * update to us with the secret-token header; nothing polls), no retries inside a call (a failed call
 * fails its job, which is retried with backoff), and TELEGRAM_API_BASE pointing it elsewhere (the
 * emulator). Updates are routed by a grammY `Bot` built on the same client (`createBot`).
 */

export interface TelegramSettings {
  botToken: string
  apiBase: string
}

/** The updates the bot asks Telegram for (`chat_member` is only sent when asked for by name). */
export const ALLOWED_UPDATES = ['message', 'chat_join_request', 'chat_member', 'my_chat_member'] as const

/** Statuses of someone inside a chat (restricted members are in, without some rights). */
const IN_CHAT = new Set<ChatMember['status']>(['creator', 'administrator', 'member', 'restricted'])

export function isInChat(member: ChatMember): boolean {
  return IN_CHAT.has(member.status) && (member.status !== 'restricted' || member.is_member)
}

/** Telegram's refusal with its code and description (never the payload: it may hold a link). */
export function telegramFailure(error: unknown): { status?: number; description: string } {
  if (error instanceof GrammyError) return { status: error.error_code, description: error.description }
  if (error instanceof HttpError) return { description: `network: ${error.message}` }
  return { description: error instanceof Error ? error.message : String(error) }
}

/** Seconds Telegram asked us to wait (a 429's `retry_after`), if that is what this error is. */
export function retryAfterOf(error: unknown): number | undefined {
  if (error instanceof GrammyError && error.error_code === 429)
    return Math.max(1, Number(error.parameters.retry_after ?? 1))
  return undefined
}

/** Telegram's answer when a description says the thing is already done or gone (safe to treat as done). */
export function descriptionIncludes(error: unknown, ...fragments: string[]): boolean {
  return (
    error instanceof GrammyError &&
    fragments.some((fragment) => error.description.toLowerCase().includes(fragment.toLowerCase()))
  )
}

/** The bot cannot write to this person (never pressed Start, blocked the bot, deleted their account). */
export function isUnreachableUser(error: unknown): boolean {
  return (
    error instanceof GrammyError &&
    error.error_code === 403 &&
    /blocked by the user|can't initiate conversation|user is deactivated/i.test(error.description)
  )
}

export function createTelegramClient(settings: TelegramSettings) {
  const client = { apiRoot: settings.apiBase, timeoutSeconds: 15 }
  const api = new Api(settings.botToken, client)
  let me: Promise<UserFromGetMe> | undefined

  /** getMe once per process (a failure is not remembered, so the next call asks again). */
  function botInfo(): Promise<UserFromGetMe> {
    me ??= api.getMe().catch((error: unknown) => {
      me = undefined
      throw error
    })
    return me
  }

  return {
    api,
    botInfo,
    /** A grammY Bot on the same client, ready to route updates (its getMe answered). */
    async createBot(): Promise<Bot> {
      return new Bot(settings.botToken, { client, botInfo: await botInfo() })
    },
  }
}
export type TelegramClient = ReturnType<typeof createTelegramClient>
