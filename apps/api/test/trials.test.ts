import { billingMessages } from '@edgeclub/shared'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type BillingHarness, createBillingHarness } from './helpers/billing'
import { ADMIN, levers } from './helpers/membership'

/**
 * Free trials: a recurring plan with trialDays asks for a card first (a SetupIntent),
 * gives access at once, charges nothing until the trial ends, then charges the saved card. One trial
 * per member and per card, ever. Time moves on each member's Stripe test clock.
 */
describe('free trials', { timeout: 120_000 }, () => {
  let h: BillingHarness
  let l: ReturnType<typeof levers>
  let adminToken: string

  beforeAll(async () => {
    h = await createBillingHarness({
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, STRIPE_TEST_CLOCKS: 'true' },
    })
    l = levers(h)
    adminToken = await l.admin()
    const plans = await l.plans()
    const edited = await l.call(adminToken, 'PUT', `/admin/plans/${plans.monthly!.id}`, { trialDays: 7 })
    expect(edited.statusCode, edited.body).toBe(200)
    expect(edited.json().data.trialDays).toBe(7)
    // A lifetime plan has no trial.
    const refused = await l.call(adminToken, 'PUT', `/admin/plans/${plans.lifetime!.id}`, { trialDays: 3 })
    expect(refused.statusCode).toBe(400)
  })
  afterAll(async () => {
    await h.close()
  })
  beforeEach(async () => {
    adminToken = await l.admin()
  })

  /** Starts a trial checkout and saves `card`; answers the confirmation. */
  async function startTrial(session: { accessToken: string }, card?: string, secure = false) {
    const started = await l.checkout(session.accessToken, 'monthly')
    expect(started.statusCode, started.body).toBe(200)
    const intent = started.json().data
    await l.saveCard(intent.setupIntentId, card ?? (await l.freshCard()))
    // The bank's 3-D Secure step, answered as the member would.
    if (secure) h.emulator.stripe.authenticate(intent.setupIntentId, true)
    const confirmed = await l.call(session.accessToken, 'POST', '/payments/confirm', {
      setupIntentId: intent.setupIntentId,
    })
    expect(confirmed.statusCode, confirmed.body).toBe(200)
    return { intent, confirmation: confirmed.json().data }
  }

  it('asks for a card, gives access at once, charges nothing until the trial ends, then charges the card', async () => {
    const plans = await l.plans()
    const member = await l.member()
    const started = await l.checkout(member.accessToken, 'monthly')
    const intent = started.json().data
    expect(intent).toMatchObject({
      amount: 0,
      paymentIntentId: '',
      setupIntentId: expect.stringMatching(/^seti_/),
      trialEndsAt: expect.any(String),
    })
    expect(intent.clientSecret).toContain(intent.setupIntentId)
    // Nothing before the card is saved.
    expect((await l.status(member.accessToken)).hasAccess).toBe(false)

    await l.saveCard(intent.setupIntentId, await l.freshCard())
    const confirmed = await l.call(member.accessToken, 'POST', '/payments/confirm', {
      setupIntentId: intent.setupIntentId,
    })
    expect(confirmed.json().data).toMatchObject({
      status: 'completed',
      stripeStatus: 'trialing',
      payNow: null,
    })
    const trialEndsAt = confirmed.json().data.trialEndsAt as string
    const status = await l.status(member.accessToken)
    expect(status).toMatchObject({ hasAccess: true, status: 'trialing', trialEndsAt })
    expect(status.activeSubscription).toMatchObject({ status: 'trialing' })
    expect(new Date(trialEndsAt).valueOf() - h.clock.now().valueOf()).toBeGreaterThan(6.9 * l.DAY)
    // No money moved: the trial's start is a $0 payment.
    expect((await l.payments(member.user.id)).map((row) => row.amount_minor)).toEqual([0])

    // Three days before the end: the member hears when the first charge falls.
    await l.advance(member.user.id, 4.5 * l.DAY)
    const notice = await h.smtp.waitFor(
      (message) =>
        JSON.stringify(message.to).includes(member.user.email) && /trial ends/.test(message.subject ?? ''),
    )
    expect(notice.text).toContain(`$${plans.monthly!.price.toFixed(2)}`)

    // The trial ends: the saved card is charged, access goes on without a gap.
    await l.advance(member.user.id, 3 * l.DAY)
    const after = await l.status((await l.again(member)).accessToken)
    expect(after).toMatchObject({ hasAccess: true, status: 'active' })
    const charged = (await l.payments(member.user.id)).filter((row) => row.amount_minor > 0)
    expect(charged).toEqual([
      expect.objectContaining({ status: 'completed', amount_minor: Math.round(plans.monthly!.price * 100) }),
    ])
  })

  it('cancelled during the trial: no charge, and access ends with the trial', async () => {
    const member = await l.member()
    const { confirmation } = await startTrial(member)
    const subscription = (await l.status(member.accessToken)).activeSubscription as unknown as { _id: string }
    const cancelled = await l.call(member.accessToken, 'PUT', `/subscriptions/${subscription._id}/cancel`)
    expect(cancelled.statusCode, cancelled.body).toBe(200)
    expect(cancelled.json().data.endDate).toBe(confirmation.trialEndsAt)
    await l.advance(member.user.id, 8 * l.DAY)
    await h.t.app.services.access.expireEnded()
    expect((await l.status((await l.again(member)).accessToken)).hasAccess).toBe(false)
    expect((await l.payments(member.user.id)).every((row) => row.amount_minor === 0)).toBe(true)
  })

  it('one trial per card: a second account with the same card pays at once', async () => {
    const plans = await l.plans()
    const first = await l.member()
    await startTrial(first, 'pm_card_mastercard')
    const second = await l.member()
    const { confirmation } = await startTrial(second, 'pm_card_mastercard')
    expect(confirmation).toMatchObject({ status: 'completed', trialEndsAt: null, payNow: null })
    const status = await l.status(second.accessToken)
    expect(status).toMatchObject({ hasAccess: true, status: 'active', trialEndsAt: null })
    expect((await l.payments(second.user.id)).map((row) => row.amount_minor)).toContain(
      Math.round(plans.monthly!.price * 100),
    )
  })

  it('one trial per member: a member who had one gets the ordinary checkout at the full price', async () => {
    const plans = await l.plans()
    const member = await l.member()
    await startTrial(member)
    const subscription = (await l.status(member.accessToken)).activeSubscription as unknown as { _id: string }
    await l.call(member.accessToken, 'PUT', `/subscriptions/${subscription._id}/cancel`)
    await l.advance(member.user.id, 8 * l.DAY)
    await h.t.app.services.access.expireEnded()
    const back = await l.again(member)
    const again = await l.checkout(back.accessToken, 'monthly')
    expect(again.statusCode, again.body).toBe(200)
    expect(again.json().data).toMatchObject({
      amount: plans.monthly!.price,
      setupIntentId: null,
      trialEndsAt: null,
      paymentIntentId: expect.stringMatching(/^pi_/),
    })
  })

  it('a card that needs 3-D Secure for the first payment: the member confirms it in the card form', async () => {
    const first = await l.member()
    await startTrial(first, 'pm_card_authenticationRequired', true)
    const second = await l.member()
    const started = await l.checkout(second.accessToken, 'monthly')
    const intent = started.json().data
    await l.saveCard(intent.setupIntentId, 'pm_card_authenticationRequired')
    h.emulator.stripe.authenticate(intent.setupIntentId, true)
    const confirmed = (
      await l.call(second.accessToken, 'POST', '/payments/confirm', { setupIntentId: intent.setupIntentId })
    ).json().data
    // The trial this card had is over for good: the plan starts now, once the bank says yes.
    expect(confirmed.payNow).toMatchObject({ message: billingMessages.trialCardUsed })
    expect((await l.status(second.accessToken)).hasAccess).toBe(false)
    h.emulator.stripe.authenticate(confirmed.payNow.paymentIntentId, true)
    const paid = await l.call(second.accessToken, 'POST', '/payments/confirm', {
      paymentIntentId: confirmed.payNow.paymentIntentId,
    })
    expect(paid.json().data.status).toBe('completed')
    expect((await l.status(second.accessToken)).hasAccess).toBe(true)
  })

  it('the admin console shows trial starts and the conversion of trials that ended', async () => {
    const analytics = (await l.call(adminToken, 'GET', '/admin/analytics')).json().data
    expect(analytics.trials.started30d).toBeGreaterThanOrEqual(4)
    expect(analytics.trials.converted30d).toBeGreaterThanOrEqual(1)
    expect(analytics.trials.ended30d).toBeGreaterThanOrEqual(2)
    expect(analytics.trials.conversionRate).toBeGreaterThan(0)
  })
})
