import type { Transaction } from 'kysely'
import type { DB, PaymentRow } from '../../../db/types'
import type { Jobs } from '../../../jobs/job-runner'
import type { FulfilmentEffects } from './fulfilment'
import { receiptEmail } from './receipt-email'

/**
 * What follows a completed payment, recorded in the outbox inside the fulfilment's transaction, each
 * keyed by the payment: the receipt, the Discord role sync, and closing the member's unfinished
 * checkout of the same plan on the other rail.
 */
export function createPaymentEffects(deps: { jobs: Jobs; appOrigin: string }): FulfilmentEffects {
  return {
    async paymentCompleted(payment: PaymentRow, trx: Transaction<DB>) {
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
        await deps.jobs.enqueue(
          'email',
          {
            message: receiptEmail({
              to: user.email,
              firstName: user.first_name,
              what,
              amountMinor: payment.amount_minor,
              currency: payment.currency,
              paymentId: payment.id,
              appOrigin: deps.appOrigin,
            }),
          },
          { trx, key: `receipt:${payment.id}` },
        )
      }
      if (payment.kind === 'tip') return
      await deps.jobs.enqueue(
        'discord.sync',
        { userId: payment.user_id },
        { trx, key: `access:${payment.id}` },
      )
      if (payment.plan_id)
        await deps.jobs.enqueue(
          'payments.close-other-rail',
          { paymentId: payment.id },
          { trx, key: `close-other-rail:${payment.id}` },
        )
    },
  }
}
