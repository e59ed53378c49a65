import { createHmac, randomUUID } from 'node:crypto'
import {
  authMessages,
  type PublicUser,
  paths,
  type RegisterRequest,
  type UpdateProfile,
} from '@edgeclub/shared'
import type { UserRow } from '../../db/types'
import { addMs, type Clock, DAY, HOUR, MINUTE } from '../../lib/clock'
import { randomToken, sha256 } from '../../lib/crypto'
import { badRequest, conflict, rateLimited, unauthorized } from '../../lib/errors'
import { emailReference, type RequestOrigin, securityEvent } from '../../lib/security-log'
import { passwordChangedEmail, resetEmail, welcomeEmail } from '../../mail/account-emails'
import type { MailQueue } from '../../mail/mail-queue'
import type { Jobs } from '../../queue/job-runner'
import type { AccessTokens } from './access-tokens'
import type { AuthRepository } from './auth-repository'
import { isCommonPassword } from './common-passwords'
import { hashPassword, needsRehash, timingDummyHash, verifyPassword } from './passwords'
import type { SessionCache } from './session-cache'
import { toPublicUser } from './user-views'

const REMEMBER_ME_TTL = 30 * DAY
const SESSION_TTL = DAY
const LOCKOUT_WINDOW = 15 * MINUTE
const LOCKOUT_FAILURES = 10
const RESET_TTL = 30 * MINUTE
const RESETS_PER_HOUR = 4
/** A link this close to its expiry when its email finally goes out is replaced by a fresh one. */
const RESET_MIN_LEFT = 5 * MINUTE

export interface AuthContext {
  user: UserRow
  sessionId: string
}

/** The request a call comes from: its address and logger (for security events) and user agent. */
export interface ClientMeta extends RequestOrigin {
  userAgent: string | null
}

export interface Tokens {
  accessToken: string
  refreshToken: string
}

export const normalizeEmail = (email: string) => email.trim().toLowerCase()

/**
 * Accounts and sessions: argon2id passwords, short access tokens with rotating refresh tokens (a
 * reused one revokes its family), lockout per account, single-use reset links that are stored only
 * hashed, and the same answers for known and unknown emails.
 */
export function createAuthService(deps: {
  repo: AuthRepository
  accessTokens: AccessTokens
  mail: MailQueue
  jobs: Pick<Jobs, 'enqueue'>
  clock: Clock
  appOrigin: string
  /** Makes reset links from their row ids, so a retried email resends the same link without storing it. */
  resetLinkSecret: string
  /** Keys the hash that stands for an email address in security events when no account is known. */
  emailLogKey: string
  /** The live sessions' users kept in memory; forgotten here after every change this service commits. */
  sessions: SessionCache
}) {
  const { repo, clock, sessions } = deps
  const resetToken = (resetId: string) =>
    createHmac('sha256', deps.resetLinkSecret).update(`password-reset:${resetId}`).digest('base64url')

  /** Refused with the field's message before anything is stored. */
  async function refuseCommonPassword(password: string, field: string): Promise<void> {
    if (await isCommonPassword(password))
      throw badRequest(authMessages.passwordTooCommon, [{ field, message: authMessages.passwordTooCommon }])
  }

  async function issueSession(user: UserRow, remember: boolean, meta: ClientMeta): Promise<Tokens> {
    const refreshToken = randomToken()
    const sessionId = await repo.transaction(async (trx) => {
      const id = await repo.createSession(
        { userId: user.id, remember, userAgent: meta.userAgent, ip: meta.ip },
        trx,
      )
      await repo.insertRefreshToken(
        {
          sessionId: id,
          tokenHash: sha256(refreshToken),
          expiresAt: addMs(clock.now(), remember ? REMEMBER_ME_TTL : SESSION_TTL),
        },
        trx,
      )
      return id
    })
    const accessToken = await deps.accessTokens.sign({ userId: user.id, role: user.role, sessionId })
    return { accessToken, refreshToken }
  }

  return {
    async register(input: RegisterRequest, meta: ClientMeta): Promise<{ user: PublicUser; tokens: Tokens }> {
      await refuseCommonPassword(input.password, 'password')
      const now = clock.now()
      const row = await repo.insertUser({
        email: input.email,
        email_normalized: normalizeEmail(input.email),
        password_hash: await hashPassword(input.password),
        first_name: input.firstName,
        last_name: input.lastName,
        discord_username: input.discordUsername,
        trading_interests: input.tradingInterests || null,
        email_updates: input.emailUpdates ?? false,
        agreed_terms_at: input.agreeToTerms ? now : null,
        age_confirmed_at: input.ageConfirmation ? now : null,
        password_changed_at: now,
      })
      if (!row) throw conflict(authMessages.emailTaken)
      await deps.mail.enqueue(welcomeEmail(row.email, row.first_name, deps.appOrigin))
      return { user: toPublicUser(row), tokens: await issueSession(row, false, meta) }
    },

    async login(
      input: { email: string; password: string; rememberMe?: boolean },
      meta: ClientMeta,
    ): Promise<{ user: PublicUser; tokens: Tokens }> {
      const email = normalizeEmail(input.email)
      const since = addMs(clock.now(), -LOCKOUT_WINDOW)
      const user = await repo.findUserByEmail(email)
      const who = user ? { userId: user.id } : emailReference(deps.emailLogKey, email)
      const failures = await repo.countLoginFailuresSince(email, since)
      if (failures >= LOCKOUT_FAILURES) {
        securityEvent(meta, 'auth.login.failed', { ...who, reason: 'locked' })
        throw rateLimited(authMessages.tooManyAttempts, LOCKOUT_WINDOW / 1000)
      }
      // Unknown emails cost the same argon2 work as known ones, so timing tells nothing.
      const valid = await verifyPassword(user?.password_hash ?? (await timingDummyHash()), input.password)
      // A disabled account answers the right password exactly as a wrong one (and counts it as a
      // failure), so the answer never confirms a guessed password.
      if (!user || !valid || user.disabled_at) {
        await repo.recordLoginFailure(email, meta.ip, clock.now())
        const reason = !user ? 'unknown-email' : !valid ? 'wrong-password' : 'disabled'
        securityEvent(meta, 'auth.login.failed', { ...who, reason })
        if (failures + 1 === LOCKOUT_FAILURES)
          securityEvent(meta, 'auth.lockout', { ...who, failures: LOCKOUT_FAILURES })
        throw unauthorized(authMessages.badCredentials)
      }
      let current = user
      if (needsRehash(user.password_hash)) {
        current =
          (await repo.updateUser(user.id, { password_hash: await hashPassword(input.password) })) ?? user
        sessions.forgetUser(user.id)
      }
      const tokens = await issueSession(current, input.rememberMe ?? false, meta)
      securityEvent(meta, 'auth.login.succeeded', { userId: current.id })
      return { user: toPublicUser(current), tokens }
    },

    /** Rotates the refresh token; a token used twice revokes its whole session. */
    async refresh(refreshToken: string, origin: RequestOrigin): Promise<Tokens> {
      const now = clock.now()
      const next = randomToken()
      const outcome = await repo.transaction(async (trx) => {
        const row = await repo.findRefreshTokenForUpdate(sha256(refreshToken), trx)
        if (!row) return { kind: 'invalid' as const }
        if (row.used_at || row.revoked_at) {
          await repo.revokeSession(row.session_id, 'refresh-token-reuse', now, trx)
          return { kind: 'reused' as const, userId: row.user_id, sessionId: row.session_id }
        }
        if (new Date(row.expires_at) <= now || row.disabled_at) return { kind: 'invalid' as const }
        await repo.markRefreshTokenUsed(row.token_id, now, trx)
        await repo.insertRefreshToken(
          {
            sessionId: row.session_id,
            tokenHash: sha256(next),
            expiresAt: addMs(now, row.remember ? REMEMBER_ME_TTL : SESSION_TTL),
          },
          trx,
        )
        await repo.touchSession(row.session_id, now, trx)
        return { kind: 'rotated' as const, userId: row.user_id, sessionId: row.session_id }
      })
      // A spent token presented again was copied: the whole session is revoked.
      if (outcome.kind === 'reused') {
        sessions.forgetUser(outcome.userId)
        securityEvent(origin, 'auth.refresh.reused', { userId: outcome.userId, sessionId: outcome.sessionId })
      }
      if (outcome.kind !== 'rotated') throw unauthorized(authMessages.sessionExpired)
      const user = await repo.findUserById(outcome.userId)
      if (!user) throw unauthorized(authMessages.sessionExpired)
      const accessToken = await deps.accessTokens.sign({
        userId: user.id,
        role: user.role,
        sessionId: outcome.sessionId,
      })
      return { accessToken, refreshToken: next }
    },

    /**
     * The signed-in user behind an access token, or null. Checked against the session on every call
     * (through the session cache, which forgets a session the moment it or its user changes).
     */
    async authenticate(accessToken: string): Promise<AuthContext | null> {
      const claims = await deps.accessTokens.verify(accessToken)
      if (!claims) return null
      const user = await sessions.get(claims.sessionId, claims.userId, () =>
        repo.findActiveSessionUser(claims.sessionId, claims.userId),
      )
      return user ? { user, sessionId: claims.sessionId } : null
    },

    /**
     * The signed-in user as stored now: read from the database, not from the session cache, so the
     * profile is never older than its row and, like every other read, needs the database.
     */
    async profile(userId: string): Promise<PublicUser> {
      const row = await repo.findUserById(userId)
      if (!row || row.disabled_at) throw unauthorized(authMessages.sessionExpired)
      return toPublicUser(row)
    },

    async logout(auth: AuthContext): Promise<void> {
      await repo.revokeSession(auth.sessionId, 'logout', clock.now())
      sessions.forgetUser(auth.user.id)
    },

    async logoutAll(userId: string): Promise<void> {
      await repo.revokeUserSessions(userId, 'logout-all', clock.now())
      sessions.forgetUser(userId)
    },

    async updateProfile(user: UserRow, changes: UpdateProfile): Promise<PublicUser> {
      const update: Parameters<AuthRepository['updateUser']>[1] = { updated_at: clock.now() }
      if (changes.firstName !== undefined) update.first_name = changes.firstName
      if (changes.lastName !== undefined) update.last_name = changes.lastName
      if (changes.discordUsername !== undefined) update.discord_username = changes.discordUsername
      if (changes.tradingInterests !== undefined) update.trading_interests = changes.tradingInterests || null
      if (changes.emailUpdates !== undefined) update.email_updates = changes.emailUpdates
      if (changes.email !== undefined && normalizeEmail(changes.email) !== user.email_normalized) {
        if (!changes.currentPassword) {
          throw badRequest(authMessages.currentPasswordRequired, [
            { field: 'currentPassword', message: authMessages.currentPasswordRequired },
          ])
        }
        if (!(await verifyPassword(user.password_hash, changes.currentPassword))) {
          throw badRequest(authMessages.currentPasswordWrong, [
            { field: 'currentPassword', message: authMessages.currentPasswordWrong },
          ])
        }
        const taken = await repo.findUserByEmail(normalizeEmail(changes.email))
        if (taken) throw conflict(authMessages.emailTaken)
        update.email = changes.email
        update.email_normalized = normalizeEmail(changes.email)
      }
      try {
        const row = await repo.updateUser(user.id, update)
        sessions.forgetUser(user.id)
        if (!row) throw unauthorized()
        return toPublicUser(row)
      } catch (error) {
        // Two accounts racing for one new email: the unique index decides.
        if (error instanceof Error && /email_normalized/.test(error.message))
          throw conflict(authMessages.emailTaken)
        throw error
      }
    },

    async changePassword(
      auth: AuthContext,
      input: { currentPassword: string; newPassword: string },
      meta: ClientMeta,
    ): Promise<Tokens> {
      if (!(await verifyPassword(auth.user.password_hash, input.currentPassword))) {
        throw badRequest(authMessages.currentPasswordWrong, [
          { field: 'currentPassword', message: authMessages.currentPasswordWrong },
        ])
      }
      await refuseCommonPassword(input.newPassword, 'newPassword')
      const now = clock.now()
      const passwordHash = await hashPassword(input.newPassword)
      await repo.transaction(async (trx) => {
        await repo.updateUser(
          auth.user.id,
          { password_hash: passwordHash, password_changed_at: now, updated_at: now },
          trx,
        )
        await repo.revokeUserSessions(auth.user.id, 'password-changed', now, trx)
      })
      sessions.forgetUser(auth.user.id)
      await deps.mail.enqueue(passwordChangedEmail(auth.user.email, auth.user.first_name, 'changed'))
      // This device stays signed in with a fresh session; every other one is out.
      return issueSession(auth.user, false, meta)
    },

    /** The same answer, at the same speed, whether or not the email has an account: the work is a job. */
    async requestPasswordReset(email: string, origin: RequestOrigin): Promise<void> {
      const requestKey = randomUUID()
      const normalized = normalizeEmail(email)
      await deps.jobs.enqueue(
        'auth.password-reset',
        { email: normalized, requestKey },
        { key: `password-reset:${requestKey}` },
      )
      // Whether the address has an account is the job's to find out; the event names the address only.
      securityEvent(origin, 'auth.reset.requested', emailReference(deps.emailLogKey, normalized))
    },

    /**
     * The job behind one reset request: at most 4 requests an hour per address. However many times
     * its email is retried (mail down), the request has one live link: the same one is sent again,
     * and only a link that expired meanwhile is replaced. A link voided by a newer request is not sent.
     */
    async sendPasswordReset(
      emailNormalized: string,
      requestKey: string,
    ): Promise<'sent' | 'unknown' | 'throttled' | 'superseded'> {
      const user = await repo.findUserByEmail(emailNormalized)
      if (!user || user.disabled_at) return 'unknown'
      const now = clock.now()
      // Under the user's row lock: concurrent requests of one member count against the budget one by one.
      const reset = await repo.transaction(async (trx) => {
        await repo.lockUser(user.id, trx)
        const existing = await repo.findResetOfRequest(user.id, requestKey, trx)
        if (existing?.used_at) return 'superseded' as const
        if (existing && new Date(existing.expires_at).getTime() - now.getTime() >= RESET_MIN_LEFT)
          return existing
        if (
          !existing &&
          (await repo.countResetRequestsSince(user.id, addMs(now, -HOUR), trx)) >= RESETS_PER_HOUR
        )
          return 'throttled' as const
        const id = randomUUID()
        return repo.replaceResetToken(
          {
            id,
            userId: user.id,
            requestKey,
            tokenHash: sha256(resetToken(id)),
            expiresAt: addMs(now, RESET_TTL),
            at: now,
          },
          trx,
        )
      })
      if (reset === 'superseded' || reset === 'throttled') return reset
      // Sent from this job, not queued again, so the raw token is never stored anywhere.
      const link = `${deps.appOrigin}${paths.resetPassword}?token=${encodeURIComponent(resetToken(reset.id))}`
      await deps.mail.sendNow(
        { ...resetEmail(user.email, user.first_name, link), messageId: `<reset-${reset.id}@edgeclub>` },
        `password-reset-link:${reset.id}`,
      )
      return 'sent'
    },

    async resetPassword(token: string, password: string, origin: RequestOrigin): Promise<void> {
      const now = clock.now()
      const common = await isCommonPassword(password)
      const passwordHash = await hashPassword(password)
      const user = await repo.transaction(async (trx) => {
        const reset = await repo.findResetForUpdate(sha256(token), trx)
        if (!reset || reset.used_at || new Date(reset.expires_at) <= now) return undefined
        // A dead link says so first; a live one is kept until the new password is acceptable.
        if (common) return 'common' as const
        await repo.markResetUsed(reset.id, now, trx)
        const updated = await repo.updateUser(
          reset.user_id,
          { password_hash: passwordHash, password_changed_at: now, updated_at: now },
          trx,
        )
        await repo.revokeUserSessions(reset.user_id, 'password-reset', now, trx)
        return updated
      })
      if (user && user !== 'common') sessions.forgetUser(user.id)
      if (!user)
        throw badRequest(authMessages.resetLinkInvalid, [
          { field: 'token', message: authMessages.resetLinkInvalid },
        ])
      if (user === 'common')
        throw badRequest(authMessages.passwordTooCommon, [
          { field: 'password', message: authMessages.passwordTooCommon },
        ])
      securityEvent(origin, 'auth.reset.completed', { userId: user.id })
      await deps.mail.enqueue(passwordChangedEmail(user.email, user.first_name, 'reset'))
    },
  }
}
export type AuthService = ReturnType<typeof createAuthService>
