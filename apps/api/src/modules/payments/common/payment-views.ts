import { fromMinorUnits, type PaymentView } from '@edgeclub/shared'
import type { PaymentRow } from '../../../db/types'
import type { PaymentViewColumn } from './payments-repository'

/** A payment row as members (and, with the email, admins) read it. */
/** The columns a payment's view reads (PAYMENT_VIEW_COLUMNS), with its plan's name and, for admins, the email. */
export type PaymentViewRow = Pick<PaymentRow, PaymentViewColumn> & {
  plan_name: string | null
  user_email?: string
}

export function toPaymentView(row: PaymentViewRow, options: { includeEmail?: boolean } = {}): PaymentView {
  return {
    _id: row.id,
    id: row.id,
    planId: row.plan_id ? { _id: row.plan_id, id: row.plan_id, name: row.plan_name ?? '' } : null,
    amount: fromMinorUnits(row.amount_minor, row.currency),
    amountRefunded: fromMinorUnits(row.amount_refunded_minor, row.currency),
    currency: row.currency,
    status: row.status,
    provider: row.provider,
    kind: row.kind,
    message: row.message,
    failureMessage: row.failure_message,
    createdAt: new Date(row.created_at).toISOString(),
    completedAt: row.completed_at ? new Date(row.completed_at).toISOString() : null,
    // Only a payment that can still be completed needs its client secret (HIST-03).
    stripeClientSecret: row.status === 'pending' ? row.stripe_client_secret : null,
    stripePaymentIntentId: row.stripe_payment_intent_id,
    checkoutUrl: row.status === 'pending' ? row.checkout_url : null,
    expiresAt: row.expires_at ? new Date(row.expires_at).toISOString() : null,
    ...(options.includeEmail && row.user_email ? { userEmail: row.user_email } : {}),
  }
}
