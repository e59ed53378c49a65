import { spawn } from 'node:child_process'
import { randomBytes } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { createInterface } from 'node:readline'
import { startEmulator } from '@edgeclub/emulator'
import { paths } from '@edgeclub/shared'
import { loadConfig } from '../apps/api/src/config'
import { DEMO_PROMO, DEMO_TRIAL, seedDemoBilling } from './demo-billing'
import { seedDemoPlaces } from './demo-places'
import { DEMO_ANALYST, seedDemoSignals } from './demo-signals'
import { buildWebIfNeeded } from './web-build'

/**
 * `npm run demo`: the real server wired to the local emulator (Stripe, Stripe.js, Discord, Telegram,
 * BTCPay, the price feed and an SMTP inbox), so every flow works offline. Emulator values only: no secrets.
 * The server's log (a JSON line per request) goes to data/demo.log and only its warnings and errors
 * to the console, so the guide printed at the start stays readable; the guide is also written to
 * data/demo-guide.txt.
 */

const root = path.resolve(import.meta.dirname, '..')
const logFile = path.join(root, 'data', 'demo.log')
const guideFile = path.join(root, 'data', 'demo-guide.txt')

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
  // A VIP role for the VIP plans, and a bot set up as the README asks (Manage Server: invites only a
  // connected account can accept).
  discord: {
    extraRoles: [{ name: 'VIP', color: 0xf1c40f }],
    botPermissions: [
      'MANAGE_ROLES',
      'KICK_MEMBERS',
      'BAN_MEMBERS',
      'CREATE_INSTANT_INVITE',
      'SEND_MESSAGES',
      'MANAGE_GUILD',
    ],
  },
  // Invite links a person in the demo can open (the emulator's own page, not https://t.me).
  telegram: { linkBase: 'emulator' },
})
const discord = emulator.discord.config
const telegram = emulator.telegram
// The secret Telegram sends back with every update; the server gives it to setWebhook at start.
const telegramSecret = process.env.TELEGRAM_WEBHOOK_SECRET ?? randomBytes(24).toString('base64url')
const telegramWebhook = `${(process.env.APP_ORIGIN ?? site).replace(/\/$/, '')}/discord/api/webhooks/telegram`
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
  TELEGRAM_BOT_TOKEN: telegram.config.botToken,
  TELEGRAM_WEBHOOK_SECRET: telegramSecret,
  TELEGRAM_API_BASE: telegram.apiRoot,
  TELEGRAM_LINK_BASE: telegram.pageLinkBase,
  BTCPAY_URL: `${emulator.url}/btcpay`,
  BTCPAY_API_KEY: emulator.btcpay.apiKey,
  BTCPAY_STORE_ID: emulator.btcpay.storeId,
  BTCPAY_WEBHOOK_SECRET: emulator.btcpay.webhookSecret,
  // Browsers subscribe to notifications at the emulator's push service (theirs is out of reach offline).
  PUSH_STANDIN_URL: emulator.url,
})
emulator.stripe.setWebhookUrl(`${site}/discord/api/webhooks/stripe`)
emulator.btcpay.setWebhookUrl(`${site}/discord/api/webhooks/btcpay`)

// A short signal history, published and settled as an analyst would, so the record is alive at once.
const seeded = await seedDemoSignals({ ...loadConfig(process.env), logLevel: 'warn' })
// Telegram chats and a VIP role as places, and which plans open them (first run only).
await seedDemoPlaces(
  { ...loadConfig(process.env), logLevel: 'warn' },
  { chats: telegram.config.chats, vipRoleId: '100000000000000100' },
)
// A free trial on Monthly and the WELCOME20 code (first run only), to try both offline.
const billing = await seedDemoBilling({ ...loadConfig(process.env), logLevel: 'warn' })

fs.mkdirSync(path.dirname(logFile), { recursive: true })
const log = fs.createWriteStream(logFile, { flags: 'a' })
const server = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/server.ts'], {
  cwd: root,
  env: process.env,
  stdio: ['ignore', 'pipe', 'inherit'],
})
const LEVELS: Record<number, string> = { 40: 'warning', 50: 'error', 60: 'fatal' }
createInterface({ input: server.stdout! }).on('line', (line) => {
  log.write(`${line}\n`)
  let entry: { level?: number; msg?: string } | undefined
  try {
    entry = JSON.parse(line) as { level?: number; msg?: string }
  } catch {
    console.log(line)
    return
  }
  if ((entry.level ?? 0) >= 40) console.log(`[${LEVELS[entry.level ?? 50] ?? 'error'}] ${entry.msg ?? line}`)
})

let stopping = false
const stop = () => {
  if (stopping) return
  stopping = true
  server.kill('SIGTERM')
}
process.on('SIGINT', stop)
process.on('SIGTERM', stop)
server.on('exit', (code) => {
  log.end()
  void emulator.close().finally(() => process.exit(stopping ? 0 : (code ?? 1)))
})

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
// The server sets its webhook at start (a job); the guide says where it points once it is there.
for (let attempt = 0; attempt < 40 && telegram.webhookInfo().url !== telegramWebhook; attempt++)
  await new Promise((resolve) => setTimeout(resolve, 250))
const webhookSet = telegram.webhookInfo().url === telegramWebhook
// The key that signs the record's heads (decision 020): members and rivals pin it to check the record.
const recordKey = await fetch(`${site}/discord/api/record/key`)
  .then((response) => response.json() as Promise<{ data?: { publicKey?: string } }>)
  .then(
    (body) => body.data?.publicKey ?? 'unavailable',
    () => 'unavailable',
  )

const guide = `
EdgeClub demo (offline; every outside service is the local emulator)

  Site ............... ${site}
  Admin sign-in ...... ${admin.email} / ${admin.password}   (then open ${site}/admin)
  Analyst sign-in .... ${DEMO_ANALYST.email} / ${DEMO_ANALYST.password}   (publishes and settles signals at ${site}/admin)
  Signal record ...... ${site}/record${seeded ? '   (three weeks of demo history were just seeded)' : ''}
                       check it: npm run verify-record -- ${site}
  Record signing key . Ed25519 ${recordKey}   (signs every head at ${site}/discord/api/record/head)
  Emails sent ........ ${emulator.url}/mail
  Test cards ......... 4242 4242 4242 4242 pays · 4000 0000 0000 0002 is declined · 4000 0025 0000 3155 asks for 3-D Secure
                       (any future expiry, any CVC and ZIP)
  Free trial ......... ${billing.trialPlan ? `${billing.trialPlan} starts with a ${DEMO_TRIAL.days}-day free trial: the card is saved, nothing charged until it ends` : 'no plan has a trial (set one in Admin > Plans > Edit > Free trial)'}
                       (one trial per member and per card; move time with the Stripe clock below to see the charge)
  Promo code ......... ${DEMO_PROMO.code}: ${DEMO_PROMO.percentOff}% off the first payment, for anyone; type it on the payment
                       screen or open ${site}/pricing?code=${DEMO_PROMO.code}  (make more in Admin > Promo codes)

  Emulator ........... ${emulator.url}
  Stripe API base .... ${emulator.url}            secret key ${emulator.stripe.secretKey}
  Stripe webhooks .... signing secret ${emulator.stripe.webhookSecret} -> ${site}/discord/api/webhooks/stripe
  Stripe clock ....... POST ${emulator.url}/_control/stripe/clock/advance {"seconds": 2678400} renews subscriptions
  Discord ............ ${emulator.url}/discord/api (bot token ${discord.botToken}); invites open a join page
  Connect Discord .... Dashboard > Community > Connect Discord: the emulator's consent page is signed in
                       as jordan (switch or create a Discord user there); Authorize puts a paying member in
                       the server with the roles their plan opens. State: ${emulator.url}/_control/discord/state
  Telegram bot ....... @${telegram.config.botUsername} (token ${telegram.config.botToken})
  Telegram page ...... ${emulator.url}/telegram/   (press Start, join chats, read them as a person would)
  Telegram webhook ... ${webhookSet ? telegramWebhook : `not set yet (the server sets ${telegramWebhook} at start)`}
                       secret ${telegramSecret} (X-Telegram-Bot-Api-Secret-Token)
  Connect Telegram ... Dashboard > Community > Connect Telegram > Open the EdgeClub bot > Start; the bot sends
                       your chat links (Weekly/Monthly: EdgeClub Signals and NFL Picks; Yearly/Lifetime: all three)
  BTCPay ............. ${emulator.url}/btcpay (store ${emulator.btcpay.storeId}, key ${emulator.btcpay.apiKey})
  Notifications ...... Dashboard > Settings > Notifications > Turn on notifications (as a paying member);
                       publish a pick as the admin or analyst and it arrives at ${emulator.url}/push
  Price feed ......... POST ${emulator.url}/_control/prices/fail makes it fail

  Server log ......... ${path.relative(root, logFile)} (one JSON line per request; warnings and errors also show here)
  This guide ......... ${path.relative(root, guideFile)}
`
fs.writeFileSync(guideFile, guide)
console.log(guide)
