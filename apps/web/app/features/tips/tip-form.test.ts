import { tipMessages } from '@edgeclub/shared'
import { describe, expect, it } from 'vitest'
import { cardFormReady } from '../../lib/use-card-payment'
import { readTipForm, tipCardMessages } from './tip-form'

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

  it("TIP-17 TIP-18 a tip with no card field on the page says 'Card element not found'; without Stripe.js, to refresh", () => {
    const stripe = { loaded: true }
    expect(cardFormReady(stripe, null, tipCardMessages)).toEqual({
      ok: false,
      message: 'Card element not found',
    })
    expect(cardFormReady(null, { field: true }, tipCardMessages)).toEqual({
      ok: false,
      message: 'Stripe has not loaded properly. Please refresh the page.',
    })
    expect(cardFormReady(stripe, { field: true }, tipCardMessages)).toEqual({
      ok: true,
      stripe,
      card: { field: true },
    })
  })
})
