import type { Transaction } from 'kysely'
import type { DB, PaymentRow } from '../../../db/types'
import { receiptEmail } from '../../../mail/billing-emails'
import type { MailQueue } from '../../../mail/mail-queue'
import type { Jobs } from '../../../queue/job-runner'
import type { FulfilmentEffects } from './fulfilment'

/**
 * What follows a completed payment, recorded in the outbox inside the fulfilment's transaction, each
 * keyed by the payment: the receipt, and closing the member's unfinished checkout of the same plan on
 * the other rail. (The access it paid for queues its own effects: see subscriptions/access-service.ts.)
 */
export function createPaymentEffects(deps: {
  jobs: Pick<Jobs, 'enqueue'>
  mail: Pick<MailQueue, 'enqueue'>
  appOrigin: string
  /** The checkout held a promo code's redemption: it is used now. */
  redeemCode: (trx: Transaction<DB>, paymentId: string) => Promise<unknown>
}): FulfilmentEffects {
  return {
    async paymentCompleted(payment: PaymentRow, trx: Transaction<DB>) {
      if (payment.promo_code_id) await deps.redeemCode(trx, payment.id)
      const user = await trx
        .selectFrom('users')
        .select(['email', 'first_name'])
        .where('id', '=', payment.user_id)
        .executeTakeFirst()
      const plan = payment.plan_id
        ? await trx.selectFrom('plans').select('name').where('id', '=', payment.plan_id).executeTakeFirst()
        : undefined
      if (user) {
        const what = payment.kind === 'tip' ? 'your tip — thank you!' : `the ${plan?.name ?? 'EdgeClub'} plan`
        await deps.mail.enqueue(
          receiptEmail({
            to: user.email,
            firstName: user.first_name,
            what,
            amountMinor: payment.amount_minor,
            currency: payment.currency,
            paymentId: payment.id,
            appOrigin: deps.appOrigin,
          }),
          { trx, key: `receipt:${payment.id}` },
        )
      }
      // Lifetime is for ever: a renewing card plan the member had stops renewing.
      if (payment.kind === 'lifetime')
        await deps.jobs.enqueue(
          'payments.stop-renewals',
          { userId: payment.user_id },
          { trx, key: `lifetime-stops-renewals:${payment.id}` },
        )
      if (payment.kind !== 'tip' && payment.plan_id)
        await deps.jobs.enqueue(
          'payments.close-other-rail',
          { paymentId: payment.id },
          { trx, key: `close-other-rail:${payment.id}` },
        )
    },
  }
}
