import { describe, expect, it } from 'vitest'
import { billingName } from './stripe-loader'

describe('billing name sent with a card confirmation', () => {
  it('PAYMENT-19 is the first and last name, else the email, else Customer', () => {
    expect(billingName({ firstName: 'Jamie', lastName: 'Rivers', email: 'jamie@example.com' })).toBe(
      'Jamie Rivers',
    )
    expect(billingName({ firstName: 'Jamie', lastName: '', email: 'jamie@example.com' })).toBe('Jamie')
    expect(billingName({ firstName: '', lastName: '', email: 'jamie@example.com' })).toBe('jamie@example.com')
    expect(billingName({ firstName: ' ', email: 'jamie@example.com' })).toBe('jamie@example.com')
    expect(billingName({ email: '' })).toBe('Customer')
    expect(billingName(null)).toBe('Customer')
  })
})
