import { cryptoMessages, type PaymentView } from '@edgeclub/shared'

/**
 * Where a crypto payment stands, in words, for Payment History: waiting, part-paid or confirming while
 * pending; why it failed (expired, expired underpaid, invalid) otherwise. `canReopen`: its checkout
 * can still take coins.
 */
export function cryptoState(
  payment: Pick<PaymentView, 'provider' | 'status' | 'failureMessage' | 'checkoutUrl' | 'expiresAt'>,
  now = Date.now(),
): { note: string; tone: 'info' | 'warning' | 'error'; canReopen: boolean } | undefined {
  if (payment.provider !== 'crypto') return undefined
  if (payment.status === 'pending') {
    const open = Boolean(payment.checkoutUrl) && (!payment.expiresAt || Date.parse(payment.expiresAt) > now)
    if (payment.failureMessage) return { note: payment.failureMessage, tone: 'warning', canReopen: open }
    return { note: cryptoMessages.awaiting, tone: 'info', canReopen: open }
  }
  if (payment.status === 'failed' && payment.failureMessage)
    return { note: payment.failureMessage, tone: 'error', canReopen: false }
  if (payment.status === 'cancelled' && payment.failureMessage)
    return { note: payment.failureMessage, tone: 'info', canReopen: false }
  return undefined
}
