import type { Insertable, Kysely, Transaction, Updateable } from 'kysely'
import { transactionRunner } from '../../db/transaction'
import type {
  BroadcastDeliveriesTable,
  BroadcastsTable,
  DB,
  DiscordLinkRow,
  DiscordLinksTable,
} from '../../db/types'
import { hasAccessAt } from '../subscriptions/access-rule'

export function createCommunityRepository(db: Kysely<DB>) {
  return {
    transaction: transactionRunner(db),

    findLink(userId: string): Promise<DiscordLinkRow | undefined> {
      return db.selectFrom('discord_links').selectAll().where('user_id', '=', userId).executeTakeFirst()
    },

    async saveLink(
      userId: string,
      changes: Updateable<DiscordLinksTable>,
      now: Date,
      trx: Kysely<DB> | Transaction<DB> = db,
    ): Promise<void> {
      await trx
        .insertInto('discord_links')
        .values({ user_id: userId, updated_at: now, ...changes } as never)
        .onConflict((oc) => oc.column('user_id').doUpdateSet({ ...changes, updated_at: now }))
        .execute()
    },

    /** The member's newest invite that is neither revoked nor past its expiry. */
    findLiveInvite(userId: string, now: Date) {
      return db
        .selectFrom('discord_invites')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .orderBy('created_at', 'desc')
        .executeTakeFirst()
    },

    listLiveInvites(userId: string, now: Date) {
      return db
        .selectFrom('discord_invites')
        .selectAll()
        .where('user_id', '=', userId)
        .where('revoked_at', 'is', null)
        .where('expires_at', '>', now)
        .execute()
    },

    async countInvitesSince(userId: string, since: Date): Promise<number> {
      const row = await db
        .selectFrom('discord_invites')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('created_at', '>', since)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    insertInvite(invite: { userId: string; code: string; maxUses: number; expiresAt: Date; now: Date }) {
      return db
        .insertInto('discord_invites')
        .values({
          user_id: invite.userId,
          code: invite.code,
          max_uses: invite.maxUses,
          expires_at: invite.expiresAt,
          created_at: invite.now,
        })
        .execute()
    },

    revokeInvite(code: string, now: Date, trx: Kysely<DB> | Transaction<DB> = db) {
      return trx.updateTable('discord_invites').set({ revoked_at: now }).where('code', '=', code).execute()
    },

    /**
     * Everyone the role sync should look at: members with a Discord record or with access, and a
     * Discord account to look for (a typed username or a connected account).
     */
    async syncCandidates(now: Date): Promise<string[]> {
      const rows = await db
        .selectFrom('users')
        .select('users.id')
        .where((eb) =>
          eb.or([
            eb.exists(
              eb
                .selectFrom('discord_links')
                .select('user_id')
                .whereRef('discord_links.user_id', '=', 'users.id'),
            ),
            eb.exists(
              eb
                .selectFrom('subscriptions')
                .select('id')
                .whereRef('subscriptions.user_id', '=', 'users.id')
                .where((inner) => hasAccessAt(inner, now)),
            ),
          ]),
        )
        .where((eb) =>
          eb.or([
            eb('users.discord_username', '!=', ''),
            eb.exists(
              eb
                .selectFrom('discord_connections')
                .select('discord_connections.id')
                .whereRef('discord_connections.user_id', '=', 'users.id')
                .where('discord_connections.disconnected_at', 'is', null),
            ),
          ]),
        )
        .execute()
      return rows.map((row) => row.id)
    },

    listLinkedForDrift(limit: number) {
      return db
        .selectFrom('discord_links')
        .selectAll()
        .where('discord_user_id', 'is not', null)
        .where('state', '=', 'joined')
        .orderBy('updated_at', 'desc')
        .limit(limit)
        .execute()
    },

    /** A broadcast by its id, with what each channel did with it. */
    async findBroadcast(id: string) {
      const broadcast = await db.selectFrom('broadcasts').selectAll().where('id', '=', id).executeTakeFirst()
      if (!broadcast) return undefined
      const deliveries = await db
        .selectFrom('broadcast_deliveries')
        .selectAll()
        .where('broadcast_id', '=', id)
        .orderBy('created_at')
        .orderBy('channel')
        .execute()
      return { broadcast, deliveries }
    },

    /** The broadcast's record and its channels' deliveries, in the transaction of its outbox jobs. */
    async insertBroadcast(
      broadcast: Insertable<BroadcastsTable>,
      deliveries: Omit<Insertable<BroadcastDeliveriesTable>, 'broadcast_id'>[],
      trx: Transaction<DB>,
    ): Promise<void> {
      await trx.insertInto('broadcasts').values(broadcast).execute()
      if (deliveries.length > 0)
        await trx
          .insertInto('broadcast_deliveries')
          .values(deliveries.map((delivery) => ({ ...delivery, broadcast_id: broadcast.id })))
          .execute()
    },

    listEmailSubscribers(trx: Kysely<DB> | Transaction<DB> = db) {
      return trx
        .selectFrom('users')
        .select(['id', 'email', 'first_name'])
        .where('email_updates', '=', true)
        .where('disabled_at', 'is', null)
        .execute()
    },
  }
}
export type CommunityRepository = ReturnType<typeof createCommunityRepository>
