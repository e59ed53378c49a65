import { type TipCreate, TipCreateSchema, tipMessages } from '@edgeclub/shared'
import { zodFieldErrors } from '../../lib/form-errors'
import type { CardPaymentMessages } from '../../lib/use-card-payment'

/** What the tip's card form says when a payment cannot start or does not go through. */
export const tipCardMessages: CardPaymentMessages = {
  stripeNotLoaded: tipMessages.stripeNotLoaded,
  cardMissing: tipMessages.cardMissing,
  declined: tipMessages.paymentFailed,
  notSuccessful: tipMessages.notSuccessful,
  unexpected: tipMessages.paymentUnexpected,
}

export interface TipFormErrors {
  amount?: string
  currency?: string
  message?: string
}

/**
 * The tip form as POST /tips/create will read it, checked with the server's own schema so the form
 * refuses what the server would (minimum, maximum, two decimals, message length) in the same words.
 * An empty amount counts as 0, which reads 'at least $0.50'.
 */
export function readTipForm(form: {
  amount: string
  currency: string
  message: string
}): { ok: true; tip: TipCreate } | { ok: false; errors: TipFormErrors } {
  const parsed = TipCreateSchema.safeParse({
    amount: Number(form.amount),
    currency: form.currency,
    message: form.message,
  })
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) }
  return { ok: true, tip: { ...parsed.data, message: parsed.data.message || undefined } }
}
