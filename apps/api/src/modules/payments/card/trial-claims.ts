import type { TransactionRunner } from '../../../db/transaction'
import type { AccountsService } from '../../auth/accounts-service'
import type { PaymentsRepository } from '../common/payments-repository'

/** Thrown inside the claim's transaction to undo a member's claim when their card had a trial. */
class CardHadTrial extends Error {}

/**
 * One free trial per member and per card (Stripe's card fingerprint), ever. Both are claimed in one
 * transaction: a second account with the same card, or a member's second trial, gets none.
 */
export function createTrialClaims(deps: {
  transaction: TransactionRunner
  payments: Pick<PaymentsRepository, 'claimTrialCard'>
  accounts: Pick<AccountsService, 'claimTrial'>
}) {
  return {
    async claim(userId: string, fingerprint: string): Promise<boolean> {
      try {
        return await deps.transaction(async (trx) => {
          if (!(await deps.accounts.claimTrial(userId, trx))) return false
          if (!(await deps.payments.claimTrialCard(fingerprint, userId, trx))) throw new CardHadTrial()
          return true
        })
      } catch (error) {
        if (error instanceof CardHadTrial) return false
        throw error
      }
    },
  }
}
