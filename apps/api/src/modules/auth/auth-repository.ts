import { type Insertable, type Kysely, sql, type Transaction, type Updateable } from 'kysely'
import { transactionRunner } from '../../db/transaction'
import type { DB, UserRow, UsersTable } from '../../db/types'

type Executor = Kysely<DB> | Transaction<DB>

export function createAuthRepository(db: Kysely<DB>) {
  return {
    transaction: transactionRunner(db),

    findUserByEmail(emailNormalized: string, trx: Executor = db): Promise<UserRow | undefined> {
      return trx
        .selectFrom('users')
        .selectAll()
        .where('email_normalized', '=', emailNormalized)
        .executeTakeFirst()
    },

    findUserById(id: string, trx: Executor = db): Promise<UserRow | undefined> {
      return trx.selectFrom('users').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** Inserts unless the email is taken; undefined then (no exception, no race). */
    insertUser(user: Insertable<UsersTable>, trx: Executor = db): Promise<UserRow | undefined> {
      return trx
        .insertInto('users')
        .values(user)
        .onConflict((oc) => oc.column('email_normalized').doNothing())
        .returningAll()
        .executeTakeFirst()
    },

    updateUser(
      id: string,
      changes: Updateable<UsersTable>,
      trx: Executor = db,
    ): Promise<UserRow | undefined> {
      return trx.updateTable('users').set(changes).where('id', '=', id).returningAll().executeTakeFirst()
    },

    /** The user behind a live session, or undefined when the session was revoked or the user disabled. */
    findActiveSessionUser(
      sessionId: string,
      userId: string,
      trx: Executor = db,
    ): Promise<UserRow | undefined> {
      return trx
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .selectAll('users')
        .where('sessions.id', '=', sessionId)
        .where('sessions.user_id', '=', userId)
        .where('sessions.revoked_at', 'is', null)
        .where('users.disabled_at', 'is', null)
        .executeTakeFirst()
    },

    async createSession(
      session: { userId: string; remember: boolean; userAgent: string | null; ip: string | null },
      trx: Executor = db,
    ): Promise<string> {
      const row = await trx
        .insertInto('sessions')
        .values({
          user_id: session.userId,
          remember: session.remember,
          user_agent: session.userAgent,
          ip: session.ip,
        })
        .returning('id')
        .executeTakeFirstOrThrow()
      return row.id
    },

    insertRefreshToken(token: { sessionId: string; tokenHash: string; expiresAt: Date }, trx: Executor = db) {
      return trx
        .insertInto('refresh_tokens')
        .values({ session_id: token.sessionId, token_hash: token.tokenHash, expires_at: token.expiresAt })
        .execute()
    },

    /** The refresh token with its session, locked for the rotation that follows. */
    findRefreshTokenForUpdate(tokenHash: string, trx: Transaction<DB>) {
      return trx
        .selectFrom('refresh_tokens')
        .innerJoin('sessions', 'sessions.id', 'refresh_tokens.session_id')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select([
          'refresh_tokens.id as token_id',
          'refresh_tokens.expires_at',
          'refresh_tokens.used_at',
          'sessions.id as session_id',
          'sessions.remember',
          'sessions.revoked_at',
          'users.id as user_id',
          'users.disabled_at',
        ])
        .where('refresh_tokens.token_hash', '=', tokenHash)
        .forUpdate()
        .executeTakeFirst()
    },

    markRefreshTokenUsed(tokenId: string, at: Date, trx: Executor = db) {
      return trx.updateTable('refresh_tokens').set({ used_at: at }).where('id', '=', tokenId).execute()
    },

    touchSession(sessionId: string, at: Date, trx: Executor = db) {
      return trx.updateTable('sessions').set({ last_used_at: at }).where('id', '=', sessionId).execute()
    },

    revokeSession(sessionId: string, reason: string, at: Date, trx: Executor = db) {
      return trx
        .updateTable('sessions')
        .set({ revoked_at: at, revoke_reason: reason })
        .where('id', '=', sessionId)
        .where('revoked_at', 'is', null)
        .execute()
    },

    revokeUserSessions(userId: string, reason: string, at: Date, trx: Executor = db) {
      return trx
        .updateTable('sessions')
        .set({ revoked_at: at, revoke_reason: reason })
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .execute()
    },

    recordLoginFailure(emailNormalized: string, ip: string | null, at: Date) {
      return db
        .insertInto('login_failures')
        .values({ email_normalized: emailNormalized, ip, created_at: at })
        .execute()
    },

    async countLoginFailuresSince(emailNormalized: string, since: Date): Promise<number> {
      const row = await db
        .selectFrom('login_failures')
        .select((eb) => eb.fn.countAll<number>().as('count'))
        .where('email_normalized', '=', emailNormalized)
        .where('created_at', '>', since)
        .executeTakeFirst()
      return Number(row?.count ?? 0)
    },

    /** Serializes work on one user's rows (e.g. their reset budget) inside a transaction. */
    /** Marks the member's one trial as used unless it was: true when this call did. */
    async claimTrial(userId: string, at: Date, trx: Executor = db): Promise<boolean> {
      const claimed = await trx
        .updateTable('users')
        .set({ trial_used_at: at })
        .where('id', '=', userId)
        .where('trial_used_at', 'is', null)
        .returning('id')
        .executeTakeFirst()
      return Boolean(claimed)
    },

    async lockUser(userId: string, trx: Transaction<DB>): Promise<void> {
      await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute()
    },

    /** Reset requests of a user since `since`: a request counts once however many links it needed. */
    async countResetRequestsSince(userId: string, since: Date, trx: Executor = db): Promise<number> {
      const row = await trx
        .selectFrom('password_resets')
        .select(sql<number>`count(distinct coalesce(request_key, id::text))`.as('count'))
        .where('user_id', '=', userId)
        .where('created_at', '>', since)
        .executeTakeFirst()
      return Number(row?.count ?? 0)
    },

    /** The newest link made for one reset request, if any. */
    findResetOfRequest(userId: string, requestKey: string, trx: Executor = db) {
      return trx
        .selectFrom('password_resets')
        .selectAll()
        .where('user_id', '=', userId)
        .where('request_key', '=', requestKey)
        .orderBy('created_at', 'desc')
        .executeTakeFirst()
    },

    /** A new reset link voids every older unused one of the same user. */
    async replaceResetToken(
      reset: { id: string; userId: string; requestKey: string; tokenHash: string; expiresAt: Date; at: Date },
      trx: Executor = db,
    ) {
      await trx
        .updateTable('password_resets')
        .set({ used_at: reset.at })
        .where('user_id', '=', reset.userId)
        .where('used_at', 'is', null)
        .execute()
      return trx
        .insertInto('password_resets')
        .returningAll()
        .values({
          id: reset.id,
          user_id: reset.userId,
          request_key: reset.requestKey,
          token_hash: reset.tokenHash,
          expires_at: reset.expiresAt,
          created_at: reset.at,
        })
        .executeTakeFirstOrThrow()
    },

    findResetForUpdate(tokenHash: string, trx: Transaction<DB>) {
      return trx
        .selectFrom('password_resets')
        .selectAll()
        .where('token_hash', '=', tokenHash)
        .forUpdate()
        .executeTakeFirst()
    },

    markResetUsed(id: string, at: Date, trx: Executor = db) {
      return trx.updateTable('password_resets').set({ used_at: at }).where('id', '=', id).execute()
    },
  }
}
export type AuthRepository = ReturnType<typeof createAuthRepository>
