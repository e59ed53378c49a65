import { randomBytes } from 'node:crypto'

const ALPHABET = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'

export function randomString(length: number): string {
  const bytes = randomBytes(length)
  let out = ''
  // 62 does not divide 256, so the bias is tiny; these ids only need to be unique and look like Stripe's.
  for (const byte of bytes) out += ALPHABET[byte % ALPHABET.length]
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

export function clientSecretFor(paymentIntentId: string): string {
  return `${paymentIntentId}_secret_${randomString(25)}`
}
