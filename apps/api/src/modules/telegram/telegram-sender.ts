import type { FastifyBaseLogger } from 'fastify'
import type { MessageEntity } from 'grammy/types'
import type { Config, TelegramLimit } from '../../config'
import {
  isUnreachableUser,
  retryAfterOf,
  type TelegramClient,
  telegramFailure,
} from '../../integrations/telegram/telegram-client'
import type { SendBucket, TelegramRepository } from './telegram-repository'
import type { BotMessage } from './telegram-texts'

/** A message the `telegram.send` queue delivers: where, and what (see telegram-texts.ts). */
export interface OutgoingMessage extends BotMessage {
  chatId: string
}

/**
 * The token bucket that keeps a limit: with an explicit burst, that many at once and then the pace;
 * otherwise a small burst and a pace that together never put more than `messages` in any window of
 * `seconds` (a bucket as big as the limit would allow twice the limit in a window that starts full).
 */
export function bucketFor(scope: string, limit: TelegramLimit & { burst?: number }): SendBucket {
  if (limit.burst) return { scope, capacity: limit.burst, perSecond: limit.messages / limit.seconds }
  const capacity = Math.max(1, Math.floor(limit.messages / 4))
  // A little under the limit where it is large: sends paced apart can arrive bunched by the network.
  const headroom = Math.floor(limit.messages * 0.05)
  return { scope, capacity, perSecond: Math.max(limit.messages - capacity - headroom, 1) / limit.seconds }
}

/** The longest one attempt waits for a send slot before it gives up and the job is retried later. */
const MAX_WAIT_MS = 90_000
/** 429s one attempt sits out before the job is retried later. */
const MAX_RETRY_AFTERS = 3

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms))

/**
 * Sends within Telegram's flood limits, for every instance together: each message takes a slot from
 * the bot's global bucket and from its chat's (groups and channels: a minute's allowance; private
 * chats: about one a second with a short burst), waiting until both have one. A 429 Telegram answers
 * anyway empties that chat's bucket for its `retry_after`, so no instance tries early.
 */
export function createTelegramSender(deps: {
  telegram: TelegramClient
  repo: Pick<TelegramRepository, 'takeSend' | 'holdBucket'>
  limits: Config['limits']['telegram']
  log: FastifyBaseLogger
}) {
  const { limits } = deps
  const global = bucketFor('global', limits.global)

  /** Group and channel ids are negative; people's are positive. */
  const chatBucket = (chatId: string): SendBucket =>
    bucketFor(`chat:${chatId}`, chatId.startsWith('-') ? limits.group : limits.private)

  async function slot(buckets: SendBucket[]): Promise<void> {
    const started = Date.now()
    for (;;) {
      const waitMs = await deps.repo.takeSend(buckets)
      if (waitMs === 0) return
      if (Date.now() - started + waitMs > MAX_WAIT_MS)
        throw new Error(`no Telegram send slot within ${MAX_WAIT_MS / 1000} s; the job retries later`)
      await sleep(waitMs)
    }
  }

  function entitiesOf(message: BotMessage): MessageEntity[] | undefined {
    return message.boldLength ? [{ type: 'bold', offset: 0, length: message.boldLength }] : undefined
  }

  return {
    /**
     * One message, once its slots are free: 'sent', or 'unreachable' when the person cannot be written
     * to (never pressed Start, blocked the bot): that is final, not a failure to retry. Anything else
     * Telegram refuses throws, and the job is retried with backoff.
     */
    async send(message: OutgoingMessage): Promise<'sent' | 'unreachable'> {
      const buckets = [global, chatBucket(message.chatId)]
      for (let attempt = 0; ; attempt++) {
        await slot(buckets)
        try {
          await deps.telegram.api.sendMessage(message.chatId, message.text, {
            entities: entitiesOf(message),
            link_preview_options: { is_disabled: true },
            ...(message.buttons && message.buttons.length > 0
              ? { reply_markup: { inline_keyboard: message.buttons.map((button) => [button]) } }
              : {}),
          })
          return 'sent'
        } catch (error) {
          const retryAfter = retryAfterOf(error)
          if (retryAfter !== undefined && attempt < MAX_RETRY_AFTERS) {
            deps.log.warn({ chat: message.chatId, retryAfter }, 'Telegram asked the bot to slow down')
            await deps.repo.holdBucket(chatBucket(message.chatId), retryAfter)
            continue
          }
          if (isUnreachableUser(error)) return 'unreachable'
          deps.log.warn({ chat: message.chatId, ...telegramFailure(error) }, 'a Telegram message failed')
          throw error
        }
      }
    },
  }
}
export type TelegramSender = ReturnType<typeof createTelegramSender>
