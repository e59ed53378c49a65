import { CryptoCheckoutSchema, type PaymentIntent, PaymentIntentSchema, type Plan } from '@edgeclub/shared'
import { useEffect, useState } from 'react'
import { apiRequest } from './api-client'
import { getClientConfig } from './client-config'

/**
 * The navigation state the payment page needs: without it, it sends the member back to choose a
 * plan. The PaymentIntent is a new one (POST /payments/create-intent) or an unfinished payment's
 * from Payment History, which carries only what Stripe.js needs and the amount to show.
 */
export interface PaymentSessionState {
  paymentIntent: Pick<PaymentIntent, 'clientSecret' | 'paymentIntentId' | 'amount' | 'currency'> &
    Partial<Pick<PaymentIntent, 'paymentId' | 'plan'>>
  plan: Plan
}

export function createPaymentIntent(planId: string) {
  return apiRequest('/payments/create-intent', {
    method: 'POST',
    body: { planId, currency: 'USD' },
    schema: PaymentIntentSchema,
  })
}

/** POST /payments/create-crypto: a BTCPay invoice for the plan (the server sets the amount). */
export function createCryptoCheckout(planId: string) {
  return apiRequest('/payments/create-crypto', {
    method: 'POST',
    body: { planId },
    schema: CryptoCheckoutSchema,
  })
}

/** Whether the server offers crypto (BTCPay configured). */
export function useCryptoEnabled(): boolean {
  const [enabled, setEnabled] = useState(false)
  useEffect(() => {
    getClientConfig().then(
      (config) => setEnabled(config.cryptoEnabled),
      () => setEnabled(false),
    )
  }, [])
  return enabled
}
