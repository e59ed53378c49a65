import { cryptoMessages } from '@edgeclub/shared'
import { type Jobs, type QueuePolicies, type QueuePolicy, SWEEP_POLICY } from '../../queue/job-runner'
import type { CardCheckoutService } from './card/card-checkout-service'
import type { PaymentsService } from './common/payments-service'
import type { Reconciliation } from './common/reconciliation'
import type { CryptoService } from './crypto/crypto-service'

declare module '../../queue/job-runner' {
  interface JobData {
    'payments.reconcile': Record<string, never>
    'payments.sweep': Record<string, never>
    /** A plan paid on one rail: the member's unfinished checkout of it on the other rail is closed. */
    'payments.close-other-rail': { paymentId: string }
    /** Access that ended here (a full refund) ends at Stripe too, so the member is not charged again. */
    'stripe.cancel-subscription': { stripeSubscriptionId: string }
    /** A lifetime purchase: the member's renewing card plans stop renewing. */
    'payments.stop-renewals': { userId: string }
  }
}

const PROCESSOR_CALLS: QueuePolicy = {
  retryLimit: 8,
  retryDelay: 10,
  batchSize: 5,
  concurrency: 2,
  expireInSeconds: 120,
}

export const PAYMENTS_QUEUES: QueuePolicies<
  | 'payments.reconcile'
  | 'payments.sweep'
  | 'payments.close-other-rail'
  | 'stripe.cancel-subscription'
  | 'payments.stop-renewals'
> = {
  'payments.stop-renewals': PROCESSOR_CALLS,
  'payments.reconcile': { ...SWEEP_POLICY, expireInSeconds: 1800 },
  'payments.sweep': { ...SWEEP_POLICY, expireInSeconds: 3600 },
  'payments.close-other-rail': PROCESSOR_CALLS,
  'stripe.cancel-subscription': { ...PROCESSOR_CALLS, retryLimit: 10 },
}

export async function registerPaymentsJobs(
  jobs: Pick<Jobs, 'work' | 'schedule'>,
  deps: {
    payments: Pick<PaymentsService, 'findById'>
    card: Pick<CardCheckoutService, 'abandonOpenCheckout' | 'cancelStripeSubscription' | 'stopRenewals'>
    crypto: Pick<CryptoService, 'abandonOpenInvoice'>
    reconciliation: Reconciliation
  },
): Promise<void> {
  // Access was granted already; this only stops Payment History inviting the member to pay twice.
  await jobs.work('payments.close-other-rail', async (data) => {
    const payment = await deps.payments.findById(data.paymentId)
    if (!payment?.plan_id) return
    if (payment.provider === 'crypto')
      await deps.card.abandonOpenCheckout(payment.user_id, payment.plan_id, cryptoMessages.paidWithCrypto)
    else if (payment.provider === 'stripe')
      await deps.crypto.abandonOpenInvoice(payment.user_id, payment.plan_id)
  })
  await jobs.work('payments.stop-renewals', async (data) => {
    await deps.card.stopRenewals(data.userId)
  })
  await jobs.work('stripe.cancel-subscription', async (data) => {
    await deps.card.cancelStripeSubscription(data.stripeSubscriptionId)
  })
  if (deps.reconciliation.configured()) {
    // Every few minutes: payments still pending are settled by asking their processor.
    await jobs.work('payments.reconcile', async () => {
      await deps.reconciliation.run()
    })
    await jobs.schedule('payments.reconcile', '*/5 * * * *')
    // Hourly: the last 30 days at each processor compared with the ledger (ledger/reconciliation.ts).
    await jobs.work('payments.sweep', async () => {
      await deps.reconciliation.sweep()
    })
    await jobs.schedule('payments.sweep', '17 * * * *')
  }
}
