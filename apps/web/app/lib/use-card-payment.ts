import { CardElement, useElements, useStripe } from '@stripe/react-stripe-js'
import type { StripeCardElementChangeEvent } from '@stripe/stripe-js'
import { useState } from 'react'
import { billingName } from './stripe-loader'
import { useSession } from './use-session'

/** The texts a card form shows for each way a confirmation can end (each screen has its own set). */
export interface CardPaymentMessages {
  stripeNotLoaded: string
  cardMissing: string
  /** When Stripe declines without a message of its own. */
  declined: string
  notSuccessful: string
  unexpected: string
}

/**
 * Confirms a card payment with Stripe.js (the billing name is first and last name, else email, else
 * 'Customer'), then runs `afterSuccess` (the server's own check) while still "paying".
 */
export function useCardPayment(messages: CardPaymentMessages) {
  const stripe = useStripe()
  const elements = useElements()
  const { user } = useSession()
  const [paying, setPaying] = useState(false)
  const [cardError, setCardError] = useState<string | null>(null)

  const confirm = async (
    clientSecret: string,
    afterSuccess: () => Promise<void>,
  ): Promise<{ ok: true } | { ok: false; message: string }> => {
    if (!stripe || !elements) return { ok: false, message: messages.stripeNotLoaded }
    const card = elements.getElement(CardElement)
    if (!card) return { ok: false, message: messages.cardMissing }
    setPaying(true)
    try {
      const result = await stripe.confirmCardPayment(clientSecret, {
        payment_method: { card, billing_details: { name: billingName(user) } },
      })
      if (result.error) return { ok: false, message: result.error.message ?? messages.declined }
      if (result.paymentIntent?.status !== 'succeeded') return { ok: false, message: messages.notSuccessful }
      await afterSuccess()
      return { ok: true }
    } catch {
      return { ok: false, message: messages.unexpected }
    } finally {
      setPaying(false)
    }
  }

  return {
    confirm,
    paying,
    ready: Boolean(stripe),
    cardError,
    onCardChange: (event: StripeCardElementChangeEvent) => setCardError(event.error?.message ?? null),
  }
}
