import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type BillingHarness, createBillingHarness } from './helpers/billing'
import { as, register } from './helpers/members'

const API = '/discord/api'

describe('a tip is one PaymentIntent per attempt', () => {
  let h: BillingHarness
  beforeAll(async () => {
    h = await createBillingHarness()
  })
  afterAll(() => h.close())

  const create = (token: string, body: object) =>
    as(h.t.app, token, { method: 'POST', url: `${API}/tips/create`, payload: body })
  /** PaymentIntents Stripe made for this member. */
  const intentsAtStripe = (userId: string) =>
    h.emulator.stripe
      .events('payment_intent.created')
      .map((event) => event.data.object as { id: string; metadata: Record<string, string> })
      .filter((intent) => intent.metadata.userId === userId)
  const tipRows = (userId: string) =>
    h.t.database.db
      .selectFrom('payments')
      .select(['id', 'status', 'stripe_payment_intent_id'])
      .where('user_id', '=', userId)
      .where('kind', '=', 'tip')
      .execute()

  it('TIP-03 ten quick clicks on one tip make one PaymentIntent at Stripe and one payment', async () => {
    const member = await register(h.t.app)
    const body = { amount: 7.5, currency: 'USD', message: 'Great call!' }
    const responses = await Promise.all(Array.from({ length: 10 }, () => create(member.accessToken, body)))
    expect(responses.map((response) => response.statusCode)).toEqual(Array(10).fill(200))
    const answers = responses.map((response) => response.json().data)
    expect(new Set(answers.map((answer) => answer.paymentIntentId)).size).toBe(1)
    expect(new Set(answers.map((answer) => answer.tipId)).size).toBe(1)
    expect(new Set(answers.map((answer) => answer.clientSecret)).size).toBe(1)
    expect(intentsAtStripe(member.user.id)).toHaveLength(1)
    expect(await tipRows(member.user.id)).toEqual([
      { id: answers[0].tipId, status: 'pending', stripe_payment_intent_id: answers[0].paymentIntentId },
    ])
  })

  it('Cancel and Continue again answers the same tip; other details are another tip', async () => {
    const member = await register(h.t.app)
    const first = (await create(member.accessToken, { amount: 5, currency: 'USD' })).json().data
    const again = (await create(member.accessToken, { amount: 5, currency: 'USD' })).json().data
    expect(again.paymentIntentId).toBe(first.paymentIntentId)
    const withMessage = (
      await create(member.accessToken, { amount: 5, currency: 'USD', message: 'Hi' })
    ).json().data
    const inEuros = (await create(member.accessToken, { amount: 5, currency: 'EUR' })).json().data
    const bigger = (await create(member.accessToken, { amount: 6, currency: 'USD' })).json().data
    const ids = [first, withMessage, inEuros, bigger].map((tip) => tip.paymentIntentId)
    expect(new Set(ids).size).toBe(4)
    expect(intentsAtStripe(member.user.id)).toHaveLength(4)
    expect(await tipRows(member.user.id)).toHaveLength(4)
  })

  it('once a tip is paid, the same tip again is a new one', async () => {
    const member = await register(h.t.app)
    const body = { amount: 3, currency: 'USD', message: 'Thanks' }
    const first = (await create(member.accessToken, body)).json().data
    await h.stripe.paymentIntents.confirm(first.paymentIntentId, { payment_method: 'pm_card_visa' })
    const second = (await create(member.accessToken, body)).json().data
    expect(second.paymentIntentId).not.toBe(first.paymentIntentId)
    expect(second.tipId).not.toBe(first.tipId)
    const rows = await tipRows(member.user.id)
    expect(rows.find((row) => row.id === first.tipId)?.status).toBe('completed')
    expect(rows.find((row) => row.id === second.tipId)?.status).toBe('pending')
    expect(intentsAtStripe(member.user.id)).toHaveLength(2)
  })

  it('a tip cancelled at Stripe is replaced by a new one', async () => {
    const member = await register(h.t.app)
    const body = { amount: 4, currency: 'GBP' }
    const first = (await create(member.accessToken, body)).json().data
    await h.stripe.paymentIntents.cancel(first.paymentIntentId)
    const second = (await create(member.accessToken, body)).json().data
    expect(second.paymentIntentId).not.toBe(first.paymentIntentId)
    const rows = await tipRows(member.user.id)
    expect(rows.find((row) => row.id === first.tipId)?.status).toBe('cancelled')
  })

  it('members never share a tip, even with the same details', async () => {
    const [ann, bob] = [await register(h.t.app), await register(h.t.app)]
    const body = { amount: 9, currency: 'USD', message: 'Same' }
    const [a, b] = await Promise.all([create(ann.accessToken, body), create(bob.accessToken, body)])
    expect(a.json().data.paymentIntentId).not.toBe(b.json().data.paymentIntentId)
  })
})
