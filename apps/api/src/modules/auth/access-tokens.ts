import { webcrypto } from 'node:crypto'
import { USER_ROLES, type UserRole } from '@edgeclub/shared'
import { errors, jwtVerify, SignJWT } from 'jose'

/** Short-lived JWT access tokens: HS256 pinned, issuer, audience and type checked. */

const ACCESS_TOKEN_TTL_SECONDS = 15 * 60
const ISSUER = 'edgeclub'
const AUDIENCE = 'edgeclub-api'
const TYPE = 'access'

export interface AccessClaims {
  userId: string
  role: UserRole
  sessionId: string
}

/** Verified tokens kept (each until its own expiry): a member's token is checked on every request. */
const VERIFIED_CACHE_SIZE = 20_000

export function createAccessTokens(secret: string, now: () => Date = () => new Date()) {
  const key = new TextEncoder().encode(secret)
  // Imported once: given raw bytes, jose imports the key again on every verification.
  let verifyKey: Promise<webcrypto.CryptoKey> | undefined
  const importedKey = () =>
    (verifyKey ??= webcrypto.subtle.importKey('raw', key, { name: 'HMAC', hash: 'SHA-256' }, false, [
      'verify',
    ]))
  /**
   * The same token string always verifies the same way, so its claims are kept with its expiry and a
   * repeat costs a map lookup. Expiry is still checked on every call; revocation is the session's
   * business (checked per request by the auth service).
   */
  const verified = new Map<string, { claims: AccessClaims; exp: number }>()
  return {
    async sign(claims: AccessClaims): Promise<string> {
      const issuedAt = Math.floor(now().getTime() / 1000)
      return new SignJWT({ role: claims.role, sid: claims.sessionId, typ: TYPE })
        .setProtectedHeader({ alg: 'HS256', typ: 'JWT' })
        .setSubject(claims.userId)
        .setIssuer(ISSUER)
        .setAudience(AUDIENCE)
        .setIssuedAt(issuedAt)
        .setExpirationTime(issuedAt + ACCESS_TOKEN_TTL_SECONDS)
        .sign(key)
    },

    /** The claims of a valid token, or null (bad signature, expired, wrong issuer/audience/type/alg). */
    async verify(token: string): Promise<AccessClaims | null> {
      const hit = verified.get(token)
      if (hit) {
        if (now().getTime() / 1000 < hit.exp) return hit.claims
        verified.delete(token)
        return null
      }
      try {
        const { payload } = await jwtVerify(token, await importedKey(), {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: now(),
        })
        if (payload.typ !== TYPE || typeof payload.sub !== 'string' || typeof payload.sid !== 'string')
          return null
        if (!USER_ROLES.includes(payload.role as UserRole)) return null
        const claims = { userId: payload.sub, role: payload.role as UserRole, sessionId: payload.sid }
        if (typeof payload.exp === 'number') {
          // Oldest first out: a Map iterates in insertion order.
          if (verified.size >= VERIFIED_CACHE_SIZE) verified.delete(verified.keys().next().value as string)
          verified.set(token, { claims, exp: payload.exp })
        }
        return claims
      } catch (error) {
        if (error instanceof errors.JOSEError) return null
        throw error
      }
    },
  }
}
export type AccessTokens = ReturnType<typeof createAccessTokens>
