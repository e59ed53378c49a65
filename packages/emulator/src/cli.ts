#!/usr/bin/env -S npx tsx
import { startEmulator } from './server'

const port = Number(process.env.EMULATOR_PORT ?? 4010)
// People open the links the bot hands out in this emulator's Telegram page.
const emulator = await startEmulator({ port, telegram: { linkBase: 'emulator' } })
console.log(`EdgeClub emulator listening at ${emulator.url}`)
console.log(`  PRICE_FEED_URL=${emulator.priceFeedUrl}`)
console.log(`  DISCORD_API_BASE=${emulator.url}/discord/api`)
console.log(`  DISCORD_BOT_TOKEN=${emulator.discord.config.botToken}`)
console.log(`  DISCORD_GUILD_ID=${emulator.discord.config.guildId}`)
console.log(`  DISCORD_INVITE_CHANNEL_ID=${emulator.discord.config.inviteChannelId}`)
console.log(`  DISCORD_ANNOUNCE_CHANNEL_ID=${emulator.discord.config.announceChannelId}`)
console.log(`  DISCORD_SIGNALS_CHANNEL_ID=${emulator.discord.config.signalsChannelId}`)
console.log(`  DISCORD_MEMBER_ROLE_ID=${emulator.discord.config.memberRoleId}`)
console.log(`  DISCORD_CLIENT_ID=${emulator.discord.config.clientId}`)
console.log(`  DISCORD_CLIENT_SECRET=${emulator.discord.config.clientSecret}`)
const redirectUris = emulator.discord.config.redirectUris
console.log(
  `  Discord OAuth2: ${emulator.url}/discord/oauth2/authorize, redirect URIs ${redirectUris === 'loopback' ? 'http://127.0.0.1:<port>/... or http://localhost:<port>/...' : redirectUris.join(', ')}`,
)
console.log(`  TELEGRAM_API_BASE=${emulator.telegram.apiRoot}`)
console.log(`  TELEGRAM_BOT_TOKEN=${emulator.telegram.config.botToken}`)
console.log(`  TELEGRAM_LINK_BASE=${emulator.telegram.pageLinkBase}`)
console.log(
  `  Telegram bot @${emulator.telegram.config.botUsername}; chats ${emulator.telegram.config.chats.map((chat) => `${chat.title} (${chat.id})`).join(', ')}`,
)
console.log(`  Telegram page (press Start, join chats): ${emulator.url}/telegram/`)
console.log(`  BTCPAY_URL=${emulator.url}/btcpay`)
console.log(`  BTCPAY_API_KEY=${emulator.btcpay.apiKey}`)
console.log(`  BTCPAY_STORE_ID=${emulator.btcpay.storeId}`)
console.log(`  BTCPAY_WEBHOOK_SECRET=${emulator.btcpay.webhookSecret}`)
console.log(
  `  BTCPay webhook URL: ${emulator.btcpay.webhookUrl ?? `none yet, POST {"url": ...} to ${emulator.url}/_control/btcpay/webhook-url`}`,
)
console.log(`  STRIPE_API_BASE=${emulator.url}`)
console.log(`  STRIPE_JS_URL=${emulator.url}/stripe-js/v3`)
console.log(`  STRIPE_SECRET_KEY=${emulator.stripe.secretKey}`)
console.log(`  STRIPE_PUBLISHABLE_KEY=${emulator.stripe.publishableKey}`)
console.log(`  STRIPE_WEBHOOK_SECRET=${emulator.stripe.webhookSecret}`)
console.log(
  `  Stripe webhook URL: ${emulator.stripe.webhookUrl ?? `none yet, POST {"url": ...} to ${emulator.url}/_control/stripe/webhook-url`}`,
)
const stop = () => void emulator.close().then(() => process.exit(0))
process.on('SIGTERM', stop)
process.on('SIGINT', stop)
