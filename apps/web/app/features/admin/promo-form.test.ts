import { describe, expect, it } from 'vitest'
import { blankPromo, checkPromo, promoRequest, promoStatus } from './promo-form'

describe('the promo code form', () => {
  it('sends a percent code once, for every plan, without the fields that do not apply', () => {
    const checked = checkPromo({ ...blankPromo, code: 'welcome20', percentOff: '20', amountOff: '5' })
    expect(checked.ok).toBe(true)
    if (!checked.ok) return
    expect(checked.input).toEqual({ code: 'WELCOME20', percentOff: 20, duration: 'once', audience: 'anyone' })
  })

  it('sends an amount with its currency, the months of a repeating code, plans, expiry and a limit', () => {
    const body = promoRequest({
      ...blankPromo,
      code: 'BF5',
      kind: 'amount',
      amountOff: '5',
      currency: 'EUR',
      duration: 'repeating',
      durationInMonths: '3',
      audience: 'returning',
      planIds: ['p1'],
      expiresOn: '2026-12-01',
      maxRedemptions: '100',
    })
    expect(body).toEqual({
      code: 'BF5',
      amountOff: 5,
      currency: 'EUR',
      duration: 'repeating',
      durationInMonths: 3,
      audience: 'returning',
      planIds: ['p1'],
      expiresAt: '2026-12-01T23:59:59.000Z',
      maxRedemptions: 100,
    })
  })

  it("shows the API's messages on the fields the admin fills", () => {
    const empty = checkPromo({ ...blankPromo, code: 'x' })
    expect(empty.ok).toBe(false)
    if (empty.ok) return
    expect(empty.errors.code).toBe('A code is 3 to 30 letters, digits, - or _')
    expect(empty.errors.percentOff).toBe('Give a percent off or an amount off')

    const amount = checkPromo({ ...blankPromo, code: 'SAVE', kind: 'amount' })
    expect(amount.ok).toBe(false)
    if (amount.ok) return
    expect(amount.errors.amountOff).toBe('Give a percent off or an amount off')

    const tooMuch = checkPromo({ ...blankPromo, code: 'SAVE', percentOff: '120' })
    expect(tooMuch.ok).toBe(false)
    if (tooMuch.ok) return
    expect(tooMuch.errors.percentOff).toBe('Percent off is at most 100')

    const months = checkPromo({
      ...blankPromo,
      code: 'SAVE',
      percentOff: '10',
      duration: 'repeating',
      durationInMonths: '',
    })
    expect(months.ok).toBe(false)
    if (months.ok) return
    expect(months.errors.durationInMonths).toBe('Say for how many months')
  })
})

describe("a promo code's status in the list", () => {
  const code = { active: true, expiresAt: null, maxRedemptions: null, redemptions: 4 }
  const now = new Date('2026-11-26T12:00:00Z')

  it('is active while it can be redeemed', () => {
    expect(promoStatus(code, now)).toBe('active')
    expect(promoStatus({ ...code, expiresAt: '2026-11-27T00:00:00Z', maxRedemptions: 5 }, now)).toBe('active')
  })

  it('says why it cannot: deactivated, expired or used up', () => {
    expect(promoStatus({ ...code, active: false, expiresAt: '2026-01-01T00:00:00Z' }, now)).toBe(
      'deactivated',
    )
    expect(promoStatus({ ...code, expiresAt: '2026-11-26T11:59:59Z' }, now)).toBe('expired')
    expect(promoStatus({ ...code, maxRedemptions: 4 }, now)).toBe('used up')
  })
})
