import { z } from 'zod'
import { PaginationSchema } from './list-query'
import { checkoutMessages } from './payment-messages'
import { PlanSchema } from './plans'
import { text } from './text'

/** The tip form's rules and messages, shared word for word with POST /tips/create. */
export const tipMessages = {
  amountMin: 'Tip amount must be at least $0.50',
  amountInvalid: 'Enter an amount like 5 or 5.50',
  amountMax: 'Tip amount must be $10,000 or less',
  messageTooLong: 'Tip message must be 200 characters or less',
  created: 'Failed to create tip payment intent',
  createUnexpected: 'An unexpected error occurred while creating the tip',
  stripeNotLoaded: 'Stripe has not loaded properly. Please refresh the page.',
  cardMissing: 'Card element not found',
  paymentFailed: 'Payment failed',
  notSuccessful: 'Payment was not successful',
  paymentUnexpected: 'An unexpected error occurred during payment',
  success: 'Tip sent successfully! Thank you for your support! 🎉',
  // Server answers.
  stillProcessing:
    'Your tip with these details is still being processed. Please wait a moment before sending it again.',
} as const

export const TIP_CURRENCIES = ['USD', 'EUR', 'GBP', 'CAD', 'AUD'] as const
export const TIP_MIN = 0.5
export const TIP_MAX = 10_000
export const TIP_MESSAGE_MAX = 200
/** Digits with up to 2 decimals. */
export const TIP_AMOUNT_PATTERN = /^\d+(\.\d{1,2})?$/

export const TipCreateSchema = z.object({
  amount: z
    .number({ error: tipMessages.amountInvalid })
    .refine(
      (value) => Number.isFinite(value) && TIP_AMOUNT_PATTERN.test(String(value)),
      tipMessages.amountInvalid,
    )
    .refine((value) => value >= TIP_MIN, tipMessages.amountMin)
    .refine((value) => value <= TIP_MAX, tipMessages.amountMax),
  currency: z.enum(TIP_CURRENCIES, 'Choose USD, EUR, GBP, CAD or AUD').default('USD'),
  message: text({ multiline: true }).trim().max(TIP_MESSAGE_MAX, tipMessages.messageTooLong).optional(),
})
export type TipCreate = z.infer<typeof TipCreateSchema>

export const CreateIntentSchema = z.object({
  planId: text().trim().min(1, checkoutMessages.planNotFound).max(64),
  currency: text().trim().toUpperCase().length(3).default('USD'),
  /** A promo code the member typed or arrived with (/pricing?code=…). */
  promoCode: text().trim().toUpperCase().min(1).max(40).optional(),
})

/** POST /payments/confirm: a card payment (PaymentIntent) or a trial's saved card (SetupIntent). */
export const ConfirmPaymentSchema = z
  .object({
    paymentIntentId: text().trim().min(1).max(255).optional(),
    setupIntentId: text().trim().min(1).max(255).optional(),
  })
  .refine((body) => (body.paymentIntentId === undefined) !== (body.setupIntentId === undefined), {
    message: 'Send a paymentIntentId or a setupIntentId',
  })

/** A started card checkout: what Stripe.js needs to take the payment, our payment id and the plan. */
export const PaymentIntentSchema = z.object({
  clientSecret: z.string(),
  /** The PaymentIntent to pay; empty for a trial, which saves a card (setupIntentId) instead. */
  paymentIntentId: z.string(),
  /** What is charged now (after a promo code; 0 for a trial). */
  amount: z.number(),
  currency: z.string(),
  paymentId: z.string(),
  plan: PlanSchema.nullable(),
  /** A trial: the SetupIntent the card form confirms, and when the first charge falls. */
  setupIntentId: z.string().nullable().default(null),
  trialEndsAt: z.string().nullable().default(null),
  /** The promo code applied, the price before it, and what it takes off. */
  promo: z
    .object({ code: z.string(), description: z.string(), fullAmount: z.number() })
    .nullable()
    .default(null),
})
export type PaymentIntent = z.infer<typeof PaymentIntentSchema>

/** POST /payments/confirm: where the payment stands after asking Stripe. */
export const PaymentConfirmationSchema = z.object({
  paymentId: z.string(),
  status: z.string(),
  stripeStatus: z.string(),
  /** A trial that started: when it ends. */
  trialEndsAt: z.string().nullable().default(null),
  /**
   * The card had a free trial already: no trial, the first payment is due now. When the bank asks the
   * member to confirm it, this is what the card form confirms.
   */
  payNow: z
    .object({
      clientSecret: z.string(),
      paymentIntentId: z.string(),
      amount: z.number(),
      message: z.string(),
    })
    .nullable()
    .default(null),
})
export type PaymentConfirmation = z.infer<typeof PaymentConfirmationSchema>

export const PAYMENT_STATUSES = [
  'pending',
  'completed',
  'failed',
  'cancelled',
  'refunded',
  'partially_refunded',
] as const
export type PaymentStatusValue = (typeof PAYMENT_STATUSES)[number]

export const CreateCryptoSchema = z.object({
  planId: text().trim().min(1, checkoutMessages.planNotFound).max(64),
  promoCode: text().trim().toUpperCase().min(1).max(40).optional(),
})
export type CreateCrypto = z.infer<typeof CreateCryptoSchema>

/** POST /payments/create-crypto answers where to pay, what and until when. */
export const CryptoCheckoutSchema = z.object({
  checkoutUrl: z.string().max(2048),
  invoiceId: z.string().max(128),
  paymentId: z.string().max(64),
  amount: z.number(),
  currency: z.string().max(8),
  expiresAt: z.string().max(32),
})
export type CryptoCheckout = z.infer<typeof CryptoCheckoutSchema>

/** A payment as members (and admins) read it; amounts in major units. */
export const PaymentViewSchema = z.object({
  _id: z.string(),
  id: z.string(),
  planId: z.object({ _id: z.string(), id: z.string(), name: z.string() }).nullable(),
  amount: z.number(),
  amountRefunded: z.number(),
  currency: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  provider: z.enum(['stripe', 'crypto', 'admin']),
  kind: z.enum(['subscription', 'renewal', 'lifetime', 'tip', 'grant', 'upgrade']),
  message: z.string().nullable(),
  failureMessage: z.string().nullable(),
  createdAt: z.string(),
  completedAt: z.string().nullable(),
  /** Only while the payment can still be completed. */
  stripeClientSecret: z.string().nullable(),
  stripePaymentIntentId: z.string().nullable(),
  /** Pending crypto payments: where the member pays, and until when. */
  checkoutUrl: z.string().nullable(),
  expiresAt: z.string().nullable(),
  /** Admin lists only. */
  userEmail: z.string().optional(),
})
export type PaymentView = z.infer<typeof PaymentViewSchema>

export const PaymentPageSchema = z.object({ items: z.array(PaymentViewSchema), pagination: PaginationSchema })
export type PaymentPage = z.infer<typeof PaymentPageSchema>

/** Total spent (completed payments) per currency. */
export const PaymentSummarySchema = z.object({
  totals: z.array(z.object({ currency: z.string(), amount: z.number() })),
  completedCount: z.number().int(),
})
export type PaymentSummary = z.infer<typeof PaymentSummarySchema>

/** POST /tips/create: what Stripe.js needs to take the tip. */
export const TipIntentSchema = z.object({
  clientSecret: z.string(),
  paymentIntentId: z.string(),
  tipId: z.string(),
  amount: z.number(),
  currency: z.string(),
  message: z.string(),
})
export type TipIntent = z.infer<typeof TipIntentSchema>

/** GET /tips/status/{id}. */
export const TipSchema = z.object({
  id: z.string(),
  _id: z.string(),
  amount: z.number(),
  currency: z.string(),
  message: z.string(),
  status: z.enum(PAYMENT_STATUSES),
  createdAt: z.string(),
})
export type Tip = z.infer<typeof TipSchema>
