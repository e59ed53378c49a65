import { fromMinorUnits } from '@edgeclub/shared'
import { z } from 'zod'
import type { PaymentRow } from '../../db/types'

/** SPEC §3 payment record as members (and admins) read it. */
export const PaymentViewSchema = z.object({
  _id: z.string(),
  id: z.string(),
  planId: z.object({ _id: z.string(), id: z.string(), name: z.string() }).nullable(),
  amount: z.number(),
  amountRefunded: z.number(),
  currency: z.string(),
  status: z.string(),
  provider: z.string(),
  kind: z.string(),
  message: z.string().nullable(),
  failureMessage: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  stripeClientSecret: z.string().nullable(),
  stripePaymentIntentId: z.string().nullable(),
  /** Pending crypto payments: where the member pays, and until when. */
  checkoutUrl: z.string().nullable(),
  expiresAt: z.string().nullable(),
  userEmail: z.string().optional(),
})
export type PaymentView = z.infer<typeof PaymentViewSchema>

export function toPaymentView(
  row: PaymentRow & { plan_name: string | null; user_email?: string },
  options: { includeEmail?: boolean } = {},
): PaymentView {
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
