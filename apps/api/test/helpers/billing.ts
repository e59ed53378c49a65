import { type Emulator, startEmulator } from '@edgeclub/emulator'
import Stripe from 'stripe'
import { as, register } from './members'
import { type SmtpSink, startSmtpSink } from './smtp-sink'
import { createTestApp, type TestApp, type TestAppOptions, testClock } from './test-app'

/**
 * A listening app wired to the Stripe emulator: webhooks arrive over real HTTP, signed as Stripe
 * signs them. `stripe` is the real SDK with the secret key, standing in for Stripe.js in tests.
 * With `crypto`, the emulator's BTCPay is wired too (invoices through Greenfield, signed webhooks).
 */
export interface BillingHarness {
  t: TestApp
  emulator: Emulator
  stripe: Stripe
  smtp: SmtpSink
  clock: ReturnType<typeof testClock>
  /** Where Stripe's webhooks arrive. */
  webhookUrl: string
  /** Where BTCPay's webhooks arrive (wired only with `crypto`). */
  btcpayWebhookUrl: string
  close(): Promise<void>
}

export interface BillingHarnessOptions extends TestAppOptions {
  crypto?: boolean
  /** Wire the emulator's Discord too (member role sync). */
  discord?: boolean
}

export async function createBillingHarness({
  crypto = false,
  discord = false,
  ...options
}: BillingHarnessOptions = {}): Promise<BillingHarness> {
  const emulator = await startEmulator({
    stripe: { webhookRetryDelayMs: 100, webhookMaxAttempts: 3 },
    btcpay: { retryDelaysMs: [100, 200] },
  })
  const smtp = await startSmtpSink()
  const clock = testClock()
  const t = await createTestApp({
    clock,
    ...options,
    env: {
      STRIPE_SECRET_KEY: emulator.stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: emulator.stripe.publishableKey,
      STRIPE_WEBHOOK_SECRET: emulator.stripe.webhookSecret,
      STRIPE_API_BASE: emulator.url,
      SMTP_URL: smtp.url,
      ...(discord
        ? {
            DISCORD_BOT_TOKEN: emulator.discord.config.botToken,
            DISCORD_GUILD_ID: emulator.discord.config.guildId,
            DISCORD_INVITE_CHANNEL_ID: emulator.discord.config.inviteChannelId,
            DISCORD_MEMBER_ROLE_ID: emulator.discord.config.memberRoleId,
            DISCORD_ANNOUNCE_CHANNEL_ID: emulator.discord.config.announceChannelId,
            DISCORD_API_BASE: `${emulator.url}/discord/api`,
          }
        : {}),
      ...(crypto
        ? {
            BTCPAY_URL: `${emulator.url}/btcpay`,
            BTCPAY_API_KEY: emulator.btcpay.apiKey,
            BTCPAY_STORE_ID: emulator.btcpay.storeId,
            BTCPAY_WEBHOOK_SECRET: emulator.btcpay.webhookSecret,
          }
        : {}),
      ...options.env,
    },
  })
  const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
  const webhookUrl = `${address}/discord/api/webhooks/stripe`
  emulator.stripe.setWebhookUrl(webhookUrl)
  const btcpayWebhookUrl = `${address}/discord/api/webhooks/btcpay`
  if (crypto) emulator.btcpay.setWebhookUrl(btcpayWebhookUrl)
  const base = new URL(emulator.url)
  const stripe = new Stripe(emulator.stripe.secretKey, {
    host: base.hostname,
    port: Number(base.port),
    protocol: 'http',
    maxNetworkRetries: 0,
  })
  return {
    t,
    emulator,
    stripe,
    smtp,
    clock,
    webhookUrl,
    btcpayWebhookUrl,
    // The emulator first: its webhook deliveries stop before the app stops listening (a delivery caught
    // half-sent on a kept-alive connection would hold the app's close open).
    close: async () => {
      await emulator.close()
      await t.close()
      await smtp.close()
    },
  }
}

export async function plansBySlug(h: BillingHarness): Promise<Record<string, { id: string; price: number }>> {
  const { data } = (await h.t.app.inject({ method: 'GET', url: '/discord/api/subscriptions/plans' })).json()
  return Object.fromEntries(
    (data as { slug: string; id: string; price: number }[]).map((plan) => [plan.slug, plan]),
  )
}

export async function memberWithCheckout(h: BillingHarness, slug: string) {
  const member = await register(h.t.app)
  const plans = await plansBySlug(h)
  const response = await as(h.t.app, member.accessToken, {
    method: 'POST',
    url: '/discord/api/payments/create-intent',
    payload: { planId: plans[slug]!.id, currency: 'USD' },
  })
  if (response.statusCode !== 200) throw new Error(`create-intent failed: ${response.body}`)
  return {
    member,
    intent: response.json().data as {
      paymentIntentId: string
      clientSecret: string
      amount: number
      paymentId: string
    },
    plans,
  }
}

export async function statusOf(h: BillingHarness, token: string) {
  return (await as(h.t.app, token, { method: 'GET', url: '/discord/api/subscriptions/status' })).json()
    .data as {
    hasAccess: boolean
    activeSubscription: {
      _id: string
      status: string
      endDate: string | null
      cancelAtPeriodEnd: boolean
      planId: { name: string }
    } | null
  }
}

export async function counts(h: BillingHarness, userId: string) {
  const db = h.t.database.db
  const payments = await db
    .selectFrom('payments')
    .select(['status', 'kind'])
    .where('user_id', '=', userId)
    .execute()
  const subscriptions = await db
    .selectFrom('subscriptions')
    .select(['id', 'status'])
    .where('user_id', '=', userId)
    .execute()
  const periods = await db
    .selectFrom('subscription_periods')
    .innerJoin('subscriptions', 'subscriptions.id', 'subscription_periods.subscription_id')
    .select('subscription_periods.id')
    .where('subscriptions.user_id', '=', userId)
    .execute()
  return {
    completed: payments.filter((p) => p.status === 'completed').length,
    payments: payments.length,
    subscriptions: subscriptions.length,
    periods: periods.length,
  }
}

/** Waits until a condition holds (webhooks are asynchronous). */
export async function eventually<T>(
  check: () => Promise<T>,
  accept: (value: T) => boolean,
  timeoutMs = 10_000,
): Promise<T> {
  const deadline = Date.now() + timeoutMs
  let last = await check()
  while (!accept(last)) {
    if (Date.now() > deadline)
      throw new Error(`condition not met in time; last value: ${JSON.stringify(last)}`)
    await new Promise((resolve) => setTimeout(resolve, 100))
    last = await check()
  }
  return last
}
