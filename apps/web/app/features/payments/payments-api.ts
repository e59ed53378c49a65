import { PaymentConfirmationSchema } from '@edgeclub/shared'
import { apiRequest } from '../../lib/api-client'

/** After Stripe.js reports success, the server checks the PaymentIntent itself before it grants access. */
export function confirmPayment(paymentIntentId: string) {
  return apiRequest('/payments/confirm', {
    method: 'POST',
    body: { paymentIntentId },
    schema: PaymentConfirmationSchema,
  })
}

/** A trial's card, saved by Stripe.js: the server checks the SetupIntent and starts the trial (or charges a card that had one). */
export function confirmTrial(setupIntentId: string) {
  return apiRequest('/payments/confirm', {
    method: 'POST',
    body: { setupIntentId },
    schema: PaymentConfirmationSchema,
  })
}
