import { randomUUID } from 'node:crypto'
import { type Emulator, startEmulator } from '@edgeclub/emulator'
import { sql } from 'kysely'
import Stripe from 'stripe'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { as, login, register, type Session } from './helpers/members'
import { createTestApp, type TestApp, testClock } from './helpers/test-app'

const API = '/discord/api'
const ADMIN = { email: 'audit.keeper@edgeclub.test', password: 'Keeper$Audit-2026' }
const MINUTE = 60_000

/**
 * Every admin and analyst action writes its audit row in the transaction that makes the action, so no
 * action can stand without its row. The proof: the database refuses the success row (a trigger, as a
 * crash at that point would), and each action must then leave no trace; with the trigger gone, the
 * same action commits, with its row. What the action asked of another system before its transaction
 * (Stripe's refund, Discord's kick) is recorded there too (Stripe's refund object, Discord's audit log
 * reason).
 */
describe('admin actions and their audit rows', () => {
  let emulator: Emulator
  let t: TestApp
  let admin: Session
  let stripe: Stripe
  const clock = testClock()

  beforeAll(async () => {
    emulator = await startEmulator()
    const d = emulator.discord.config
    t = await createTestApp({
      clock,
      env: {
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        STRIPE_SECRET_KEY: emulator.stripe.secretKey,
        STRIPE_PUBLISHABLE_KEY: emulator.stripe.publishableKey,
        STRIPE_WEBHOOK_SECRET: emulator.stripe.webhookSecret,
        STRIPE_API_BASE: emulator.url,
        DISCORD_BOT_TOKEN: d.botToken,
        DISCORD_GUILD_ID: d.guildId,
        DISCORD_INVITE_CHANNEL_ID: d.inviteChannelId,
        DISCORD_MEMBER_ROLE_ID: d.memberRoleId,
        DISCORD_ANNOUNCE_CHANNEL_ID: d.announceChannelId,
        DISCORD_API_BASE: `${emulator.url}/discord/api`,
        DISCORD_CLIENT_ID: d.clientId,
        DISCORD_CLIENT_SECRET: d.clientSecret,
      },
    })
    const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
    emulator.stripe.setWebhookUrl(`${address}${API}/webhooks/stripe`)
    const base = new URL(emulator.url)
    stripe = new Stripe(emulator.stripe.secretKey, {
      host: base.hostname,
      port: Number(base.port),
      protocol: 'http',
      maxNetworkRetries: 0,
    })
    admin = await login(t.app, ADMIN.email, ADMIN.password)
    await sql`create function refuse_audit_success() returns trigger language plpgsql as $$
      begin
        if new.outcome = 'success' then raise exception 'the audit row cannot be written (test)'; end if;
        return new;
      end $$`.execute(t.database.db)
  })
  afterAll(async () => {
    await t?.close()
    await emulator?.close()
  })

  const db = () => t.database.db
  const refuseAudit = () =>
    sql`create trigger refuse_audit_success before insert on audit_log
      for each row execute function refuse_audit_success()`.execute(db())
  const allowAudit = () => sql`drop trigger if exists refuse_audit_success on audit_log`.execute(db())
  const call = (
    method: 'POST' | 'PUT' | 'DELETE',
    url: string,
    payload?: object,
    token = admin.accessToken,
  ) => as(t.app, token, { method, url: `${API}${url}`, ...(payload ? { payload } : {}) })
  const successRows = async (action: string, since: Date) =>
    (
      await db()
        .selectFrom('audit_log')
        .select(['target_id'])
        .where('action', '=', action)
        .where('outcome', '=', 'success')
        .where('created_at', '>=', since)
        .execute()
    ).length
  const userRow = (id: string) =>
    db().selectFrom('users').selectAll().where('id', '=', id).executeTakeFirstOrThrow()
  const linkState = async (userId: string) =>
    (
      await db()
        .selectFrom('discord_links')
        .select(['state'])
        .where('user_id', '=', userId)
        .executeTakeFirst()
    )?.state ?? 'unlinked'
  const newPlan = (slug: string) => ({
    name: `Plan ${slug}`,
    slug,
    price: 12.5,
    interval: 'month',
    intervalCount: 1,
  })
  const planRow = (slug: string) =>
    db()
      .selectFrom('plans')
      .select(['name', 'is_active', 'archived_at'])
      .where('slug', '=', slug)
      .executeTakeFirst()
  const inGuild = (username: string) => {
    const found = emulator.discord.state().members.find((member) => member.user.username === username)
    return found ?? emulator.discord.addMember({ username })
  }
  const pick = () => ({
    kind: 'pick',
    sport: 'NFL',
    event: 'Chiefs vs Bills',
    startsAt: new Date(clock.now().getTime() + 2 * MINUTE).toISOString(),
    market: 'spread',
    selection: 'Chiefs -3.5',
    odds: 1.91,
    stake: 1,
  })
  const signalRow = (id: string) =>
    db().selectFrom('signals').select(['status']).where('id', '=', id).executeTakeFirst()

  /**
   * One action: `act` performs it (after `prepare`), `state` reads what it changes. Refused row: a
   * 500 and the state as it was; allowed: success and the changed state, with its row.
   */
  async function provesAtomic(
    action: string,
    steps: {
      /** The refused attempt is on record as a failure (routes that declare their audit). */
      failureRow?: boolean
      prepare?: () => Promise<void>
      act: () => Promise<{ statusCode: number; body: string }>
      state: () => Promise<unknown>
    },
  ) {
    await steps.prepare?.()
    const before = await steps.state()
    const since = new Date(Date.now() - 1000)
    await refuseAudit()
    let refused: { statusCode: number; body: string }
    try {
      refused = await steps.act()
    } finally {
      await allowAudit()
    }
    expect(refused.statusCode, `${action}: ${refused.body}`).toBe(500)
    expect(await steps.state(), action).toEqual(before)
    expect(await successRows(action, since), action).toBe(0)
    // The refusal is on record, as a failure.
    if (steps.failureRow !== false) {
      const failures = await db()
        .selectFrom('audit_log')
        .select('id')
        .where('action', '=', action)
        .where('outcome', '=', 'failure')
        .where('created_at', '>=', since)
        .execute()
      expect(failures.length, action).toBeGreaterThanOrEqual(1)
    }

    await steps.prepare?.()
    const allowed = await steps.act()
    expect(allowed.statusCode, `${action}: ${allowed.body}`).toBeLessThan(300)
    expect(await steps.state(), action).not.toEqual(before)
    expect(await successRows(action, since), action).toBe(1)
  }

  it('grant, role, disable', async () => {
    const member = await register(t.app)
    await provesAtomic('user.grant', {
      act: () => call('POST', `/admin/users/${member.user.id}/grant`, { days: 7 }),
      state: async () =>
        (await db().selectFrom('subscriptions').select('id').where('user_id', '=', member.user.id).execute())
          .length,
    })
    await provesAtomic('user.role', {
      act: () => call('POST', `/admin/users/${member.user.id}/role`, { role: 'analyst' }),
      state: async () => (await userRow(member.user.id)).role,
    })
    await provesAtomic('user.disable', {
      act: () => call('POST', `/admin/users/${member.user.id}/disable`, { disabled: true }),
      state: async () => (await userRow(member.user.id)).disabled_at,
    })
  })

  it('refund (the ledger side: Stripe keeps its own record of the refund)', async () => {
    const member = await register(t.app)
    const plans = (await t.app.inject({ method: 'GET', url: `${API}/subscriptions/plans` })).json().data as {
      id: string
      slug: string
    }[]
    const lifetime = plans.find((plan) => plan.slug === 'lifetime')!
    const intent = (
      await call(
        'POST',
        '/payments/create-intent',
        { planId: lifetime.id, currency: 'USD' },
        member.accessToken,
      )
    ).json().data as { paymentIntentId: string; paymentId: string }
    await stripe.paymentIntents.confirm(intent.paymentIntentId, { payment_method: 'pm_card_visa' })
    expect(
      (
        await call(
          'POST',
          '/payments/confirm',
          { paymentIntentId: intent.paymentIntentId },
          member.accessToken,
        )
      ).statusCode,
    ).toBe(200)
    await emulator.stripe.flushWebhooks()
    // Stripe's refund webhooks would apply the refund on their own; this test watches the admin's request.
    emulator.stripe.setWebhookUrl('http://127.0.0.1:9/nowhere')
    await provesAtomic('payment.refund', {
      act: () => call('POST', `/admin/payments/${intent.paymentId}/refund`, { amount: 1 }),
      state: async () =>
        await db()
          .selectFrom('payments')
          .select(['status', 'amount_refunded_minor'])
          .where('id', '=', intent.paymentId)
          .executeTakeFirstOrThrow(),
    })
  })

  it('plan create, update, toggle, delete', async () => {
    const slug = `audited-${randomUUID().slice(0, 8)}`
    await provesAtomic('plan.create', {
      act: () => call('POST', '/admin/plans', newPlan(slug)),
      state: () => planRow(slug),
    })
    const id = (
      await db().selectFrom('plans').select('id').where('slug', '=', slug).executeTakeFirstOrThrow()
    ).id
    await provesAtomic('plan.update', {
      act: () => call('PUT', `/admin/plans/${id}`, { name: 'Renamed plan' }),
      state: () => planRow(slug),
    })
    await provesAtomic('plan.toggle', {
      act: () => call('POST', `/admin/plans/${id}/toggle`),
      state: () => planRow(slug),
    })
    await provesAtomic('plan.delete', {
      act: () => call('DELETE', `/admin/plans/${id}`),
      state: () => planRow(slug),
    })
  })

  it('kick, ban, unban (the link state; Discord keeps its own audit log)', async () => {
    const username = `audited_${randomUUID().slice(0, 6)}`
    const member = await register(t.app, { discordUsername: username })
    await provesAtomic('discord.kick', {
      prepare: async () => {
        inGuild(username)
      },
      act: () => call('POST', '/admin/users/kick', { userId: member.user.id, reason: 'Audit check' }),
      state: () => linkState(member.user.id),
    })
    // The ban holds for an account that left the server too (the kick's id is known).
    await provesAtomic('discord.ban', {
      act: () => call('POST', '/admin/users/ban', { userId: member.user.id }),
      state: () => linkState(member.user.id),
    })
    await provesAtomic('discord.unban', {
      act: () => call('POST', '/admin/users/unban', { userId: member.user.id }),
      state: () => linkState(member.user.id),
    })
  })

  it('broadcast', async () => {
    const broadcastId = randomUUID()
    await provesAtomic('discord.broadcast', {
      act: () =>
        call('POST', '/admin/broadcast', { broadcastId, message: 'Audited broadcast', alsoEmail: true }),
      state: async () =>
        (await db().selectFrom('broadcasts').select('id').where('id', '=', broadcastId).execute()).length,
    })
    // Discord posted it once: the refused attempt's message is the one the retry got back (its nonce).
    const posted = emulator.discord.state().messages[emulator.discord.config.announceChannelId] ?? []
    expect(posted.filter((message) => message.content === 'Audited broadcast')).toHaveLength(1)
  })

  it('promo code create and deactivate, and the offer at cancel', async () => {
    const codeRow = (code: string) =>
      db().selectFrom('promo_codes').select(['id', 'active']).where('code', '=', code).executeTakeFirst()
    await provesAtomic('promo.create', {
      act: () => call('POST', '/admin/promo-codes', { code: 'AUDITED', percentOff: 10, duration: 'once' }),
      state: () => codeRow('AUDITED'),
    })
    const created = await codeRow('AUDITED')
    await provesAtomic('promo.deactivate', {
      act: () => call('POST', `/admin/promo-codes/${created!.id}/deactivate`),
      state: async () => (await codeRow('AUDITED'))?.active,
    })
    await provesAtomic('billing.settings', {
      act: () =>
        call('PUT', '/admin/billing-settings', { retentionPromoCodeId: null, retentionOffersPause: true }),
      state: async () =>
        (await db().selectFrom('billing_settings').select('retention_offers_pause').executeTakeFirst())
          ?.retention_offers_pause,
    })
  })

  it('a reconciliation run that records a finding', async () => {
    // A payment Stripe holds that the ledger never heard of: the sweep records it as unmatched.
    await stripe.paymentIntents.create({
      amount: 700,
      currency: 'usd',
      metadata: { kind: 'tip' },
      payment_method: 'pm_card_visa',
      confirm: true,
    })
    // The sweep carries on past a rail whose write failed, so the run's own row is what is refused last.
    await provesAtomic('reconciliation.run', {
      failureRow: false,
      act: () => call('POST', '/admin/reconciliation/run'),
      state: async () =>
        (await db().selectFrom('reconciliation_issues').select('object_id').execute()).length,
    })
  })

  it('signal publish, settle, void', async () => {
    const published = async () => (await db().selectFrom('signals').select('id').execute()).length
    await provesAtomic('signal.publish', { act: () => call('POST', '/signals', pick()), state: published })
    const first = (await call('POST', '/signals', pick())).json().data.id as string
    const second = (await call('POST', '/signals', pick())).json().data.id as string
    clock.advance(5 * MINUTE)
    try {
      await provesAtomic('signal.settle', {
        act: () => call('POST', `/signals/${first}/settle`, { result: 'won' }),
        state: () => signalRow(first),
      })
      await provesAtomic('signal.void', {
        act: () => call('POST', `/signals/${second}/void`, { reason: 'Line moved', afterStart: true }),
        state: () => signalRow(second),
      })
    } finally {
      clock.reset()
    }
  })

  it("a member's Discord disconnect", async () => {
    const member = await register(t.app)
    const connection = () =>
      db()
        .selectFrom('discord_connections')
        .select(['disconnected_at'])
        .where('user_id', '=', member.user.id)
        .executeTakeFirst()
    await db()
      .insertInto('discord_connections')
      .values({
        user_id: member.user.id,
        discord_user_id: `1${Date.now()}`.slice(0, 18),
        username: 'leaving_lee',
        verified_at: new Date(),
      })
      .execute()
    // A member's own action: its row is the service's, written in the disconnect's transaction.
    await provesAtomic('discord.disconnect', {
      failureRow: false,
      act: () => call('POST', '/discord/disconnect', undefined, member.accessToken),
      state: connection,
    })
  })
})
