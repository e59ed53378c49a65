import { USER_ROLES, type UserRole } from '@edgeclub/shared'
import { errors, jwtVerify, SignJWT } from 'jose'

/** Short-lived JWT access tokens: HS256 pinned, issuer, audience and type checked. */

export const ACCESS_TOKEN_TTL_SECONDS = 15 * 60
const ISSUER = 'edgeclub'
const AUDIENCE = 'edgeclub-api'
const TYPE = 'access'

export interface AccessClaims {
  userId: string
  role: UserRole
  sessionId: string
}

export function createAccessTokens(secret: string, now: () => Date = () => new Date()) {
  const key = new TextEncoder().encode(secret)
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
      try {
        const { payload } = await jwtVerify(token, key, {
          algorithms: ['HS256'],
          issuer: ISSUER,
          audience: AUDIENCE,
          currentDate: now(),
        })
        if (payload.typ !== TYPE || typeof payload.sub !== 'string' || typeof payload.sid !== 'string')
          return null
        if (!USER_ROLES.includes(payload.role as UserRole)) return null
        return { userId: payload.sub, role: payload.role as UserRole, sessionId: payload.sid }
      } catch (error) {
        if (error instanceof errors.JOSEError) return null
        throw error
      }
    },
  }
}
export type AccessTokens = ReturnType<typeof createAccessTokens>
