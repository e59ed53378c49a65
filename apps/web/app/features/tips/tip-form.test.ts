import { tipMessages } from '@edgeclub/shared'
import { describe, expect, it } from 'vitest'
import { readTipForm } from './tip-form'

const form = (amount: string, message = '', currency = 'USD') => readTipForm({ amount, currency, message })

describe('the tip form', () => {
  it("TIP-10 refuses an amount under 0.50, or none, with the server's message", () => {
    expect(form('0.49')).toEqual({ ok: false, errors: { amount: tipMessages.amountMin } })
    expect(form('')).toEqual({ ok: false, errors: { amount: tipMessages.amountMin } })
  })

  it('TIP-09 refuses what the server refuses: over the maximum, more than two decimals, no number', () => {
    expect(form('10000.01')).toEqual({ ok: false, errors: { amount: tipMessages.amountMax } })
    expect(form('5.555')).toEqual({ ok: false, errors: { amount: tipMessages.amountInvalid } })
    expect(form('.')).toEqual({ ok: false, errors: { amount: tipMessages.amountInvalid } })
  })

  it('TIP-11 refuses a message over 200 characters', () => {
    expect(form('5', 'x'.repeat(201))).toEqual({ ok: false, errors: { message: tipMessages.messageTooLong } })
  })

  it('TIP-02 sends the amount, the currency and the trimmed message, or no message when blank', () => {
    expect(form('7.50', '  Thanks!  ', 'EUR')).toEqual({
      ok: true,
      tip: { amount: 7.5, currency: 'EUR', message: 'Thanks!' },
    })
    expect(form('10000', '   ')).toEqual({
      ok: true,
      tip: { amount: 10000, currency: 'USD', message: undefined },
    })
    expect(form('0.5', 'x'.repeat(200))).toMatchObject({ ok: true })
  })
})
