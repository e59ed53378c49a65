import { type Kysely, sql, type Transaction } from 'kysely'
import { isAnyOf } from '../../db/any-of'
import { transactionRunner } from '../../db/transaction'
import type { DB, SignalLedgerRow, SignalRow } from '../../db/types'
import { hasAccessAt } from '../subscriptions/access-rule'

type Executor = Kysely<DB> | Transaction<DB>

/** One advisory lock serializes appends, so the chain has exactly one entry per sequence number. */
export const LEDGER_LOCK = 7_431_001

export interface NewSignal {
  id: string
  kind: 'pick' | 'signal'
  content: Record<string, unknown>
  salt: string
  commitment: string
  category: string
  startsAt: Date | null
  expiresAt: Date | null
  stake: number
  publishedSeq: number
  publishedBy: string | null
  publishedAt: Date
}

export interface NewLedgerEntry {
  seq: number
  type: 'publish' | 'settle' | 'void'
  signalId: string
  at: string
  prevHash: string
  hash: string
  data: Record<string, unknown>
}

export function createSignalsRepository(db: Kysely<DB>) {
  return {
    transaction: transactionRunner(db),

    /** Taken inside the transaction that appends: held until it commits or rolls back. */
    async lockLedger(trx: Transaction<DB>): Promise<void> {
      await sql`select pg_advisory_xact_lock(${LEDGER_LOCK})`.execute(trx)
    },

    head(trx: Executor = db): Promise<Pick<SignalLedgerRow, 'seq' | 'hash'> | undefined> {
      return trx
        .selectFrom('signal_ledger')
        .select(['seq', 'hash'])
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst()
    },

    async appendEntry(entry: NewLedgerEntry, trx: Transaction<DB>): Promise<void> {
      await trx
        .insertInto('signal_ledger')
        .values({
          seq: entry.seq,
          type: entry.type,
          signal_id: entry.signalId,
          at: entry.at,
          prev_hash: entry.prevHash,
          hash: entry.hash,
          data: JSON.stringify(entry.data),
        })
        .execute()
    },

    async insertSignal(signal: NewSignal, trx: Transaction<DB>): Promise<SignalRow> {
      return trx
        .insertInto('signals')
        .values({
          id: signal.id,
          kind: signal.kind,
          content: JSON.stringify(signal.content),
          salt: signal.salt,
          commitment: signal.commitment,
          category: signal.category,
          starts_at: signal.startsAt,
          expires_at: signal.expiresAt,
          stake: signal.stake,
          published_seq: signal.publishedSeq,
          published_by: signal.publishedBy,
          published_at: signal.publishedAt,
        })
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    findById(id: string, trx: Executor = db): Promise<SignalRow | undefined> {
      return trx.selectFrom('signals').selectAll().where('id', '=', id).executeTakeFirst()
    },

    findByIdForUpdate(id: string, trx: Transaction<DB>): Promise<SignalRow | undefined> {
      return trx.selectFrom('signals').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    },

    close(
      id: string,
      outcome:
        | {
            status: 'settled'
            result: 'won' | 'lost' | 'push' | 'closed'
            profitUnits: number
            exitPrice: number | null
          }
        | { status: 'void'; reason: string },
      by: string | null,
      at: Date,
      trx: Transaction<DB>,
    ): Promise<SignalRow> {
      return trx
        .updateTable('signals')
        .set(
          outcome.status === 'settled'
            ? {
                status: 'settled',
                result: outcome.result,
                profit_units: outcome.profitUnits,
                exit_price: outcome.exitPrice,
                settled_by: by,
                settled_at: at,
              }
            : { status: 'void', void_reason: outcome.reason, settled_by: by, settled_at: at },
        )
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    /** Newest first by publication; `before` is a publication sequence number (the cursor). */
    list(query: { before?: number; limit: number; kind?: 'pick' | 'signal'; category?: string }) {
      let select = db.selectFrom('signals').selectAll().orderBy('published_seq', 'desc').limit(query.limit)
      if (query.before) select = select.where('published_seq', '<', query.before)
      if (query.kind) select = select.where('kind', '=', query.kind)
      if (query.category) select = select.where(sql`lower(category)`, '=', query.category.toLowerCase())
      return select.execute()
    },

    /** The whole ledger in order, for the record (computed from its entries alone). */
    allEntries(): Promise<SignalLedgerRow[]> {
      return db.selectFrom('signal_ledger').selectAll().orderBy('seq').execute()
    },

    /** One signal's ledger entries, in order. */
    entriesOf(signalId: string): Promise<SignalLedgerRow[]> {
      return db
        .selectFrom('signal_ledger')
        .selectAll()
        .where('signal_id', '=', signalId)
        .orderBy('seq')
        .execute()
    },

    /**
     * Every signal's content and salt: the record uses only those the ledger settled or voided, and
     * only when they hash to the published commitment.
     */
    reveals(): Promise<Pick<SignalRow, 'id' | 'commitment' | 'content' | 'salt'>[]> {
      return db.selectFrom('signals').select(['id', 'commitment', 'content', 'salt']).execute()
    },

    reveal(id: string): Promise<Pick<SignalRow, 'id' | 'commitment' | 'content' | 'salt'> | undefined> {
      return db
        .selectFrom('signals')
        .select(['id', 'commitment', 'content', 'salt'])
        .where('id', '=', id)
        .executeTakeFirst()
    },

    /** Open trading signals on the given instruments: the price feed may settle them. */
    listOpenTrades(instruments: readonly string[]) {
      return db
        .selectFrom('signals')
        .selectAll()
        .where('status', '=', 'open')
        .where('kind', '=', 'signal')
        .where('category', 'in', [...instruments])
        .execute()
    },

    entriesAfter(after: number, limit: number, trx: Executor = db): Promise<SignalLedgerRow[]> {
      return trx
        .selectFrom('signal_ledger')
        .selectAll()
        .where('seq', '>', after)
        .orderBy('seq')
        .limit(limit)
        .execute()
    },

    entry(seq: number): Promise<SignalLedgerRow | undefined> {
      return db.selectFrom('signal_ledger').selectAll().where('seq', '=', seq).executeTakeFirst()
    },

    findManyByIds(ids: string[]): Promise<SignalRow[]> {
      if (ids.length === 0) return Promise.resolve([])
      return db.selectFrom('signals').selectAll().where('id', 'in', ids).execute()
    },

    /** Members who asked for email updates, have access now and are not disabled. */
    listSubscribersWithAccess(now: Date, trx: Executor = db) {
      return trx
        .selectFrom('users')
        .select(['users.id', 'users.email', 'users.first_name'])
        .where('users.email_updates', '=', true)
        .where('users.disabled_at', 'is', null)
        .where((eb) =>
          eb.exists(
            eb
              .selectFrom('subscriptions')
              .select('subscriptions.id')
              .whereRef('subscriptions.user_id', '=', 'users.id')
              .where((inner) => hasAccessAt(inner, now)),
          ),
        )
        .execute()
    },

    /** Of these sessions, the ones still signed in, with their user's role now. */
    async liveSessionRoles(sessionIds: readonly string[]): Promise<Map<string, string>> {
      if (sessionIds.length === 0) return new Map()
      const rows = await db
        .selectFrom('sessions')
        .innerJoin('users', 'users.id', 'sessions.user_id')
        .select(['sessions.id', 'users.role'])
        .where(isAnyOf('sessions.id', sessionIds))
        .where('sessions.revoked_at', 'is', null)
        .where('users.disabled_at', 'is', null)
        .execute()
      return new Map(rows.map((row) => [row.id, row.role]))
    },

    /** Tells every instance listening on `channel` (delivered when this statement commits). */
    async notify(channel: string, payload: string): Promise<void> {
      await sql`select pg_notify(${channel}, ${payload})`.execute(db)
    },

    /** Several notifications on one channel, in order, in one statement per thousand. */
    async notifyMany(channel: string, payloads: readonly string[]): Promise<void> {
      for (let start = 0; start < payloads.length; start += 1_000) {
        const values = payloads.slice(start, start + 1_000).map((payload) => sql`(${payload})`)
        await sql`select pg_notify(${channel}, message.payload)
          from (values ${sql.join(values)}) as message (payload)`.execute(db)
      }
    },

    /**
     * Of these sessions, the ones no longer signed in (revoked, user disabled, gone): usually none. The
     * ids go as one array parameter, so a delivery to 15,000 live streams is one statement that sends
     * one value and reads back only the exceptions, whatever PostgreSQL's limit on parameters.
     */
    async endedSessions(sessionIds: readonly string[]): Promise<Set<string>> {
      if (sessionIds.length === 0) return new Set()
      const { rows } = await sql<{
        id: string
      }>`select asked.id from unnest(${sessionIds}::uuid[]) as asked (id)
        where not exists (
          select 1 from sessions join users on users.id = sessions.user_id
          where sessions.id = asked.id and sessions.revoked_at is null and users.disabled_at is null)`.execute(
        db,
      )
      return new Set(rows.map((row) => row.id))
    },
  }
}
export type SignalsRepository = ReturnType<typeof createSignalsRepository>
