import type { UserRole } from '@edgeclub/shared'
import type { Transaction } from 'kysely'
import type { DB, UserRow } from '../../db/types'
import type { Clock } from '../../lib/clock'
import { badRequest, notFound } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import type { AuthRepository } from './auth-repository'
import type { SessionCache } from './session-cache'
import { toPublicUser } from './user-views'

/**
 * Member accounts as other modules use them: find one, tie it to its Stripe customer, make one
 * member's requests take turns, and the operator's changes (role, disabled). Signing in, sessions and
 * passwords stay in the auth service.
 */
export function createAccountsService(deps: {
  repo: AuthRepository
  /** Signed-in users kept in memory: a changed role or a disabled account counts on the next request. */
  sessions: Pick<SessionCache, 'forgetUser'>
  clock: Clock
}) {
  const { repo, clock } = deps

  async function findById(id: string): Promise<UserRow | undefined> {
    return isUuid(id) ? repo.findUserById(id) : undefined
  }

  async function memberOrThrow(id: string): Promise<UserRow> {
    const user = await findById(id)
    if (!user) throw notFound('Member not found')
    return user
  }

  return {
    findById,
    memberOrThrow,

    async setStripeCustomer(userId: string, stripeCustomerId: string): Promise<void> {
      await repo.updateUser(userId, { stripe_customer_id: stripeCustomerId })
    },

    /** The member's one free trial, ever: true for the first claim, false once it was had. */
    async claimTrial(userId: string, trx: Transaction<DB>): Promise<boolean> {
      return repo.claimTrial(userId, clock.now(), trx)
    },

    /** Holds the member's row until `trx` ends: that member's concurrent requests take turns. */
    lockForUpdate: (userId: string, trx: Transaction<DB>) => repo.lockUser(userId, trx),

    async setRole(actor: UserRow, userId: string, role: UserRole) {
      const user = await memberOrThrow(userId)
      if (user.id === actor.id && role !== 'admin') throw badRequest('You cannot remove your own admin role')
      // In a transaction of its own: the admin's audit row commits with the change (plugins/audit.ts).
      const updated = await repo.transaction((trx) =>
        repo.updateUser(user.id, { role, updated_at: clock.now() }, trx),
      )
      deps.sessions.forgetUser(user.id)
      return toPublicUser(updated ?? user)
    },

    /** Disabling signs the member out everywhere at once; they cannot sign in until enabled. */
    async setDisabled(actor: UserRow, userId: string, disabled: boolean) {
      const user = await memberOrThrow(userId)
      if (user.id === actor.id) throw badRequest('You cannot disable your own account')
      const now = clock.now()
      await repo.transaction(async (trx) => {
        await repo.updateUser(user.id, { disabled_at: disabled ? now : null, updated_at: now }, trx)
        if (disabled) await repo.revokeUserSessions(user.id, 'disabled-by-admin', now, trx)
      })
      deps.sessions.forgetUser(user.id)
      return { disabled }
    },
  }
}
export type AccountsService = ReturnType<typeof createAccountsService>
