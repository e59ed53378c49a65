import { billingMessages } from '@edgeclub/shared'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type BillingHarness, createBillingHarness } from './helpers/billing'
import { ADMIN, levers } from './helpers/membership'

/**
 * Promo codes: admins make them (a Stripe coupon and promotion code for card), members
 * check one against a plan, and a checkout takes the discount: Stripe's invoices for card plans, the
 * server's own amount for lifetime and crypto. Every refusal says why; one redemption per member; the
 * last redemption of a limited code goes to exactly one member.
 */
describe('promo codes', { timeout: 120_000 }, () => {
  let h: BillingHarness
  let l: ReturnType<typeof levers>
  let adminToken: string

  beforeAll(async () => {
    h = await createBillingHarness({
      crypto: true,
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, STRIPE_TEST_CLOCKS: 'true' },
    })
    l = levers(h)
  })
  // Tests move the clock by days: every test signs the admin in afresh.
  beforeEach(async () => {
    adminToken = await l.admin()
  })
  afterAll(async () => {
    await h.close()
  })

  it('an admin creates a code (Stripe gets the coupon and promotion code); the same name again is a conflict', async () => {
    const plans = await l.plans()
    const created = await l.createCode(adminToken, {
      code: 'black-friday',
      percentOff: 25,
      duration: 'repeating',
      durationInMonths: 2,
      planIds: [plans.monthly!.id],
    })
    expect(created.statusCode, created.body).toBe(201)
    expect(created.json().data).toMatchObject({
      code: 'BLACK-FRIDAY',
      percentOff: 25,
      duration: 'repeating',
      durationInMonths: 2,
      audience: 'anyone',
      active: true,
      redemptions: 0,
      description: '25% off every payment for 2 months',
    })
    const row = await h.t.database.db
      .selectFrom('promo_codes')
      .selectAll()
      .where('code', '=', 'BLACK-FRIDAY')
      .executeTakeFirstOrThrow()
    const coupon = await h.stripe.coupons.retrieve(row.stripe_coupon_id!)
    expect(coupon).toMatchObject({ percent_off: 25, duration: 'repeating', duration_in_months: 2 })
    const promotion = await h.stripe.promotionCodes.retrieve(row.stripe_promotion_code_id!)
    expect(promotion).toMatchObject({ code: 'BLACK-FRIDAY', active: true })

    const again = await l.createCode(adminToken, { code: 'Black-Friday', percentOff: 10, duration: 'once' })
    expect(again.statusCode).toBe(409)
    expect(again.json().message).toBe(billingMessages.promoDuplicate)
    // Bad input changes nothing.
    const bad = await l.createCode(adminToken, { code: 'X', duration: 'once' })
    expect(bad.statusCode).toBe(400)
    expect(bad.json().error).toBe('VALIDATION_ERROR')
    const member = await l.member()
    expect(
      (await l.createCode(member.accessToken, { code: 'MINE', percentOff: 5, duration: 'once' })).statusCode,
    ).toBe(403)
  })

  it('a member sees the first payment with the code; each refusal says why', async () => {
    const plans = await l.plans()
    let member = await l.member()
    const quote = (code: string, slug = 'monthly') =>
      l.call(member.accessToken, 'GET', `/promo-codes/${code}?planId=${plans[slug]!.id}`)

    const ok = await quote('black-friday')
    expect(ok.statusCode, ok.body).toBe(200)
    expect(ok.json().data).toEqual({
      code: 'BLACK-FRIDAY',
      planId: plans.monthly!.id,
      amountDue: Math.round(plans.monthly!.price * 75) / 100,
      fullAmount: plans.monthly!.price,
      currency: 'USD',
      description: '25% off every payment for 2 months',
    })

    const refusal = async (code: string, slug: string, message: string, statusCode = 400) => {
      const response = await quote(code, slug)
      expect(response.statusCode, response.body).toBe(statusCode)
      expect(response.json()).toMatchObject({ success: false, message })
    }
    await refusal('NOPE', 'monthly', billingMessages.promoUnknown, 404)
    await refusal('BLACK-FRIDAY', 'yearly', billingMessages.promoWrongPlan)

    await l.createCode(adminToken, {
      code: 'SOON-OVER',
      amountOff: 5,
      currency: 'USD',
      duration: 'once',
      expiresAt: new Date(h.clock.now().valueOf() + 2 * l.DAY).toISOString(),
    })
    h.clock.advance(3 * l.DAY)
    member = await l.again(member)
    adminToken = await l.admin()
    await refusal('SOON-OVER', 'monthly', billingMessages.promoExpired)

    await l.createCode(adminToken, { code: 'WELCOME', percentOff: 50, duration: 'once', audience: 'new' })
    await l.createCode(adminToken, {
      code: 'COMEBACK',
      percentOff: 30,
      duration: 'once',
      audience: 'returning',
    })
    // Never paid: new, not returning.
    expect((await quote('WELCOME')).statusCode).toBe(200)
    await refusal('COMEBACK', 'monthly', billingMessages.promoReturningOnly)
    // A paying member is no longer new, and not returning while they have access.
    const paying = await l.subscribed('weekly')
    const theirs = await l.call(paying.accessToken, 'GET', `/promo-codes/WELCOME?planId=${plans.monthly!.id}`)
    expect(theirs.json().message).toBe(billingMessages.promoNewOnly)
    const stillHere = await l.call(
      paying.accessToken,
      'GET',
      `/promo-codes/COMEBACK?planId=${plans.monthly!.id}`,
    )
    expect(stillHere.json().message).toBe(billingMessages.promoReturningOnly)

    const deactivated = await l.createCode(adminToken, { code: 'GONE', percentOff: 10, duration: 'once' })
    const off = await l.call(
      adminToken,
      'POST',
      `/admin/promo-codes/${deactivated.json().data.id}/deactivate`,
    )
    expect(off.json().data.active).toBe(false)
    await refusal('GONE', 'monthly', billingMessages.promoInactive)
  })

  it('a code takes its discount off the card subscription for its months, as Stripe invoices it; used once per member', async () => {
    const plans = await l.plans()
    const member = await l.member()
    const started = await l.checkout(member.accessToken, 'monthly', 'black-friday')
    expect(started.statusCode, started.body).toBe(200)
    const intent = started.json().data
    const discounted = Math.round(plans.monthly!.price * 75) / 100
    expect(intent).toMatchObject({
      amount: discounted,
      promo: { code: 'BLACK-FRIDAY', fullAmount: plans.monthly!.price },
    })
    await l.payIntent(intent.paymentIntentId)
    await l.call(member.accessToken, 'POST', '/payments/confirm', { paymentIntentId: intent.paymentIntentId })
    expect((await l.status(member.accessToken)).hasAccess).toBe(true)

    // Renewals: discounted while the code's two months last, then the full price.
    for (let month = 0; month < 2; month++) await l.advance(member.user.id, 31 * l.DAY)
    const back = await l.again(member)
    adminToken = await l.admin()
    const paid = (await l.invoicesOf(member.user.id)).filter((invoice) => invoice.status === 'paid')
    const cents = Math.round(plans.monthly!.price * 100)
    // Stripe rounds the discount (a quarter of the price), not the total.
    const withCode = cents - Math.round(cents / 4)
    expect(paid.map((invoice) => invoice.amount_paid)).toEqual([withCode, withCode, cents])
    // Our ledger records the same amounts, the first with its code.
    const rows = (await l.payments(member.user.id)).filter((row) => row.status === 'completed')
    expect(rows.map((row) => row.amount_minor)).toEqual(paid.map((invoice) => invoice.amount_paid))
    expect(rows[0]).toMatchObject({
      promo_code_id: expect.any(String),
      discount_minor: cents - Math.round(cents * 0.75),
    })

    const again = await l.call(
      back.accessToken,
      'GET',
      `/promo-codes/BLACK-FRIDAY?planId=${plans.monthly!.id}`,
    )
    expect(again.json().message).toBe(billingMessages.promoAlreadyUsed)

    const list = await l.call(adminToken, 'GET', '/admin/promo-codes')
    const code = list.json().data.items.find((item: { code: string }) => item.code === 'BLACK-FRIDAY')
    expect(code.redemptions).toBe(1)
    expect(code.revenue).toEqual([
      { currency: 'USD', amount: paid.reduce((sum, invoice) => sum + invoice.amount_paid, 0) / 100 },
    ])
  })

  it('two members racing for the last redemption: exactly one gets it', async () => {
    await l.createCode(adminToken, { code: 'LAST-ONE', percentOff: 40, duration: 'once', maxRedemptions: 1 })
    const [first, second] = [await l.member(), await l.member()]
    const answers = await Promise.all([
      l.checkout(first.accessToken, 'monthly', 'LAST-ONE'),
      l.checkout(second.accessToken, 'monthly', 'LAST-ONE'),
    ])
    expect(answers.map((answer) => answer.statusCode).sort()).toEqual([200, 400])
    const refused = answers.find((answer) => answer.statusCode === 400)!
    expect(refused.json().message).toBe(billingMessages.promoUsedUp)
    const held = await h.t.database.db
      .selectFrom('promo_redemptions')
      .innerJoin('promo_codes', 'promo_codes.id', 'promo_redemptions.promo_code_id')
      .select('promo_redemptions.status')
      .where('promo_codes.code', '=', 'LAST-ONE')
      .execute()
    expect(held).toEqual([{ status: 'held' }])
  })

  it('lifetime and crypto take the same discount, computed by the server', async () => {
    const plans = await l.plans()
    await l.createCode(adminToken, { code: 'TENOFF', amountOff: 10, currency: 'USD', duration: 'once' })
    const member = await l.member()
    const lifetime = await l.checkout(member.accessToken, 'lifetime', 'tenoff')
    expect(lifetime.statusCode, lifetime.body).toBe(200)
    expect(lifetime.json().data.amount).toBe(Math.round((plans.lifetime!.price - 10) * 100) / 100)
    const intent = await h.stripe.paymentIntents.retrieve(lifetime.json().data.paymentIntentId)
    expect(intent.amount).toBe(Math.round((plans.lifetime!.price - 10) * 100))

    const buyer = await l.member()
    const crypto = await l.call(buyer.accessToken, 'POST', '/payments/create-crypto', {
      planId: plans.monthly!.id,
      promoCode: 'TENOFF',
    })
    expect(crypto.statusCode, crypto.body).toBe(200)
    expect(crypto.json().data.amount).toBe(Math.round((plans.monthly!.price - 10) * 100) / 100)
    const invoice = h.emulator.btcpay.invoice(crypto.json().data.invoiceId)
    expect(Number(invoice?.amount)).toBe(Math.round((plans.monthly!.price - 10) * 100) / 100)
  })
})
