import type { Kysely, Transaction } from 'kysely'
import { transactionRunner } from '../../../db/transaction'
import type { DB, PaymentRow } from '../../../db/types'

type Executor = Kysely<DB> | Transaction<DB>

export interface TipDetails {
  amountMinor: number
  currency: string
  message: string | null
}

/** Tips are payments of kind 'tip'; these are the queries only the tip flow needs. */
export function createTipsRepository(db: Kysely<DB>) {
  return {
    transaction: transactionRunner(db),

    /** Holds the member's row until `trx` ends: one member's tip requests take turns. */
    async lockMember(userId: string, trx: Transaction<DB>): Promise<void> {
      await trx.selectFrom('users').select('id').where('id', '=', userId).forUpdate().execute()
    },

    /** The member's newest unpaid tip with exactly these details, if any. */
    findOpenTip(userId: string, details: TipDetails, trx: Executor = db): Promise<PaymentRow | undefined> {
      return trx
        .selectFrom('payments')
        .selectAll()
        .where('user_id', '=', userId)
        .where('kind', '=', 'tip')
        .where('provider', '=', 'stripe')
        .where('status', '=', 'pending')
        .where('amount_minor', '=', details.amountMinor)
        .where('currency', '=', details.currency)
        .where((eb) =>
          details.message === null ? eb('message', 'is', null) : eb('message', '=', details.message),
        )
        .orderBy('created_at', 'desc')
        .limit(1)
        .executeTakeFirst()
    },
  }
}
export type TipsRepository = ReturnType<typeof createTipsRepository>
