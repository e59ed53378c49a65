import type { PaymentIntent, Plan } from '@edgeclub/shared'
import { useEffect, useState } from 'react'
import { apiRequest } from './api-client'
import { getClientConfig } from './client-config'
import { contract } from './contract'
import { usePainted } from './use-painted'

/**
 * The navigation state the payment page needs: without it, it sends the member back to choose a
 * plan. The PaymentIntent is a new one (POST /payments/create-intent) or an unfinished payment's
 * from Payment History, which carries only what Stripe.js needs and the amount to show.
 */
export interface PaymentSessionState {
  paymentIntent: Pick<PaymentIntent, 'clientSecret' | 'paymentIntentId' | 'amount' | 'currency'> &
    Partial<Pick<PaymentIntent, 'paymentId' | 'plan' | 'setupIntentId' | 'trialEndsAt' | 'promo'>>
  plan: Plan
}

/** POST /payments/create-intent: the checkout of a plan, with the member's promo code if any. */
export function createPaymentIntent(planId: string, promoCode?: string) {
  return apiRequest('/payments/create-intent', {
    method: 'POST',
    body: { planId, currency: 'USD', ...(promoCode ? { promoCode } : {}) },
    schema: contract('PaymentIntentSchema'),
  })
}

/** POST /payments/create-crypto: a BTCPay invoice for the plan (the server sets the amount, code included). */
export function createCryptoCheckout(planId: string, promoCode?: string) {
  return apiRequest('/payments/create-crypto', {
    method: 'POST',
    body: { planId, ...(promoCode ? { promoCode } : {}) },
    schema: contract('CryptoCheckoutSchema'),
  })
}

/** GET /promo-codes/:code?planId=: the first payment with the code, or the server's reason it is refused. */
export function fetchPromoQuote(code: string, planId: string) {
  return apiRequest(`/promo-codes/${encodeURIComponent(code)}?planId=${encodeURIComponent(planId)}`, {
    schema: contract('PromoQuoteSchema'),
  })
}

/**
 * Whether the server offers crypto (BTCPay configured), asked once the screen that shows it
 * (`shown`: the plans) is painted: the crypto button can come a moment after the plans.
 */
export function useCryptoEnabled(shown = true): boolean {
  const [enabled, setEnabled] = useState(false)
  const painted = usePainted(shown)
  useEffect(() => {
    if (!painted) return
    let current = true
    getClientConfig().then(
      (config) => current && setEnabled(config.cryptoEnabled),
      () => current && setEnabled(false),
    )
    return () => {
      current = false
    }
  }, [painted])
  return enabled
}

/** After Stripe.js reports success, the server checks the PaymentIntent itself before it grants access. */
export function confirmPayment(paymentIntentId: string) {
  return apiRequest('/payments/confirm', {
    method: 'POST',
    body: { paymentIntentId },
    schema: contract('PaymentConfirmationSchema'),
  })
}

/** A trial's card, saved by Stripe.js: the server checks the SetupIntent and starts the trial (or charges a card that had one). */
export function confirmTrial(setupIntentId: string) {
  return apiRequest('/payments/confirm', {
    method: 'POST',
    body: { setupIntentId },
    schema: contract('PaymentConfirmationSchema'),
  })
}
