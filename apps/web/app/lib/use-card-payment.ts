import { CardElement, useElements, useStripe } from '@stripe/react-stripe-js'
import type { Stripe, StripeCardElement, StripeCardElementChangeEvent } from '@stripe/stripe-js'
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

/** Thrown by an `afterSuccess` step with the words the member should read (the server's refusal). */
export class CardFlowError extends Error {}

export type CardResult = { ok: true } | { ok: false; message: string }

/**
 * Stripe.js and the card field to confirm with, or what the member reads when either is missing:
 * Stripe.js not loaded (blocked, offline), or no card field on the page.
 */
export function cardFormReady<S, C>(
  stripe: S | null,
  card: C | null,
  messages: Pick<CardPaymentMessages, 'stripeNotLoaded' | 'cardMissing'>,
): { ok: true; stripe: S; card: C } | { ok: false; message: string } {
  if (!stripe) return { ok: false, message: messages.stripeNotLoaded }
  if (!card) return { ok: false, message: messages.cardMissing }
  return { ok: true, stripe, card }
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

  /** Stripe's answer as the member reads it: null when the intent succeeded. */
  const refusal = (
    error: { message?: string } | undefined,
    status: string | undefined,
  ): CardResult | null => {
    if (error) return { ok: false, message: error.message ?? messages.declined }
    if (status !== 'succeeded') return { ok: false, message: messages.notSuccessful }
    return null
  }

  /** "Paying" while Stripe confirms and then the server checks (`afterSuccess`). */
  const whilePaying = async (
    step: () => Promise<CardResult | null>,
    afterSuccess: () => Promise<void>,
  ): Promise<CardResult> => {
    setPaying(true)
    try {
      const failed = await step()
      if (failed) return failed
      await afterSuccess()
      return { ok: true }
    } catch (error) {
      return { ok: false, message: error instanceof CardFlowError ? error.message : messages.unexpected }
    } finally {
      setPaying(false)
    }
  }

  /** With the card the member typed into the card form. */
  const withCard = (
    step: (card: StripeCardElement, stripe: Stripe) => Promise<CardResult | null>,
    afterSuccess: () => Promise<void>,
  ): Promise<CardResult> => {
    // Elements comes with Stripe.js: without either, Stripe.js has not loaded.
    const ready = cardFormReady(elements ? stripe : null, elements?.getElement(CardElement) ?? null, messages)
    if (!ready.ok) return Promise.resolve(ready)
    return whilePaying(() => step(ready.card, ready.stripe), afterSuccess)
  }

  /** A payment (PaymentIntent client secret); 3-D Secure is asked for by Stripe.js when the bank wants it. */
  const confirm = (clientSecret: string, afterSuccess: () => Promise<void>) =>
    withCard(async (card, client) => {
      const result = await client.confirmCardPayment(clientSecret, {
        payment_method: { card, billing_details: { name: billingName(user) } },
      })
      return refusal(result.error, result.paymentIntent?.status)
    }, afterSuccess)

  /** Saving the card for later charges (SetupIntent client secret): a trial, or a new renewal card. */
  const confirmSetup = (clientSecret: string, afterSuccess: () => Promise<void>) =>
    withCard(async (card, client) => {
      const result = await client.confirmCardSetup(clientSecret, {
        payment_method: { card, billing_details: { name: billingName(user) } },
      })
      return refusal(result.error, result.setupIntent?.status)
    }, afterSuccess)

  /** A payment with the card already saved (no card details typed): only 3-D Secure, when asked. */
  const confirmSaved = async (
    clientSecret: string,
    afterSuccess: () => Promise<void>,
  ): Promise<CardResult> => {
    if (!stripe) return { ok: false, message: messages.stripeNotLoaded }
    return whilePaying(async () => {
      const result = await stripe.confirmCardPayment(clientSecret)
      return refusal(result.error, result.paymentIntent?.status)
    }, afterSuccess)
  }

  return {
    confirm,
    confirmSetup,
    confirmSaved,
    paying,
    ready: Boolean(stripe),
    cardError,
    onCardChange: (event: StripeCardElementChangeEvent) => setCardError(event.error?.message ?? null),
  }
}
