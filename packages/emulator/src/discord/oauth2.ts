import { createHash, randomBytes, timingSafeEqual } from 'node:crypto'
import type { RESTPostOAuth2AccessTokenResult } from 'discord-api-types/v10'
import type { DiscordStore } from './state'

/**
 * Discord's OAuth2 authorization-code grant for the one application the emulator knows (the bot's):
 * the checks behind the consent page, single-use codes, access and refresh tokens, and the token
 * endpoint's answers. Codes and tokens live in memory and expire by the emulator's clock.
 */

/** Every scope Discord documents; anything else is `invalid_scope`. */
export const DISCORD_SCOPES = new Set([
  'activities.read',
  'activities.write',
  'applications.builds.read',
  'applications.builds.upload',
  'applications.commands',
  'applications.commands.permissions.update',
  'applications.commands.update',
  'applications.entitlements',
  'applications.store.update',
  'bot',
  'connections',
  'dm_channels.read',
  'email',
  'gdm.join',
  'guilds',
  'guilds.join',
  'guilds.members.read',
  'identify',
  'messages.read',
  'openid',
  'relationships.read',
  'role_connections.write',
  'rpc',
  'rpc.activities.write',
  'rpc.notifications.read',
  'rpc.voice.read',
  'rpc.voice.write',
  'voice',
  'webhook.incoming',
])

/** Discord's access tokens last a week. */
export const ACCESS_TOKEN_SECONDS = 604_800

export interface AuthorizeParams {
  responseType: string | null
  clientId: string | null
  scope: string | null
  state: string | null
  redirectUri: string | null
  prompt: string | null
  /** PKCE (RFC 7636): Discord takes only the S256 method (its server metadata lists no other). */
  codeChallenge: string | null
  codeChallengeMethod: string | null
}

/**
 * What an authorization request leads to: an error page (the client or redirect URI cannot be
 * trusted, so nothing is sent back to it), an error sent back to the redirect URI, or consent.
 */
export type AuthorizeCheck =
  | { kind: 'page'; message: string }
  | { kind: 'redirect'; location: string }
  | {
      kind: 'consent'
      scopes: string[]
      redirectUri: string
      state: string | null
      /** The S256 challenge the code will be bound to, if the request had one. */
      codeChallenge: string | null
    }

interface StoredCode {
  userId: string
  clientId: string
  scopes: string[]
  redirectUri: string
  expiresAt: number
  codeChallenge: string | null
}

/** RFC 7636: a code_verifier (and an S256 challenge, 43 characters) is 43–128 unreserved characters. */
const PKCE_VALUE = /^[A-Za-z0-9\-._~]{43,128}$/

/** BASE64URL(SHA-256(verifier)): what an S256 challenge must equal. */
export function s256(verifier: string): string {
  return createHash('sha256').update(verifier, 'ascii').digest('base64url')
}

export interface AccessToken {
  userId: string
  clientId: string
  scopes: string[]
  expiresAt: number
}

interface StoredRefreshToken {
  userId: string
  clientId: string
  scopes: string[]
  accessToken: string
}

export type TokenAnswer = { status: number; body: unknown; headers?: Record<string, string> }

const TOKEN_HEADERS = { 'cache-control': 'no-store', pragma: 'no-cache' }

/** Discord's codes and tokens are 30 random letters and digits. */
function randomToken(): string {
  const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789'
  return [...randomBytes(30)].map((byte) => alphabet[byte % alphabet.length]).join('')
}

function sameSecret(given: string, expected: string): boolean {
  const a = Buffer.from(given)
  const b = Buffer.from(expected)
  return a.length === b.length && timingSafeEqual(a, b)
}

function oauthError(status: number, error: string, description?: string): TokenAnswer {
  return {
    status,
    body: description === undefined ? { error } : { error, error_description: description },
    headers: TOKEN_HEADERS,
  }
}

export function withQuery(uri: string, params: Record<string, string | null>): string {
  const target = new URL(uri)
  for (const [key, value] of Object.entries(params)) if (value !== null) target.searchParams.set(key, value)
  return target.toString()
}

export class OAuth2 {
  private codes = new Map<string, StoredCode>()
  private accessTokens = new Map<string, AccessToken>()
  private refreshTokens = new Map<string, StoredRefreshToken>()
  /** userId → scopes the user already granted (what `prompt=none` may skip the screen for). */
  private grants = new Map<string, Set<string>>()
  /** The user the consent page shows to a browser without its own choice (see consent-page.ts). */
  signedInUserId: string
  /** Bumped whenever a test picks the signed-in user, so older browser choices stop counting. */
  sessionGeneration = 1

  constructor(private readonly store: DiscordStore) {
    this.signedInUserId = store.config.signedInUserId
  }

  reset(): void {
    this.codes.clear()
    this.accessTokens.clear()
    this.refreshTokens.clear()
    this.grants.clear()
    this.signedInUserId = this.store.config.signedInUserId
    this.sessionGeneration += 1
  }

  private get config() {
    return this.store.config
  }

  redirectUriAllowed(uri: string): boolean {
    const allowed = this.config.redirectUris
    if (allowed !== 'loopback') return allowed.includes(uri)
    try {
      const parsed = new URL(uri)
      return (
        parsed.protocol === 'http:' &&
        (parsed.hostname === '127.0.0.1' || parsed.hostname === 'localhost') &&
        parsed.port !== ''
      )
    } catch {
      return false
    }
  }

  /** The checks Discord makes before it shows the consent screen, in its order. */
  checkAuthorize(params: AuthorizeParams): AuthorizeCheck {
    if (params.clientId !== this.config.clientId) return { kind: 'page', message: 'Unknown Application' }
    if (!params.redirectUri || !this.redirectUriAllowed(params.redirectUri)) {
      return { kind: 'page', message: 'Invalid OAuth2 redirect_uri' }
    }
    const back = (error: string, description: string | null): AuthorizeCheck => ({
      kind: 'redirect',
      location: withQuery(params.redirectUri as string, {
        error,
        error_description: description,
        state: params.state,
      }),
    })
    if (!params.responseType) return back('invalid_request', 'Missing response_type parameter.')
    if (params.responseType !== 'code') {
      return back('unsupported_response_type', null)
    }
    const scopes = [...new Set((params.scope ?? '').split(' ').filter(Boolean))]
    if (scopes.length === 0 || scopes.some((scope) => !DISCORD_SCOPES.has(scope))) {
      return back('invalid_scope', 'The requested scope is invalid, unknown, or malformed.')
    }
    // PKCE: a method without a challenge, a challenge without S256 (RFC 7636 reads a missing method
    // as "plain", which Discord does not take) or a malformed challenge is an invalid request.
    if (params.codeChallengeMethod !== null && params.codeChallenge === null)
      return back('invalid_request', 'Missing code_challenge parameter.')
    if (params.codeChallenge !== null) {
      if (params.codeChallengeMethod !== 'S256')
        return back('invalid_request', 'Transform algorithm not supported: use code_challenge_method=S256.')
      if (!/^[A-Za-z0-9\-_]{43}$/.test(params.codeChallenge))
        return back('invalid_request', 'Invalid code_challenge parameter.')
    }
    return {
      kind: 'consent',
      scopes,
      redirectUri: params.redirectUri,
      state: params.state,
      codeChallenge: params.codeChallenge,
    }
  }

  /** `prompt=none` skips the screen only for a user who already granted every requested scope. */
  alreadyGranted(userId: string, scopes: string[]): boolean {
    const granted = this.grants.get(userId)
    return granted !== undefined && scopes.every((scope) => granted.has(scope))
  }

  /**
   * The user pressed Authorize: a single-use code bound to them, the scopes, the redirect URI and the
   * request's PKCE challenge, if it had one.
   */
  issueCode(
    userId: string,
    scopes: string[],
    redirectUri: string,
    codeChallenge: string | null = null,
  ): string {
    const code = randomToken()
    this.codes.set(code, {
      userId,
      clientId: this.config.clientId,
      scopes,
      redirectUri,
      expiresAt: this.store.now() + this.config.codeLifetimeSeconds * 1000,
      codeChallenge,
    })
    const granted = this.grants.get(userId) ?? new Set<string>()
    for (const scope of scopes) granted.add(scope)
    this.grants.set(userId, granted)
    return code
  }

  /** The live access token for a `Bearer` value, if there is one. */
  accessToken(value: unknown): AccessToken | undefined {
    if (typeof value !== 'string') return undefined
    const token = this.accessTokens.get(value)
    if (!token || token.expiresAt <= this.store.now() || token.clientId !== this.config.clientId)
      return undefined
    return token
  }

  /**
   * `POST /oauth2/token`: client credentials by HTTP Basic or in the form; the authorization_code
   * and refresh_token grants. A code works once, within its lifetime, with the redirect URI it was
   * issued for.
   */
  token(form: URLSearchParams, authorization: string | undefined): TokenAnswer {
    const grantType = form.get('grant_type')
    if (grantType !== 'authorization_code' && grantType !== 'refresh_token') {
      return oauthError(400, 'unsupported_grant_type')
    }
    if (grantType === 'authorization_code' && !form.get('code')) {
      return oauthError(400, 'invalid_request', 'Missing code parameter.')
    }
    if (grantType === 'refresh_token' && !form.get('refresh_token')) {
      return oauthError(400, 'invalid_request', 'Missing refresh_token parameter.')
    }
    if (!this.clientAuthenticated(form, authorization)) return oauthError(401, 'invalid_client')
    return grantType === 'authorization_code' ? this.exchangeCode(form) : this.refresh(form)
  }

  private clientAuthenticated(form: URLSearchParams, authorization: string | undefined): boolean {
    let clientId = form.get('client_id')
    let secret = form.get('client_secret')
    if (authorization?.startsWith('Basic ')) {
      const decoded = Buffer.from(authorization.slice(6), 'base64').toString('utf8')
      const colon = decoded.indexOf(':')
      if (colon < 0) return false
      // OAuth2 clients form-encode the id and secret before joining them for Basic auth.
      const formDecode = (part: string) => new URLSearchParams(`v=${part}`).get('v') ?? ''
      clientId = formDecode(decoded.slice(0, colon))
      secret = formDecode(decoded.slice(colon + 1))
    }
    return (
      clientId === this.config.clientId && secret !== null && sameSecret(secret, this.config.clientSecret)
    )
  }

  private exchangeCode(form: URLSearchParams): TokenAnswer {
    const value = form.get('code') ?? ''
    const code = this.codes.get(value)
    if (!code || code.expiresAt <= this.store.now() || code.clientId !== this.config.clientId) {
      this.codes.delete(value)
      return oauthError(400, 'invalid_grant', 'Invalid "code" in request.')
    }
    if (form.get('redirect_uri') !== code.redirectUri) {
      return oauthError(400, 'invalid_request', 'Invalid "redirect_uri" in request.')
    }
    // PKCE: a code issued for a challenge needs the verifier that hashes to it (a missing or wrong
    // one is invalid_grant, as Discord answers); a verifier for a code issued without a challenge is
    // refused too (OAuth 2.1), so PKCE cannot be stripped from a request. A failed try spends the code.
    const verifier = form.get('code_verifier')
    if (code.codeChallenge !== null || verifier !== null) {
      const proven =
        code.codeChallenge !== null &&
        verifier !== null &&
        PKCE_VALUE.test(verifier) &&
        sameSecret(s256(verifier), code.codeChallenge)
      if (!proven) {
        this.codes.delete(value)
        return oauthError(400, 'invalid_grant', 'Invalid "code_verifier" in request.')
      }
    }
    this.codes.delete(value)
    return this.grantTokens(code.userId, code.scopes)
  }

  private refresh(form: URLSearchParams): TokenAnswer {
    const value = form.get('refresh_token') ?? ''
    const stored = this.refreshTokens.get(value)
    if (!stored || stored.clientId !== this.config.clientId) return oauthError(400, 'invalid_grant')
    // A refresh replaces both tokens: the old access token stops working.
    this.refreshTokens.delete(value)
    this.accessTokens.delete(stored.accessToken)
    return this.grantTokens(stored.userId, stored.scopes)
  }

  private grantTokens(userId: string, scopes: string[]): TokenAnswer {
    const accessToken = randomToken()
    const refreshToken = randomToken()
    const clientId = this.config.clientId
    this.accessTokens.set(accessToken, {
      userId,
      clientId,
      scopes,
      expiresAt: this.store.now() + ACCESS_TOKEN_SECONDS * 1000,
    })
    this.refreshTokens.set(refreshToken, { userId, clientId, scopes, accessToken })
    const body: RESTPostOAuth2AccessTokenResult = {
      access_token: accessToken,
      token_type: 'Bearer',
      expires_in: ACCESS_TOKEN_SECONDS,
      refresh_token: refreshToken,
      scope: scopes.join(' '),
    }
    return { status: 200, body, headers: TOKEN_HEADERS }
  }
}
