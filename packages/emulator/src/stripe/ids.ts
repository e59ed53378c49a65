import { randomBytes } from 'node:crypto'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

export function randomString(length: number): string {
  const bytes = randomBytes(length)
  let out = ''
  // 62 does not divide 256, so the bias is tiny; these ids only need to be unique and look like Stripe's.
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length]
  return out
}

const CODE_ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789'

/** Upper-case codes like the ones Stripe generates for coupons and promotion codes. */
export function randomCode(length: number): string {
  let out = ''
  for (const byte of randomBytes(length)) out += CODE_ALPHABET[byte % CODE_ALPHABET.length]
  return out
}

/** Ids shaped like Stripe's: a type prefix and a random tail (`cus_` + 14, `pi_` + 24 and so on). */
const TAIL: Record<string, number> = {
  cus: 14,
  prod: 14,
  si: 14,
  inpay: 24,
  req: 14,
}

export function newId(prefix: string): string {
  return `${prefix}_${randomString(TAIL[prefix] ?? 24)}`
}

/** A PaymentIntent's or SetupIntent's client secret: its id, `_secret_` and a random tail. */
export function clientSecretFor(intentId: string): string {
  return `${intentId}_secret_${randomString(25)}`
}
