import type { Kysely, Transaction } from 'kysely'
import type { DB, PaymentRow } from '../../db/types'

type Executor = Kysely<DB> | Transaction<DB>

export interface TipDetails {
  amountMinor: number
  currency: string
  message: string | null
}

/** Tips are payments of kind 'tip'; these are the queries only the tip flow needs. */
export function createTipsRepository(db: Kysely<DB>) {
  return {
    transaction: <T>(work: (trx: Transaction<DB>) => Promise<T>) => db.transaction().execute(work),

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
