import { type Kysely, sql, type Transaction } from 'kysely'
import { transactionRunner } from '../../db/transaction'
import type { DB, PushSubscriptionRow } from '../../db/types'

type Executor = Kysely<DB> | Transaction<DB>

/** The advisory lock under which the first instance makes the shared VAPID key pair. */
const VAPID_LOCK = 7263023

/** The NOTIFY channel that wakes every instance's push senders (jobs were queued). */
export const PUSH_CHANNEL = 'push_sends'

/** A subscription as a send reads it: with whether its member is disabled. */
export type PushSendRow = PushSubscriptionRow & { disabled_at: Date | null }

export interface NewPushSubscription {
  userId: string
  endpoint: string
  p256dh: string
  auth: string
  kinds: string[]
  sports: string[]
}

export function createPushRepository(db: Kysely<DB>) {
  return {
    transaction: transactionRunner(db),

    /** The same endpoint subscribing again (or for another member) updates its one row. */
    upsert(input: NewPushSubscription, trx: Executor = db): Promise<PushSubscriptionRow> {
      return trx
        .insertInto('push_subscriptions')
        .values({
          user_id: input.userId,
          endpoint: input.endpoint,
          p256dh: input.p256dh,
          auth: input.auth,
          kinds: JSON.stringify(input.kinds),
          sports: JSON.stringify(input.sports),
        })
        .onConflict((oc) =>
          oc.column('endpoint').doUpdateSet({
            user_id: input.userId,
            p256dh: input.p256dh,
            auth: input.auth,
            kinds: JSON.stringify(input.kinds),
            sports: JSON.stringify(input.sports),
          }),
        )
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    listForUser(userId: string, trx: Executor = db) {
      return trx
        .selectFrom('push_subscriptions')
        .selectAll()
        .where('user_id', '=', userId)
        .orderBy('created_at', 'desc')
        .orderBy('id')
        .execute()
    },

    findById(id: string, trx: Executor = db) {
      return trx.selectFrom('push_subscriptions').selectAll().where('id', '=', id).executeTakeFirst()
    },

    async deleteByEndpoint(userId: string, endpoint: string, trx: Executor = db): Promise<boolean> {
      const result = await trx
        .deleteFrom('push_subscriptions')
        .where('user_id', '=', userId)
        .where('endpoint', '=', endpoint)
        .executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },

    /** The push service said the subscription is gone: only that row, only as it was sent to. */
    async deleteGone(id: string, endpoint: string): Promise<boolean> {
      const result = await db
        .deleteFrom('push_subscriptions')
        .where('id', '=', id)
        .where('endpoint', '=', endpoint)
        .executeTakeFirst()
      return Number(result.numDeletedRows) > 0
    },

    deleteByIds(ids: string[], trx: Executor = db) {
      if (ids.length === 0) return Promise.resolve()
      return trx.deleteFrom('push_subscriptions').where('id', 'in', ids).execute()
    },

    setPreferences(userId: string, kinds: string[], sports: string[], trx: Executor = db) {
      return trx
        .updateTable('push_subscriptions')
        .set({ kinds: JSON.stringify(kinds), sports: JSON.stringify(sports) })
        .where('user_id', '=', userId)
        .execute()
    },

    /**
     * Subscriptions that asked for `kind` (and, for a pick, its sport or every sport), of members not
     * disabled; access is checked by the caller with the access rule.
     */
    listAudience(kind: string, sport: string | null, trx: Executor = db) {
      let query = trx
        .selectFrom('push_subscriptions')
        .innerJoin('users', 'users.id', 'push_subscriptions.user_id')
        .select(['push_subscriptions.id', 'push_subscriptions.user_id'])
        .where('users.disabled_at', 'is', null)
        .where(sql<boolean>`push_subscriptions.kinds @> ${JSON.stringify([kind])}::jsonb`)
      if (sport !== null)
        query = query.where(
          sql<boolean>`(push_subscriptions.sports = '[]'::jsonb or push_subscriptions.sports @> ${JSON.stringify([sport])}::jsonb)`,
        )
      return query.orderBy('push_subscriptions.id').execute()
    },

    /** Tells every instance's senders that jobs are waiting (delivered when `trx` commits). */
    async notifySenders(trx: Executor) {
      await sql`select pg_notify(${PUSH_CHANNEL}, '')`.execute(trx)
    },

    /** Subscriptions with their members' state at send time. */
    findForSend(ids: readonly string[]): Promise<PushSendRow[]> {
      if (ids.length === 0) return Promise.resolve([])
      return db
        .selectFrom('push_subscriptions')
        .innerJoin('users', 'users.id', 'push_subscriptions.user_id')
        .selectAll('push_subscriptions')
        .select('users.disabled_at')
        .where('push_subscriptions.id', 'in', ids)
        .execute()
    },

    /** The stored VAPID key pair, made now under an advisory lock if no instance made it before. */
    async sharedVapidKeys(make: () => { publicKey: string; privateKey: string }) {
      return db.transaction().execute(async (trx) => {
        await sql`select pg_advisory_xact_lock(${VAPID_LOCK})`.execute(trx)
        const stored = await trx
          .selectFrom('push_vapid_keys')
          .selectAll()
          .where('id', '=', 1)
          .executeTakeFirst()
        if (stored) return { publicKey: stored.public_key, privateKey: stored.private_key }
        const keys = make()
        await trx
          .insertInto('push_vapid_keys')
          .values({ id: 1, public_key: keys.publicKey, private_key: keys.privateKey })
          .execute()
        return keys
      })
    },
  }
}
export type PushRepository = ReturnType<typeof createPushRepository>
