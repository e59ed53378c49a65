import { startEmulator } from '@edgeclub/emulator'
import { paths } from '@edgeclub/shared'
import { loadConfig } from '../apps/api/src/config'
import { DEMO_ANALYST, seedDemoSignals } from './demo-signals'
import { buildWebIfNeeded } from './web-build'

/**
 * `npm run demo`: the real server wired to the local emulator (Stripe, Stripe.js, Discord, BTCPay,
 * the price feed and an SMTP inbox), so every flow works offline. Emulator values only: no secrets.
 */

const port = Number(process.env.PORT ?? 3000)
const emulatorPort = Number(process.env.EMULATOR_PORT ?? 4010)
const site = `http://127.0.0.1:${port}`
const admin = {
  email: process.env.ADMIN_EMAIL ?? 'admin@edgeclub.demo',
  password: process.env.ADMIN_PASSWORD ?? 'Demo$Admin2026',
}

buildWebIfNeeded()
const emulator = await startEmulator({
  port: emulatorPort,
  smtpPort: Number(process.env.EMULATOR_SMTP_PORT ?? 2525),
})
const discord = emulator.discord.config
const appOrigin = (process.env.APP_ORIGIN ?? site).replace(/\/$/, '')
// Connect Discord: the emulator's OAuth2 application knows exactly one redirect URI, as a real one would.
const discordRedirectUri = `${appOrigin}${paths.discordCallback}`
emulator.discord.setRedirectUris([discordRedirectUri])

Object.assign(process.env, {
  PORT: String(port),
  APP_ORIGIN: appOrigin,
  DATA_DIR: process.env.DATA_DIR ?? './data/demo',
  ADMIN_EMAIL: admin.email,
  ADMIN_PASSWORD: admin.password,
  PRICE_FEED_URL: emulator.priceFeedUrl,
  SMTP_URL: emulator.mail.smtpUrl,
  STRIPE_SECRET_KEY: emulator.stripe.secretKey,
  STRIPE_PUBLISHABLE_KEY: emulator.stripe.publishableKey,
  STRIPE_WEBHOOK_SECRET: emulator.stripe.webhookSecret,
  STRIPE_API_BASE: emulator.url,
  STRIPE_JS_URL: `${emulator.url}/stripe-js/v3`,
  DISCORD_BOT_TOKEN: discord.botToken,
  DISCORD_GUILD_ID: discord.guildId,
  DISCORD_INVITE_CHANNEL_ID: discord.inviteChannelId,
  DISCORD_MEMBER_ROLE_ID: discord.memberRoleId,
  DISCORD_ANNOUNCE_CHANNEL_ID: discord.announceChannelId,
  DISCORD_SIGNALS_CHANNEL_ID: discord.signalsChannelId,
  DISCORD_API_BASE: `${emulator.url}/discord/api`,
  DISCORD_INVITE_URL_BASE: `${emulator.url}/discord/invite`,
  DISCORD_CLIENT_ID: discord.clientId,
  DISCORD_CLIENT_SECRET: discord.clientSecret,
  DISCORD_OAUTH_REDIRECT_URI: discordRedirectUri,
  BTCPAY_URL: `${emulator.url}/btcpay`,
  BTCPAY_API_KEY: emulator.btcpay.apiKey,
  BTCPAY_STORE_ID: emulator.btcpay.storeId,
  BTCPAY_WEBHOOK_SECRET: emulator.btcpay.webhookSecret,
})
emulator.stripe.setWebhookUrl(`${site}/discord/api/webhooks/stripe`)
emulator.btcpay.setWebhookUrl(`${site}/discord/api/webhooks/btcpay`)

const stop = () => void emulator.close().finally(() => process.exit(0))
process.on('SIGINT', stop)
process.on('SIGTERM', stop)

// A short signal history, published and settled as an analyst would, so the record is alive at once.
const seeded = await seedDemoSignals(loadConfig(process.env))
await import('../apps/api/src/server')
// The server migrates and starts its jobs first; print the guide once it answers.
for (let attempt = 0; attempt < 120; attempt++) {
  if (
    await fetch(`${site}/readyz`).then(
      (response) => response.ok,
      () => false,
    )
  )
    break
  await new Promise((resolve) => setTimeout(resolve, 500))
}

console.log(`
EdgeClub demo (offline; every outside service is the local emulator)

  Site ............... ${site}
  Admin sign-in ...... ${admin.email} / ${admin.password}   (then open ${site}/admin)
  Analyst sign-in .... ${DEMO_ANALYST.email} / ${DEMO_ANALYST.password}   (publishes and settles signals at ${site}/admin)
  Signal record ...... ${site}/record${seeded ? '   (three weeks of demo history were just seeded)' : ''}
                       check it: npm run verify-record -- ${site}
  Emails sent ........ ${emulator.url}/mail
  Test cards ......... 4242 4242 4242 4242 pays · 4000 0000 0000 0002 is declined · 4000 0025 0000 3155 asks for 3-D Secure
                       (any future expiry, any CVC and ZIP)

  Emulator ........... ${emulator.url}
  Stripe API base .... ${emulator.url}            secret key ${emulator.stripe.secretKey}
  Stripe webhooks .... signing secret ${emulator.stripe.webhookSecret} -> ${site}/discord/api/webhooks/stripe
  Stripe clock ....... POST ${emulator.url}/_control/stripe/clock/advance {"seconds": 2678400} renews subscriptions
  Discord ............ ${emulator.url}/discord/api (bot token ${discord.botToken}); invites open a join page
  Connect Discord .... Dashboard > Discord Access > Connect Discord: the emulator's consent page is signed in
                       as jordan (switch or create a Discord user there); Authorize puts a paying member in
                       the server with the Member role. State: ${emulator.url}/_control/discord/state
  BTCPay ............. ${emulator.url}/btcpay (store ${emulator.btcpay.storeId}, key ${emulator.btcpay.apiKey})
  Price feed ......... POST ${emulator.url}/_control/prices/fail makes it fail
`)
