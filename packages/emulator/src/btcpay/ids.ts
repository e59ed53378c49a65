import { randomBytes, randomInt } from 'node:crypto'

const BASE58 = '123456789ABCDEFGHJKLMNPQRSTUVWXYZabcdefghijkmnopqrstuvwxyz'
const BECH32 = 'qpzry9x8gf2tvdw0s3jn54khce6mua7l'

function pick(alphabet: string, length: number): string {
  let out = ''
  for (let index = 0; index < length; index += 1) out += alphabet[randomInt(alphabet.length)]
  return out
}

/** BTCPay invoice, webhook and delivery ids are 22 base58 characters; apps may store or validate them. */
export function newBtcpayId(): string {
  return pick(BASE58, 22)
}

/**
 * A regtest-looking address: plausible to a parser, but never a mainnet address anyone could pay
 * by mistake (and not checksum-valid anyway).
 */
export function newRegtestAddress(): string {
  return `bcrt1q${pick(BECH32, 38)}`
}

/** On-chain payment ids are `<txid>-<vout>` since BTCPay Server 2.0. */
export function newPaymentId(): string {
  return `${randomBytes(32).toString('hex')}-0`
}
