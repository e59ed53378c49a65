import { type Kysely, sql, type Transaction } from 'kysely'
import type { DB } from '../db/types'

/** Where a send stood when a step asked: the mail worker's record of each message (mail_deliveries). */
export type SendStart =
  | { accepted: true }
  /** `interrupted`: an earlier send of this message started and never finished (the process died). */
  | { accepted: false; interrupted: boolean; attempts: number }

/**
 * One step's write, committed without waiting for the disk (synchronous_commit off, for this
 * transaction only). A process that dies loses nothing by it: PostgreSQL has the commit. Only a crash
 * of PostgreSQL itself in the next fraction of a second could lose the step, and then the message is
 * sent again with its Message-ID. Waiting for the disk twice per email made a broadcast several times
 * slower.
 */
function quickly<T>(db: Kysely<DB>, write: (trx: Transaction<DB>) => Promise<T>): Promise<T> {
  return db.transaction().execute(async (trx) => {
    await sql`set local synchronous_commit = off`.execute(trx)
    return write(trx)
  })
}

/**
 * The record of each email's send, written in three short steps that each commit on their own:
 * starting, (the SMTP conversation), accepted. Only the message in flight when a process dies is left
 * 'sending'; everything before it is 'accepted' and is never sent again.
 */
export function createMailDeliveries(db: Kysely<DB>) {
  return {
    /** Step 1: this message's send is starting (one statement, its own commit). */
    async start(key: string, messageId: string): Promise<SendStart> {
      // The prior state is read in the same statement that writes 'sending', and an accepted message is
      // left exactly as it was.
      const result = await quickly(db, (trx) =>
        sql<{ prior: string | null; attempts: number | null }>`
        with prior as (
          select state from mail_deliveries where key = ${key} for update
        ), started as (
          insert into mail_deliveries (key, message_id, state, attempts, started_at)
          values (${key}, ${messageId}, 'sending', 1, now())
          on conflict (key) do update
            set state = 'sending', attempts = mail_deliveries.attempts + 1, started_at = now()
            where mail_deliveries.state <> 'accepted'
          returning attempts
        )
        select (select state from prior) as prior, (select attempts from started) as attempts`.execute(trx),
      )
      const row = result.rows[0]
      if (!row || row.prior === 'accepted' || row.attempts === null) return { accepted: true }
      return { accepted: false, interrupted: row.prior === 'sending', attempts: row.attempts }
    },

    /** Step 3: the server took the message. */
    async accepted(key: string): Promise<void> {
      await quickly(db, (trx) =>
        trx
          .updateTable('mail_deliveries')
          .set({ state: 'accepted', accepted_at: sql<Date>`now()` })
          .where('key', '=', key)
          .execute(),
      )
    },

    /** The send failed before the server took it: the next try is a plain retry, not a repeat. */
    async failed(key: string): Promise<void> {
      await db
        .updateTable('mail_deliveries')
        .set({ state: 'failed' })
        .where('key', '=', key)
        .where('state', '=', 'sending')
        .execute()
    },

    /** Records older than any job that could still send them (pg-boss keeps jobs for days, not weeks). */
    async prune(olderThanDays: number): Promise<number> {
      const result = await db
        .deleteFrom('mail_deliveries')
        .where('started_at', '<', sql<Date>`now() - make_interval(days => ${olderThanDays})`)
        .executeTakeFirst()
      return Number(result.numDeletedRows)
    },
  }
}
export type MailDeliveries = ReturnType<typeof createMailDeliveries>
