import { cryptoMessages } from '@edgeclub/shared'
import type { CardCheckoutService } from '../modules/payments/card/card-checkout-service'
import type { CryptoService } from '../modules/payments/crypto/crypto-service'
import type { PaymentsRepository } from '../modules/payments/ledger/payments-repository'

/**
 * A plan paid on one rail: the member's unfinished checkout of it on the other rail is closed, so
 * their payment history stops inviting them to pay twice. Access was granted already.
 */
export function closeOtherRailWorker(deps: {
  payments: PaymentsRepository
  card: CardCheckoutService
  crypto: CryptoService
}) {
  return async (data: { paymentId: string }) => {
    const payment = await deps.payments.findById(data.paymentId)
    if (!payment?.plan_id) return
    if (payment.provider === 'crypto')
      await deps.card.abandonOpenCheckout(payment.user_id, payment.plan_id, cryptoMessages.paidWithCrypto)
    else if (payment.provider === 'stripe')
      await deps.crypto.abandonOpenInvoice(payment.user_id, payment.plan_id)
  }
}
