import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { type Emulator, startEmulator } from '@edgeclub/emulator'
import pg from 'pg'
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { newMember } from './helpers/members'
import { freePort, startServerProcess } from './helpers/server-process'
import { createScratchPostgres } from './helpers/test-app'

/**
 * The process is killed (SIGKILL, no goodbye) at points around a payment's fulfilment, then started
 * again while Stripe keeps redelivering: every time, the member ends with exactly one completed
 * payment, one access period, one receipt and one Discord role grant. What follows a payment is in
 * the outbox with the payment, so no kill point can lose it or make it happen twice.
 */
const onPostgres = process.env.TEST_DB === 'postgres'

describe.skipIf(!onPostgres)('a crash around a payment', () => {
  let emulator: Emulator
  let scratch: { url: string; drop(): Promise<void> }
  let dataDir: string
  let db: pg.Client
  let stripe: Stripe
  let env: Record<string, string>
  let port: number

  beforeAll(async () => {
    emulator = await startEmulator({ stripe: { webhookRetryDelayMs: 250, webhookMaxAttempts: 12 } })
    scratch = await createScratchPostgres()
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-crash-'))
    db = new pg.Client({ connectionString: scratch.url })
    await db.connect()
    const base = new URL(emulator.url)
    stripe = new Stripe(emulator.stripe.secretKey, {
      host: base.hostname,
      port: Number(base.port),
      protocol: 'http',
      maxNetworkRetries: 0,
    })
    const discord = emulator.discord.config
    port = await freePort()
    env = {
      DATABASE_URL: scratch.url,
      DATA_DIR: dataDir,
      JOBS_POLL_SECONDS: '0.5',
      STRIPE_SECRET_KEY: emulator.stripe.secretKey,
      STRIPE_PUBLISHABLE_KEY: emulator.stripe.publishableKey,
      STRIPE_WEBHOOK_SECRET: emulator.stripe.webhookSecret,
      STRIPE_API_BASE: emulator.url,
      SMTP_URL: emulator.mail.smtpUrl,
      DISCORD_BOT_TOKEN: discord.botToken,
      DISCORD_GUILD_ID: discord.guildId,
      DISCORD_INVITE_CHANNEL_ID: discord.inviteChannelId,
      DISCORD_MEMBER_ROLE_ID: discord.memberRoleId,
      DISCORD_ANNOUNCE_CHANNEL_ID: discord.announceChannelId,
      DISCORD_API_BASE: `${emulator.url}/discord/api`,
    }
    emulator.stripe.setWebhookUrl(`http://127.0.0.1:${port}/discord/api/webhooks/stripe`)
  })
  afterAll(async () => {
    await db?.end()
    await emulator?.close()
    await scratch?.drop()
    await fs.rm(dataDir, { recursive: true, force: true })
  })

  async function api(origin: string, url: string, init: { token?: string; body?: unknown } = {}) {
    const response = await fetch(`${origin}/discord/api${url}`, {
      method: init.body === undefined ? 'GET' : 'POST',
      headers: {
        'content-type': 'application/json',
        ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      },
      body: init.body === undefined ? undefined : JSON.stringify(init.body),
    })
    return { status: response.status, body: (await response.json()) as { data: unknown } }
  }

  async function ledgerOf(userId: string) {
    const { rows } = await db.query<{ completed: number; periods: number }>(
      `select
         (select count(*)::int from payments where user_id = $1 and status = 'completed') as completed,
         (select count(*)::int from subscription_periods sp join subscriptions s on s.id = sp.subscription_id
           where s.user_id = $1) as periods`,
      [userId],
    )
    return rows[0]!
  }

  const receiptsTo = (email: string) =>
    emulator.mail.messages().filter((mail) => mail.to.includes(email) && /receipt/i.test(mail.subject))

  const roleGrantsOf = (discordUserId: string) =>
    emulator.discord
      .state()
      .log.filter(
        (entry) =>
          entry.method === 'PUT' &&
          entry.route === 'PUT /guilds/:guildId/members/:userId/roles/:roleId' &&
          entry.path.includes(`/members/${discordUserId}/`) &&
          entry.status < 300,
      ).length

  /** Where the kill lands, measured from the moment the member's card is charged. */
  const killPoints: { name: string; waitBeforeKill: (userId: string) => Promise<void> }[] = [
    { name: 'as the charge happens', waitBeforeKill: async () => {} },
    {
      name: 'right after the fulfilment commits',
      waitBeforeKill: (userId) =>
        eventually(
          () => ledgerOf(userId),
          (ledger) => ledger.completed === 1,
          20_000,
        ).then(() => undefined),
    },
    {
      name: 'while the follow-ups run',
      waitBeforeKill: () => new Promise((resolve) => setTimeout(resolve, 700)),
    },
  ]

  it.each(killPoints)(
    'killed $name: one payment, one period, one receipt, one role grant',
    async ({ waitBeforeKill }) => {
      let server = await startServerProcess(env, { port })
      const registration = newMember()
      const signedUp = await api(server.origin, '/auth/register', { body: registration })
      expect(signedUp.status).toBe(201)
      const { user, tokens } = signedUp.body.data as unknown as {
        user: { id: string; email: string }
        tokens: { accessToken: string }
      }
      const discordUser = emulator.discord.addMember({ username: registration.discordUsername })
      const plans = (await api(server.origin, '/subscriptions/plans')).body.data as unknown as {
        id: string
        slug: string
      }[]
      const monthly = plans.find((plan) => plan.slug === 'monthly')!
      const intent = await api(server.origin, '/payments/create-intent', {
        token: tokens.accessToken,
        body: { planId: monthly.id, currency: 'USD' },
      })
      expect(intent.status).toBe(200)

      await stripe.paymentIntents.confirm((intent.body.data as { paymentIntentId: string }).paymentIntentId, {
        payment_method: 'pm_card_visa',
      })
      await waitBeforeKill(user.id)
      await server.kill()

      // Started again on the same address: Stripe's redeliveries (and the outbox) finish the job.
      server = await startServerProcess(env, { port })
      try {
        await emulator.stripe.flushWebhooks()
        await eventually(
          async () => ({ ledger: await ledgerOf(user.id), receipts: receiptsTo(user.email).length }),
          (state) =>
            state.ledger.completed === 1 && state.receipts >= 1 && roleGrantsOf(discordUser.user.id) >= 1,
          // A follow-up the killed process had started is tried again once its time is up (a minute,
          // found expired within 20 s, then its retry delay: a flat minute for a receipt): up to 140 s
          // and the restart, so 150 s left a run that caught the receipt mid-send a second's margin.
          200_000,
        )
        // Anything that would repeat has had time to.
        await emulator.stripe.flushWebhooks()
        await new Promise((resolve) => setTimeout(resolve, 2_000))
        expect(await ledgerOf(user.id)).toEqual({ completed: 1, periods: 1 })
        expect(receiptsTo(user.email)).toHaveLength(1)
        expect(roleGrantsOf(discordUser.user.id)).toBe(1)
      } finally {
        await server.kill()
      }
    },
    300_000,
  )
})
