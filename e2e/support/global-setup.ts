import { randomBytes } from 'node:crypto'
import { startEmulator } from '@edgeclub/emulator'
import { type RunningServer, startServer } from './server'

/**
 * One emulator and one server for the whole run, against the built web app. Workers find them
 * through the environment; tests steer the emulator through its HTTP control routes.
 */
/** The admin the server ensures at start (ADMIN_EMAIL / ADMIN_PASSWORD). */
const ADMIN = { email: 'admin@edgeclub.test', password: 'Admin$Console2026' }

export default async function globalSetup() {
  // Telegram invite links point at the emulator's page, so the browser can open them.
  const emulator = await startEmulator({ telegram: { linkBase: 'emulator' } })
  const telegramSecret = randomBytes(24).toString('base64url')
  let server: RunningServer
  try {
    server = await startServer({
      PRICE_FEED_URL: emulator.priceFeedUrl,
      PRICE_CACHE_SECONDS: '1',
      SMTP_URL: emulator.mail.smtpUrl,
      // The test runner stands where a load balancer would (one proxy, on the loopback): the address
      // each test writes in X-Forwarded-For is the client the server sees, so each test browses from
      // its own address.
      TRUST_PROXY: '1',
      STRIPE_SECRET_KEY: emulator.stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: emulator.stripe.publishableKey,
      STRIPE_WEBHOOK_SECRET: emulator.stripe.webhookSecret,
      STRIPE_API_BASE: emulator.url,
      // Each member's Stripe customer on a test clock of its own: a test moves one member's time (a
      // renewal, a failed renewal) without touching anyone else's.
      STRIPE_TEST_CLOCKS: 'true',
      DISCORD_BOT_TOKEN: emulator.discord.config.botToken,
      DISCORD_GUILD_ID: emulator.discord.config.guildId,
      DISCORD_INVITE_CHANNEL_ID: emulator.discord.config.inviteChannelId,
      DISCORD_MEMBER_ROLE_ID: emulator.discord.config.memberRoleId,
      DISCORD_ANNOUNCE_CHANNEL_ID: emulator.discord.config.announceChannelId,
      DISCORD_SIGNALS_CHANNEL_ID: emulator.discord.config.signalsChannelId,
      DISCORD_API_BASE: `${emulator.url}/discord/api`,
      // Connect Discord: the emulator's OAuth2 application (the redirect URI follows APP_ORIGIN).
      DISCORD_CLIENT_ID: emulator.discord.config.clientId,
      DISCORD_CLIENT_SECRET: emulator.discord.config.clientSecret,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      // Telegram: the bot on the emulator; the server sets its webhook at start (APP_ORIGIN is its URL).
      TELEGRAM_BOT_TOKEN: emulator.telegram.config.botToken,
      TELEGRAM_WEBHOOK_SECRET: telegramSecret,
      TELEGRAM_API_BASE: emulator.telegram.apiRoot,
      TELEGRAM_LINK_BASE: emulator.telegram.pageLinkBase,
      BTCPAY_URL: `${emulator.url}/btcpay`,
      BTCPAY_API_KEY: emulator.btcpay.apiKey,
      BTCPAY_STORE_ID: emulator.btcpay.storeId,
      BTCPAY_WEBHOOK_SECRET: emulator.btcpay.webhookSecret,
      // Notifications: the dashboard subscribes at the emulator's push service (Chromium's own is out
      // of reach offline); tests hand what arrives there to the service worker through DevTools.
      PUSH_STANDIN_URL: emulator.url,
    })
    emulator.btcpay.setWebhookUrl(`${server.url}/discord/api/webhooks/btcpay`)
    emulator.stripe.setWebhookUrl(`${server.url}/discord/api/webhooks/stripe`)
  } catch (error) {
    await emulator.close()
    throw error
  }
  process.env.E2E_BASE_URL = server.url
  process.env.E2E_ADMIN_EMAIL = ADMIN.email
  process.env.E2E_ADMIN_PASSWORD = ADMIN.password
  process.env.E2E_EMULATOR_URL = emulator.url
  process.env.E2E_STRIPE_SECRET_KEY = emulator.stripe.secretKey
  process.env.E2E_PRICE_FEED_URL = emulator.priceFeedUrl
  return async () => {
    await server.stop()
    await emulator.close()
  }
}
