import { billingMessages } from '@edgeclub/shared'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type BillingHarness, createBillingHarness, eventually } from './helpers/billing'
import { ADMIN, levers } from './helpers/membership'

/**
 * Keeping members: plan changes (upgrades charged now at Stripe's proration, downgrades at
 * the renewal, undo), pauses (no charge, no access, no Discord role, then all back), a new card after
 * a failed renewal (paid at once, access never lost in the grace period) and the offer at cancel.
 * Every member's time moves on their own Stripe test clock.
 */
describe('keeping members: plan changes, pauses, card recovery, win-back', { timeout: 120_000 }, () => {
  let h: BillingHarness
  let l: ReturnType<typeof levers>
  let adminToken: string

  beforeAll(async () => {
    h = await createBillingHarness({
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, STRIPE_TEST_CLOCKS: 'true' },
      discord: true,
    })
    l = levers(h)
  })
  afterAll(async () => {
    await h.close()
  })
  beforeEach(async () => {
    adminToken = await l.admin()
  })

  const subscriptionOf = async (userId: string) =>
    h.t.database.db
      .selectFrom('subscriptions')
      .selectAll()
      .where('user_id', '=', userId)
      .orderBy('created_at', 'desc')
      .executeTakeFirstOrThrow()

  it('monthly → yearly: the member sees the exact amount due today (Stripe prorates), pays it, and is on yearly', async () => {
    const plans = await l.plans()
    const member = await l.subscribed('monthly')
    // Ten days into the month.
    await l.advance(member.user.id, 10 * l.DAY)
    const session = await l.again(member)
    const preview = await l.call(
      session.accessToken,
      'GET',
      `/subscriptions/change-plan/preview?planId=${plans.yearly!.id}`,
    )
    expect(preview.statusCode, preview.body).toBe(200)
    const shown = preview.json().data
    expect(shown).toMatchObject({ planId: plans.yearly!.id, currency: 'USD', kind: 'upgrade' })

    // The amount is Stripe's own invoice preview for the same change at the same moment.
    const local = await subscriptionOf(member.user.id)
    const subscription = await h.stripe.subscriptions.retrieve(local.stripe_subscription_id!)
    const stripePreview = await h.stripe.invoices.createPreview({
      customer: await l.customerOf(member.user.id),
      subscription: subscription.id,
      subscription_details: {
        items: [
          {
            id: subscription.items.data[0]!.id,
            price: (
              await h.t.database.db
                .selectFrom('plans')
                .select('stripe_price_id')
                .where('id', '=', plans.yearly!.id)
                .executeTakeFirstOrThrow()
            ).stripe_price_id!,
          },
        ],
        proration_behavior: 'always_invoice',
        proration_date: Math.floor(new Date(shown.prorationDate).valueOf() / 1000),
        billing_cycle_anchor: { type: 'now' },
      },
    })
    expect(Math.round(shown.amountDueNow * 100)).toBe(stripePreview.amount_due)
    // Less than a full year: the unused days of the month are credited.
    expect(shown.amountDueNow).toBeLessThan(plans.yearly!.price)
    expect(shown.amountDueNow).toBeGreaterThan(plans.yearly!.price - plans.monthly!.price)

    const changed = await l.call(session.accessToken, 'POST', '/subscriptions/change-plan', {
      planId: plans.yearly!.id,
      prorationDate: shown.prorationDate,
    })
    expect(changed.statusCode, changed.body).toBe(200)
    expect(changed.json().data).toMatchObject({
      scheduled: false,
      clientSecret: null,
      amount: shown.amountDueNow,
    })
    await h.emulator.stripe.flushWebhooks()
    const status = await l.status(session.accessToken)
    expect(status).toMatchObject({ hasAccess: true, status: 'active' })
    expect(status.activeSubscription?.planId.slug).toBe('yearly')
    const upgrade = (await l.payments(member.user.id)).find((row) => row.kind === 'upgrade')
    expect(upgrade).toMatchObject({
      status: 'completed',
      amount_minor: stripePreview.amount_due,
      plan_id: plans.yearly!.id,
    })
    // The owner's numbers: a yearly plan is cheaper by the month, so MRR contracts by the difference.
    const movements = (await l.call(await l.admin(), 'GET', '/admin/analytics')).json().data.mrrMovements
    expect(movements.contraction).toBeCloseTo(plans.monthly!.price - plans.yearly!.price / 12, 1)
    // A year from now, not a month.
    expect(new Date(status.activeSubscription!.endDate!).valueOf() - h.clock.now().valueOf()).toBeGreaterThan(
      360 * l.DAY,
    )
  })

  it('an upgrade whose card asks for 3-D Secure waits for the member, then takes effect', async () => {
    const plans = await l.plans()
    const session = await l.member()
    const started = (await l.checkout(session.accessToken, 'monthly')).json().data
    await l.payIntent(started.paymentIntentId, 'pm_card_authenticationRequired')
    h.emulator.stripe.authenticate(started.paymentIntentId, true)
    await l.call(session.accessToken, 'POST', '/payments/confirm', {
      paymentIntentId: started.paymentIntentId,
    })
    expect((await l.status(session.accessToken)).hasAccess).toBe(true)

    const changed = (
      await l.call(session.accessToken, 'POST', '/subscriptions/change-plan', { planId: plans.yearly!.id })
    ).json().data
    expect(changed).toMatchObject({
      scheduled: false,
      clientSecret: expect.any(String),
      paymentIntentId: expect.any(String),
    })
    // Not paid yet: still monthly.
    expect((await l.status(session.accessToken)).activeSubscription?.planId.slug).toBe('monthly')
    h.emulator.stripe.authenticate(changed.paymentIntentId, true)
    const confirmed = await l.call(session.accessToken, 'POST', '/payments/confirm', {
      paymentIntentId: changed.paymentIntentId,
    })
    expect(confirmed.json().data.status).toBe('completed')
    expect((await l.status(session.accessToken)).activeSubscription?.planId.slug).toBe('yearly')
  })

  it('yearly → monthly waits for the renewal ("Switches to"), can be undone, and then switches, charged monthly', async () => {
    const plans = await l.plans()
    const member = await l.subscribed('yearly')
    const preview = (
      await l.call(
        member.accessToken,
        'GET',
        `/subscriptions/change-plan/preview?planId=${plans.monthly!.id}`,
      )
    ).json().data
    expect(preview).toMatchObject({ kind: 'downgrade', amountDueNow: 0 })
    const yearEnd = (await l.status(member.accessToken)).activeSubscription!.endDate!
    expect(preview.effectiveAt).toBe(yearEnd)

    const scheduled = (
      await l.call(member.accessToken, 'POST', '/subscriptions/change-plan', { planId: plans.monthly!.id })
    ).json().data
    expect(scheduled).toMatchObject({ scheduled: true, effectiveAt: yearEnd })
    expect((await l.status(member.accessToken)).scheduledChange).toEqual({
      planId: plans.monthly!.id,
      planName: 'Monthly',
      effectiveAt: yearEnd,
    })
    // Undo, then decide again.
    const undone = await l.call(member.accessToken, 'DELETE', '/subscriptions/change-plan')
    expect(undone.json().data.undone).toBe(true)
    expect((await l.status(member.accessToken)).scheduledChange).toBeNull()
    expect((await l.call(member.accessToken, 'DELETE', '/subscriptions/change-plan')).json().message).toBe(
      billingMessages.changeNothingScheduled,
    )
    await l.call(member.accessToken, 'POST', '/subscriptions/change-plan', { planId: plans.monthly!.id })

    // Still yearly until the renewal; then monthly at the monthly price.
    await l.advance(member.user.id, 366 * l.DAY)
    const back = await l.again(member)
    const status = await l.status(back.accessToken)
    expect(status).toMatchObject({ hasAccess: true, scheduledChange: null })
    expect(status.activeSubscription?.planId.slug).toBe('monthly')
    const renewal = (await l.payments(member.user.id)).filter((row) => row.kind === 'renewal')
    expect(renewal.at(-1)).toMatchObject({
      status: 'completed',
      amount_minor: Math.round(plans.monthly!.price * 100),
    })
  })

  it('a paused member has no access and no Discord role until the resume date, then both come back', async () => {
    const plans = await l.plans()
    const member = await l.subscribed('monthly', { discordUsername: 'pause_pat' })
    const d = h.emulator.discord.config
    const invite = (await l.call(member.accessToken, 'POST', '/discord/create-invite')).json().data
    h.emulator.discord.join({ code: invite.inviteUrl.split('/').pop(), username: 'pause_pat' })
    const roles = () =>
      h.emulator.discord.state().members.find((m) => m.user.username === 'pause_pat')?.roles ?? []
    await h.t.app.services.community.syncMember(member.user.id)
    expect(roles()).toContain(d.memberRoleId)

    const paidUntil = (await l.status(member.accessToken)).activeSubscription!.endDate!
    const paused = await l.call(member.accessToken, 'POST', '/subscriptions/pause', { periods: 2 })
    expect(paused.statusCode, paused.body).toBe(200)
    expect(paused.json().data.accessUntil).toBe(paidUntil)
    const resumesAt = paused.json().data.resumesAt as string
    expect(new Date(resumesAt).valueOf() - new Date(paidUntil).valueOf()).toBeGreaterThan(58 * l.DAY)
    expect(
      (await l.call(member.accessToken, 'POST', '/subscriptions/pause', { periods: 1 })).json().message,
    ).toBe(billingMessages.pauseAlready)

    // Past the paid period: paused, no access, no role, and no charge.
    await l.advance(member.user.id, 32 * l.DAY)
    await h.t.app.services.access.expireEnded()
    let session = await l.again(member)
    expect(await l.status(session.accessToken)).toMatchObject({
      hasAccess: false,
      status: 'paused',
      resumesAt,
    })
    await eventually(
      async () => roles(),
      (now) => !now.includes(d.memberRoleId),
    )
    const charged = () =>
      l.payments(member.user.id).then((rows) => rows.filter((row) => row.status === 'completed').length)
    expect(await charged()).toBe(1)

    // Three days before it resumes: a reminder.
    await l.advance(member.user.id, new Date(resumesAt).valueOf() - h.clock.now().valueOf() - 2 * l.DAY)
    await h.t.app.services.access.remindResumes()
    await h.smtp.waitFor(
      (message) =>
        JSON.stringify(message.to).includes(member.user.email) && /resumes on/.test(message.subject ?? ''),
    )
    // The resume date: charged, access and the role come back.
    await l.advance(member.user.id, 2 * l.DAY + 60_000)
    session = await l.again(member)
    expect(await l.status(session.accessToken)).toMatchObject({
      hasAccess: true,
      status: 'active',
      resumesAt: null,
    })
    expect(await charged()).toBe(2)
    await h.t.app.services.community.syncMember(member.user.id)
    await eventually(
      async () => roles(),
      (now) => now.includes(d.memberRoleId),
    )
    expect(plans.monthly).toBeDefined()
  })

  it('Resume before the paid period ends lifts the pause: nothing missed, nothing charged twice', async () => {
    const member = await l.subscribed('monthly')
    await l.call(member.accessToken, 'POST', '/subscriptions/pause', { periods: 1 })
    const resumed = await l.call(member.accessToken, 'POST', '/subscriptions/unpause')
    expect(resumed.json().data).toMatchObject({ resumed: true, clientSecret: null })
    expect(await l.status(member.accessToken)).toMatchObject({ hasAccess: true, resumesAt: null })
    await l.advance(member.user.id, 31 * l.DAY)
    const session = await l.again(member)
    expect((await l.status(session.accessToken)).hasAccess).toBe(true)
    expect((await l.payments(member.user.id)).filter((row) => row.status === 'completed')).toHaveLength(2)
  })

  it('a failed renewal → email → update card → paid at once; access never lost inside the grace period', async () => {
    const member = await l.subscribed('monthly')
    const local = await subscriptionOf(member.user.id)
    h.emulator.stripe.failNextRenewal(local.stripe_subscription_id!)
    await l.advance(member.user.id, 31 * l.DAY)
    let session = await l.again(member)
    expect(await l.status(session.accessToken)).toMatchObject({ hasAccess: true, status: 'past_due' })
    const mail = await h.smtp.waitFor(
      (message) =>
        JSON.stringify(message.to).includes(member.user.email) &&
        /renewal failed/.test(message.subject ?? ''),
    )
    // Its button opens the card form in the Subscription tab.
    expect(mail.text).toContain('Update card: ')
    expect(mail.text).toContain('/dashboard?tab=subscription&action=update-card')

    // A day later, inside the grace period, the member saves a new card: the renewal is paid with it.
    await l.advance(member.user.id, l.DAY)
    session = await l.again(member)
    expect((await l.status(session.accessToken)).hasAccess).toBe(true)
    const setup = (await l.call(session.accessToken, 'POST', '/subscriptions/payment-method')).json().data
    expect(setup.setupIntentId).toMatch(/^seti_/)
    await l.saveCard(setup.setupIntentId, await l.freshCard())
    const result = await l.call(session.accessToken, 'POST', '/subscriptions/payment-method/confirm', {
      setupIntentId: setup.setupIntentId,
    })
    expect(result.json().data).toMatchObject({ updated: true, retried: 'paid' })
    await h.emulator.stripe.flushWebhooks()
    expect(await l.status(session.accessToken)).toMatchObject({ hasAccess: true, status: 'active' })
    // The next renewal is charged to the new card, and goes through.
    await l.advance(member.user.id, 31 * l.DAY)
    session = await l.again(member)
    expect(await l.status(session.accessToken)).toMatchObject({ hasAccess: true, status: 'active' })
    // Another member's setup cannot be used.
    const stranger = await l.subscribed('weekly')
    const theirs = await l.call(stranger.accessToken, 'POST', '/subscriptions/payment-method/confirm', {
      setupIntentId: setup.setupIntentId,
    })
    expect(theirs.statusCode).toBe(404)
  })

  it('cancelling asks why; the owner offers a retention code or a pause, and the numbers show the reasons', async () => {
    const plans = await l.plans()
    const code = await l.createCode(adminToken, {
      code: 'STAY-WITH-US',
      percentOff: 50,
      duration: 'repeating',
      durationInMonths: 3,
    })
    await l.call(adminToken, 'PUT', '/admin/billing-settings', {
      retentionPromoCodeId: code.json().data.id,
      retentionOffersPause: true,
    })
    const member = await l.subscribed('monthly')
    const offer = (await l.call(member.accessToken, 'GET', '/subscriptions/retention')).json().data
    expect(offer).toEqual({
      code: { code: 'STAY-WITH-US', description: '50% off every payment for 3 months' },
      pause: true,
    })
    const kept = await l.call(member.accessToken, 'POST', '/subscriptions/retention/accept', {
      offer: 'code',
      reason: 'too_expensive',
    })
    expect(kept.json().data.kept).toBe(true)
    const numbers = (await l.call(adminToken, 'GET', '/admin/analytics')).json().data
    expect(numbers.cancellationReasons).toEqual(
      expect.arrayContaining([expect.objectContaining({ reason: 'too_expensive', kept: 1, cancelled: 0 })]),
    )
    expect(numbers.promoRedemptions).toEqual(
      expect.arrayContaining([{ code: 'STAY-WITH-US', redemptions: 1 }]),
    )
    // The next renewal is half price.
    await l.advance(member.user.id, 31 * l.DAY)
    const invoices = (await l.invoicesOf(member.user.id)).filter((invoice) => invoice.status === 'paid')
    const cents = Math.round(plans.monthly!.price * 100)
    // Stripe rounds the discount, not the total: half off is the price less half of it, rounded.
    expect(invoices.at(-1)!.amount_paid).toBe(cents - Math.round(cents / 2))

    const leaver = await l.subscribed('weekly')
    const subscription = (await l.status(leaver.accessToken)).activeSubscription as unknown as { _id: string }
    const cancelled = await l.call(leaver.accessToken, 'PUT', `/subscriptions/${subscription._id}/cancel`, {
      reason: 'not_using',
      detail: 'Busy season',
    })
    expect(cancelled.statusCode, cancelled.body).toBe(200)
    const analytics = (await l.call(await l.admin(), 'GET', '/admin/analytics')).json().data
    expect(analytics.cancellationReasons).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ reason: 'not_using', label: 'I am not using it enough', cancelled: 1 }),
      ]),
    )
    // The leaver joined this month: new MRR.
    expect(analytics.mrrMovements.new).toBeGreaterThan(0)
  })

  it('admins pause a member and add free days before their next charge', async () => {
    const member = await l.subscribed('monthly')
    const before = (await l.status(member.accessToken)).activeSubscription!.endDate!
    const free = await l.call(adminToken, 'POST', `/admin/users/${member.user.id}/free-days`, { days: 10 })
    expect(free.statusCode, free.body).toBe(200)
    expect(new Date(free.json().data.endDate).valueOf() - new Date(before).valueOf()).toBe(10 * l.DAY)
    // No charge at the old renewal date; access goes on.
    await l.advance(member.user.id, 32 * l.DAY)
    let session = await l.again(member)
    expect((await l.status(session.accessToken)).hasAccess).toBe(true)
    expect((await l.payments(member.user.id)).filter((row) => row.status === 'completed')).toHaveLength(1)
    // Charged at the new date.
    await l.advance(member.user.id, 9 * l.DAY)
    session = await l.again(member)
    expect((await l.payments(member.user.id)).filter((row) => row.status === 'completed')).toHaveLength(2)

    const paused = await l.call(await l.admin(), 'POST', `/admin/users/${member.user.id}/pause`, {
      periods: 1,
    })
    expect(paused.statusCode, paused.body).toBe(200)
    expect((await l.status(session.accessToken)).resumesAt).toBe(paused.json().data.resumesAt)
    const audit = (await l.call(await l.admin(), 'GET', `/admin/audit?targetId=${member.user.id}`)).json()
      .data.items
    expect(audit.map((entry: { action: string }) => entry.action)).toEqual(
      expect.arrayContaining(['user.pause', 'user.free-days']),
    )
  })
})
