import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { Update } from '@grammyjs/types'
import { Bot, webhookCallback } from 'grammy'
import type { Emulator } from '../src/server'

/**
 * A stand-in for the app's Telegram webhook: a grammY bot in webhook mode behind grammY's own
 * webhookCallback (which checks X-Telegram-Bot-Api-Secret-Token), the way EdgeClub's bot runs. It
 * keeps every delivery as it arrived (headers and the raw Update) and can answer the next
 * deliveries with an error status instead of handling them.
 */

export interface ReceivedDelivery {
  update: Update
  /** The X-Telegram-Bot-Api-Secret-Token header, if any. */
  secret: string | undefined
  contentType: string | undefined
  /** What the receiver answered. */
  status: number
}

export interface TelegramBotApp {
  url: string
  bot: Bot
  received: ReceivedDelivery[]
  /** Answer the next deliveries with these statuses (unhandled), in order; then let grammY handle them. */
  respondWith(...statuses: number[]): void
  waitFor(predicate: (received: ReceivedDelivery[]) => boolean, timeoutMs?: number): Promise<void>
  close(): Promise<void>
}

export async function startTelegramBotApp(
  emulator: Emulator,
  options: { secretToken?: string; setup?: (bot: Bot) => void; webhookReply?: boolean } = {},
): Promise<TelegramBotApp> {
  const bot = new Bot(emulator.telegram.config.botToken, {
    client: {
      apiRoot: emulator.telegram.apiRoot,
      ...(options.webhookReply ? { canUseWebhookReply: () => true } : {}),
    },
  })
  options.setup?.(bot)
  const handle = webhookCallback(bot, 'std/http', { secretToken: options.secretToken })
  const received: ReceivedDelivery[] = []
  let script: number[] = []

  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const body = Buffer.concat(chunks).toString('utf8')
    const secret = req.headers['x-telegram-bot-api-secret-token']
    const entry: ReceivedDelivery = {
      update: JSON.parse(body) as Update,
      secret: Array.isArray(secret) ? secret[0] : secret,
      contentType: req.headers['content-type'],
      status: 0,
    }
    received.push(entry)
    const scripted = script.shift()
    if (scripted !== undefined) {
      entry.status = scripted
      res.writeHead(scripted, { 'content-type': 'text/plain' }).end('scripted failure')
      return
    }
    try {
      const response = (await handle(
        new Request(`http://127.0.0.1${req.url ?? '/'}`, {
          method: 'POST',
          headers: Object.entries(req.headers).flatMap(([key, value]) =>
            value === undefined
              ? []
              : [[key, Array.isArray(value) ? value.join(', ') : value] as [string, string]],
          ),
          body,
        }),
      )) as Response
      entry.status = response.status
      const headers = Object.fromEntries(response.headers)
      res.writeHead(response.status, headers).end(await response.text())
    } catch (error) {
      entry.status = 500
      res.writeHead(500).end(error instanceof Error ? error.message : String(error))
    }
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}/telegram/webhook`,
    bot,
    received,
    respondWith: (...statuses) => {
      script = statuses
    },
    waitFor: async (predicate, timeoutMs = 5_000) => {
      const deadline = Date.now() + timeoutMs
      while (!predicate(received)) {
        if (Date.now() > deadline)
          throw new Error(
            `telegram bot app: timed out; got ${received.map((entry) => Object.keys(entry.update).join('+')).join(', ')}`,
          )
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}

/** The update's kind: `message`, `chat_join_request`, `chat_member` ... */
export const updateType = (update: Update) => Object.keys(update).find((key) => key !== 'update_id')
