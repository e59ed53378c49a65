import type { Kysely, Transaction } from 'kysely'
import { transactionRunner } from '../../db/transaction'
import type { DB, DiscordConnectionRow } from '../../db/types'

type Executor = Kysely<DB> | Transaction<DB>

/** Queries behind Connect Discord: OAuth2 states and the Discord accounts members proved are theirs. */
export function createDiscordConnectRepository(db: Kysely<DB>) {
  return {
    transaction: transactionRunner(db),

    async insertState(state: {
      hash: string
      userId: string
      codeChallenge: string
      now: Date
      expiresAt: Date
    }): Promise<void> {
      await db
        .insertInto('discord_oauth_states')
        .values({
          state_hash: state.hash,
          user_id: state.userId,
          code_challenge: state.codeChallenge,
          created_at: state.now,
          expires_at: state.expiresAt,
        })
        .execute()
    },

    findState(hash: string) {
      return db
        .selectFrom('discord_oauth_states')
        .selectAll()
        .where('state_hash', '=', hash)
        .executeTakeFirst()
    },

    /** Marks the state used; false when another request used it first (only one may). */
    async useState(id: string, now: Date): Promise<boolean> {
      const result = await db
        .updateTable('discord_oauth_states')
        .set({ used_at: now })
        .where('id', '=', id)
        .where('used_at', 'is', null)
        .executeTakeFirst()
      return Number(result.numUpdatedRows) === 1
    },

    async countStatesSince(userId: string, since: Date): Promise<number> {
      const row = await db
        .selectFrom('discord_oauth_states')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('created_at', '>', since)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    /** States nobody can use any more, past a day of keeping them for the rate limit and support. */
    async deleteStatesBefore(userId: string, before: Date): Promise<void> {
      await db
        .deleteFrom('discord_oauth_states')
        .where('user_id', '=', userId)
        .where('expires_at', '<', before)
        .execute()
    },

    /** The member's connected Discord account, if any. */
    findConnection(userId: string, trx: Executor = db): Promise<DiscordConnectionRow | undefined> {
      return trx
        .selectFrom('discord_connections')
        .selectAll()
        .where('user_id', '=', userId)
        .where('disconnected_at', 'is', null)
        .executeTakeFirst()
    },

    /** Who has this Discord account connected, if anyone. */
    findByDiscordId(discordUserId: string, trx: Executor = db): Promise<DiscordConnectionRow | undefined> {
      return trx
        .selectFrom('discord_connections')
        .selectAll()
        .where('discord_user_id', '=', discordUserId)
        .where('disconnected_at', 'is', null)
        .executeTakeFirst()
    },

    async insertConnection(
      connection: { userId: string; discordUserId: string; username: string; now: Date },
      trx: Executor,
    ): Promise<DiscordConnectionRow> {
      return trx
        .insertInto('discord_connections')
        .values({
          user_id: connection.userId,
          discord_user_id: connection.discordUserId,
          username: connection.username,
          verified_at: connection.now,
          created_at: connection.now,
        })
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    /** The same account proven again: its username may have changed on Discord. */
    async refreshConnection(
      id: string,
      username: string,
      now: Date,
      trx: Executor,
    ): Promise<DiscordConnectionRow> {
      return trx
        .updateTable('discord_connections')
        .set({ username, verified_at: now })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    async disconnect(id: string, now: Date, trx: Executor): Promise<void> {
      await trx
        .updateTable('discord_connections')
        .set({ disconnected_at: now })
        .where('id', '=', id)
        .execute()
    },

    async countDisconnectsSince(userId: string, since: Date): Promise<number> {
      const row = await db
        .selectFrom('discord_connections')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('user_id', '=', userId)
        .where('disconnected_at', '>', since)
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },
  }
}
export type DiscordConnectRepository = ReturnType<typeof createDiscordConnectRepository>
