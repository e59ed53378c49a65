import { createHash, randomBytes } from 'node:crypto'

/** An unguessable token for links and refresh tokens: 256 bits, URL-safe. */
export function randomToken(bytes = 32): string {
  return randomBytes(bytes).toString('base64url')
}

/** Tokens are stored only as this hash, so a database leak reveals none of them. */
export function sha256(value: string): string {
  return createHash('sha256').update(value).digest('hex')
}
