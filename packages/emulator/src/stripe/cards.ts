/**
 * Stripe's test cards, by number and by test PaymentMethod token. `behaviour` is what a charge on
 * the card does; it is internal state and never appears on the wire.
 */

export type CardBehaviour =
  /** Every charge succeeds. */
  | 'succeed'
  /** Every charge is declined with `decline`. */
  | 'decline'
  /** On-session payments need 3-D Secure; off-session charges (renewals) then succeed. */
  | 'authenticate_on_session'
  /** Every payment needs 3-D Secure, so off-session charges fail with authentication_required. */
  | 'authenticate_always'
  /** Attaches fine, but every charge is declined (Stripe's card for failed renewals). */
  | 'attach_then_decline'

export interface Decline {
  code: string
  declineCode: string
  message: string
}

export interface TestCard {
  number: string
  brand: string
  funding: 'credit' | 'debit' | 'prepaid' | 'unknown'
  country: string
  behaviour: CardBehaviour
  decline?: Decline
}

export const GENERIC_DECLINE: Decline = {
  code: 'card_declined',
  declineCode: 'generic_decline',
  message: 'Your card was declined.',
}

const DECLINES: Record<string, Decline> = {
  '4000000000000002': GENERIC_DECLINE,
  '4000000000009995': {
    code: 'card_declined',
    declineCode: 'insufficient_funds',
    message: 'Your card has insufficient funds.',
  },
  '4000000000000069': {
    code: 'expired_card',
    declineCode: 'expired_card',
    message: 'Your card has expired.',
  },
  '4000000000000127': {
    code: 'incorrect_cvc',
    declineCode: 'incorrect_cvc',
    message: "Your card's security code is incorrect.",
  },
}

const SPECIAL: Record<string, CardBehaviour> = {
  '4000002500003155': 'authenticate_on_session',
  '4000000000003220': 'authenticate_on_session',
  '4000002760003184': 'authenticate_always',
  '4000000000000341': 'attach_then_decline',
}

/** Test PaymentMethod tokens accepted wherever a PaymentMethod id is. */
export const TEST_TOKENS: Record<string, string> = {
  pm_card_visa: '4242424242424242',
  pm_card_visa_debit: '4000056655665556',
  pm_card_mastercard: '5555555555554444',
  pm_card_amex: '378282246310005',
  pm_card_chargeDeclined: '4000000000000002',
  pm_card_chargeDeclinedInsufficientFunds: '4000000000009995',
  pm_card_chargeDeclinedExpiredCard: '4000000000000069',
  pm_card_chargeDeclinedIncorrectCvc: '4000000000000127',
  pm_card_chargeCustomerFail: '4000000000000341',
  pm_card_authenticationRequired: '4000002500003155',
  pm_card_authenticationRequiredOnSetup: '4000002500003155',
}

/**
 * What a card number of each brand looks like: how many digits make it complete, how many the
 * card field takes, the security code's length and how the digits are grouped as they are typed.
 * The server's test cards and the fake Stripe.js card field both read this table.
 */
export interface CardBrand {
  brand: 'visa' | 'mastercard' | 'amex' | 'discover' | 'jcb' | 'diners' | 'unionpay' | 'unknown'
  /** The leading digits that identify the brand. */
  prefix: RegExp
  length: number
  maxLength: number
  cvcLength: number
  groups: readonly number[]
}

const SIXTEEN_DIGITS = { length: 16, maxLength: 16, cvcLength: 3, groups: [4, 4, 4, 4, 3] } as const

const BRANDS: readonly CardBrand[] = [
  { brand: 'visa', prefix: /^4/, ...SIXTEEN_DIGITS },
  { brand: 'mastercard', prefix: /^(5[1-5]|2(2[2-9]|[3-6]\d|7[01]|720))/, ...SIXTEEN_DIGITS },
  { brand: 'amex', prefix: /^3[47]/, length: 15, maxLength: 15, cvcLength: 4, groups: [4, 6, 5] },
  { brand: 'discover', prefix: /^(6011|65|64[4-9])/, ...SIXTEEN_DIGITS },
  { brand: 'jcb', prefix: /^35/, ...SIXTEEN_DIGITS },
  { brand: 'diners', prefix: /^(36|38|30[0-5])/, length: 14, maxLength: 14, cvcLength: 3, groups: [4, 6, 4] },
  { brand: 'unionpay', prefix: /^62/, ...SIXTEEN_DIGITS },
]

/** Until the digits name a brand, the field takes up to 19 of them (the longest card numbers). */
const UNKNOWN_BRAND: CardBrand = { brand: 'unknown', prefix: /^/, ...SIXTEEN_DIGITS, maxLength: 19 }

export function cardBrand(number: string): CardBrand {
  return BRANDS.find((entry) => entry.prefix.test(number)) ?? UNKNOWN_BRAND
}

export function brandOf(number: string): CardBrand['brand'] {
  return cardBrand(number).brand
}

export function luhnValid(number: string): boolean {
  let sum = 0
  let double = false
  for (let i = number.length - 1; i >= 0; i--) {
    let digit = Number(number[i])
    if (double) {
      digit *= 2
      if (digit > 9) digit -= 9
    }
    sum += digit
    double = !double
  }
  return number.length >= 12 && sum % 10 === 0
}

export function testCard(number: string): TestCard {
  const decline = DECLINES[number]
  return {
    number,
    brand: brandOf(number),
    funding: number === '4000056655665556' ? 'debit' : 'credit',
    country: 'US',
    behaviour: decline ? 'decline' : (SPECIAL[number] ?? 'succeed'),
    ...(decline ? { decline } : {}),
  }
}
