import { type Kysely, sql, type Transaction } from 'kysely'
import { transactionRunner } from '../../../db/transaction'
import type { DB, LedgerHeadRow } from '../../../db/types'
import { LEDGER_LOCK } from '../signals-repository'

type Executor = Kysely<DB> | Transaction<DB>

export interface NewHead {
  size: number
  rootHash: string
  timestamp: number
  signature: string
}

/** The signed heads of the record (ledger_heads) and the ledger hashes the tree is built from. */
export function createRecordLogRepository(db: Kysely<DB>) {
  return {
    db,
    transaction: transactionRunner(db),

    /** The ledger's own lock (signals-repository.ts): no entry is appended meanwhile. */
    async lockLedger(trx: Transaction<DB>): Promise<void> {
      await sql`select pg_advisory_xact_lock(${LEDGER_LOCK})`.execute(trx)
    },

    ledgerHead(ex: Executor = db): Promise<{ seq: number; hash: string } | undefined> {
      return ex
        .selectFrom('signal_ledger')
        .select(['seq', 'hash'])
        .orderBy('seq', 'desc')
        .limit(1)
        .executeTakeFirst()
    },

    /** Entry hashes after `after`, in order. */
    entryHashes(after: number, ex: Executor = db): Promise<{ seq: number; hash: string }[]> {
      return ex
        .selectFrom('signal_ledger')
        .select(['seq', 'hash'])
        .where('seq', '>', after)
        .orderBy('seq')
        .execute()
    },

    latestHead(ex: Executor = db): Promise<LedgerHeadRow | undefined> {
      return ex.selectFrom('ledger_heads').selectAll().orderBy('size', 'desc').limit(1).executeTakeFirst()
    },

    headsAt(sizes: number[], ex: Executor = db): Promise<LedgerHeadRow[]> {
      if (sizes.length === 0) return Promise.resolve([])
      return ex.selectFrom('ledger_heads').selectAll().where('size', 'in', sizes).execute()
    },

    async sizesWithHeads(ex: Executor = db): Promise<number[]> {
      const rows = await ex.selectFrom('ledger_heads').select('size').execute()
      return rows.map((row) => row.size)
    },

    async insertHeads(heads: NewHead[], trx: Executor): Promise<void> {
      for (let at = 0; at < heads.length; at += 500)
        await trx
          .insertInto('ledger_heads')
          .values(
            heads.slice(at, at + 500).map((head) => ({
              size: head.size,
              root_hash: head.rootHash,
              timestamp: head.timestamp,
              signature: head.signature,
            })),
          )
          .onConflict((conflict) => conflict.column('size').doNothing())
          .execute()
    },
  }
}
export type RecordLogRepository = ReturnType<typeof createRecordLogRepository>
