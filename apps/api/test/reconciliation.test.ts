import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import {
  type BillingHarness,
  counts,
  createBillingHarness,
  eventually,
  memberWithCheckout,
  statusOf,
} from './helpers/billing'
import { as, login, type Session } from './helpers/members'

const API = '/discord/api'
const DAY = 24 * 3600 * 1000
const ADMIN = { email: 'sweep.ops@edgeclub.test', password: 'Ops$ecret123' }

/**
 * The sweep compares what Stripe holds as paid over the last 30 days with the ledger: what a lost
 * webhook left out is repaired through the same fulfilment, once; what cannot be matched is shown
 * to admins and written to the audit log.
 */
describe('reconciliation against Stripe', () => {
  let h: BillingHarness
  let admin: Session
  beforeAll(async () => {
    h = await createBillingHarness({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } })
    admin = await login(h.t.app, ADMIN.email, ADMIN.password)
  })
  afterAll(() => h.close())

  const adminGet = async (url: string) =>
    (await as(h.t.app, admin.accessToken, { method: 'GET', url: `${API}${url}` })).json().data

  it('a renewal Stripe charged whose webhooks never arrived is repaired by the sweep, once, with a receipt', async () => {
    const { member, intent } = await memberWithCheckout(h, 'monthly')
    await h.stripe.paymentIntents.confirm(intent.paymentIntentId, { payment_method: 'pm_card_visa' })
    await as(h.t.app, member.accessToken, {
      method: 'POST',
      url: `${API}/payments/confirm`,
      payload: { paymentIntentId: intent.paymentIntentId },
    })
    const before = (await statusOf(h, member.accessToken)).activeSubscription!.endDate!

    // Stripe renews, but none of its webhooks reach us.
    h.emulator.stripe.setWebhookUrl(null)
    try {
      h.emulator.stripe.advance(31 * 24 * 3600)
      await h.emulator.stripe.flushWebhooks()
      expect((await statusOf(h, member.accessToken)).activeSubscription!.endDate).toBe(before)
      expect(await counts(h, member.user.id)).toMatchObject({ completed: 1, periods: 1 })

      const findings = await h.t.app.services.reconciliation.sweep()
      expect(findings).toContainEqual(
        expect.objectContaining({ outcome: 'repaired', kind: 'invoice', amountMinor: 3999, currency: 'USD' }),
      )
      const after = await statusOf(h, member.accessToken)
      expect(Date.parse(after.activeSubscription!.endDate!)).toBeGreaterThan(Date.parse(before) + 27 * DAY)
      expect(await counts(h, member.user.id)).toMatchObject({ completed: 2, subscriptions: 1, periods: 2 })
      // Two receipts for 39.99: the first payment's, and now the renewal's.
      const receipts = () =>
        h.smtp.messages.filter(
          (mail) =>
            JSON.stringify(mail.to).includes(member.user.email) &&
            /receipt/i.test(mail.subject ?? '') &&
            /39\.99/.test(mail.subject ?? ''),
        ).length
      await eventually(
        async () => receipts(),
        (count) => count >= 2,
        60_000,
      )

      // A second sweep finds nothing more to do, and changes nothing.
      const again = await h.t.app.services.reconciliation.sweep()
      expect(again.filter((finding) => finding.objectId === findings[0]?.objectId)).toEqual([])
      expect(await counts(h, member.user.id)).toMatchObject({ completed: 2, periods: 2 })
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      expect(receipts()).toBe(2)
    } finally {
      h.emulator.stripe.setWebhookUrl(h.webhookUrl)
    }
    const audit = await adminGet('/admin/audit?search=reconciliation.repaired')
    expect(audit.items.map((entry: { action: string }) => entry.action)).toContain('reconciliation.repaired')
  })

  it('money the ledger cannot place is listed for admins and in the audit log, once', async () => {
    // A payment taken at Stripe that no checkout of ours started (e.g. made by hand in Stripe's dashboard).
    const stray = await h.stripe.paymentIntents.create({
      amount: 2500,
      currency: 'usd',
      metadata: { kind: 'tip', paymentId: '00000000-0000-4000-8000-00000000dead' },
      automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
    })
    await h.stripe.paymentIntents.confirm(stray.id, { payment_method: 'pm_card_visa' })

    // An admin need not wait for the hourly sweep: "check now" runs it.
    const run = await as(h.t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/reconciliation/run`,
    })
    expect(run.statusCode, run.body).toBe(200)
    expect(run.json().data.unmatched).toBeGreaterThanOrEqual(1)
    const { issues } = await adminGet('/admin/reconciliation')
    expect(issues).toContainEqual(
      expect.objectContaining({ objectId: stray.id, rail: 'card', amount: 25, currency: 'USD' }),
    )

    await h.t.app.services.reconciliation.sweep()
    const listed = (await adminGet('/admin/reconciliation')).issues.filter(
      (issue: { objectId: string }) => issue.objectId === stray.id,
    )
    expect(listed).toHaveLength(1)
    const audit = await eventually(
      () => adminGet(`/admin/audit?targetId=${stray.id}`),
      (page) => page.items.length > 0,
    )
    expect(audit.items).toEqual([
      expect.objectContaining({ action: 'reconciliation.unmatched', outcome: 'failure', actor: null }),
    ])
  })
})
