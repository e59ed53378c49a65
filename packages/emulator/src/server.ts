import http from 'node:http'
import type { AddressInfo } from 'node:net'
import { type BtcpayControl, type BtcpayOptions, mountBtcpay } from './btcpay/btcpay'
import { type DiscordControl, type DiscordEmulatorOptions, mountDiscord } from './discord'
import { mountDiscordInvitePage } from './discord/invite-page'
import { Router, readBody, sendJson } from './http'
import { type MailSinkControl, mountMailSink } from './mail/mail-sink'
import { mountPriceFeed, type PriceFeedControl } from './prices/price-feed'
import { mountPushService, type PushServiceControl } from './push/push-service'
import { handleStripeCors, mountStripe, type StripeControl, type StripeOptions } from './stripe'
import { mountTelegram, type TelegramControl, type TelegramEmulatorOptions } from './telegram'

/**
 * The local stand-in for the services EdgeClub cannot reach from here (price feed, Stripe, Discord,
 * Telegram, BTCPay). It speaks their HTTP APIs at the network boundary so the app's integration code is the
 * production code pointed at another base URL. Dev and test only.
 */

export interface EmulatorOptions {
  port?: number
  host?: string
  /** Seeded guild, ids, bot token and rate-limit window of the Discord API; see src/discord/README.md. */
  discord?: DiscordEmulatorOptions
  /** The Telegram bot, people, chats, flood limits and webhook timing of the Bot API; see src/telegram/README.md. */
  telegram?: TelegramEmulatorOptions
  /** BTCPay Server (Greenfield) settings; see src/btcpay/README.md. */
  btcpay?: BtcpayOptions
  /** Stripe keys, webhook endpoint and secret, retry timing; see src/stripe/README.md. */
  stripe?: StripeOptions
  /** The SMTP port of the mail sink (0: any free port). */
  smtpPort?: number
}

export interface Emulator {
  url: string
  prices: PriceFeedControl
  /** The price feed URL to give the app as PRICE_FEED_URL. */
  priceFeedUrl: string
  /** Discord REST API v10: give the app DISCORD_API_BASE=`${url}/discord/api` and the ids/token in `config`. */
  discord: DiscordControl
  /**
   * Telegram Bot API: give the app TELEGRAM_API_BASE=telegram.apiRoot (`${url}/telegram`, grammY's
   * client.apiRoot), TELEGRAM_BOT_TOKEN=telegram.config.botToken and, for links people can open here,
   * TELEGRAM_LINK_BASE=telegram.pageLinkBase. People's page: `${url}/telegram/`.
   */
  telegram: TelegramControl
  /** BTCPay Server: give the app BTCPAY_URL=`${url}/btcpay` and the key, store id and secret from here. */
  btcpay: BtcpayControl
  /** Stripe API at `${url}/v1` (STRIPE_API_BASE=url), Stripe.js at `${url}/stripe-js/v3`; keys and controls here. */
  stripe: StripeControl
  /** An SMTP sink: give the app SMTP_URL=mail.smtpUrl; read the emails at `${url}/mail`. */
  mail: MailSinkControl
  /**
   * A Web Push service: give the app PUSH_SERVICE_ORIGINS=url; subscriptions from push.subscribe() (or
   * POST /_control/push/subscriptions); the notifications that arrived at `${url}/push`.
   */
  push: PushServiceControl
  close(): Promise<void>
}

export async function startEmulator(options: EmulatorOptions = {}): Promise<Emulator> {
  const router = new Router()
  const prices = mountPriceFeed(router)
  const discord = mountDiscord(router, options.discord)
  mountDiscordInvitePage(router, discord)
  const telegram = mountTelegram(router, options.telegram)
  const btcpay = mountBtcpay(router, options.btcpay)
  const stripe = mountStripe(router, options.stripe)
  const mail = await mountMailSink(router, { smtpPort: options.smtpPort, host: options.host })
  let origin = ''
  const push = mountPushService(router, () => origin)
  router.on('GET', '/_control/health', ({ res }) => sendJson(res, 200, { ok: true }))

  const server = http.createServer(async (req, res) => {
    const url = new URL(req.url ?? '/', 'http://emulator.local')
    if (handleStripeCors(req, res, url.pathname)) return
    const found = router.match(req.method ?? 'GET', url.pathname)
    if (!found) return sendJson(res, 404, { error: `emulator: no route for ${req.method} ${url.pathname}` })
    try {
      const rawBody = await readBody(req)
      await found.handler({ req, res, url, params: found.params, rawBody })
    } catch (error) {
      sendJson(res, 500, { error: `emulator: ${error instanceof Error ? error.message : String(error)}` })
    }
  })
  await new Promise<void>((resolve) => server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo
  const url = `http://${options.host ?? '127.0.0.1'}:${port}`
  telegram.setOrigin(url)
  origin = url

  return {
    url,
    prices,
    discord,
    telegram,
    btcpay,
    stripe,
    mail,
    push,
    priceFeedUrl: `${url}/coingecko/api/v3/coins/markets?vs_currency=usd&ids=bitcoin,ethereum,solana&price_change_percentage=24h`,
    close: () =>
      new Promise<void>((resolve, reject) => {
        btcpay.dispose()
        stripe.close()
        telegram.close()
        void mail.close()
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
