import { z } from 'zod'
import { CANCEL_REASONS, PAUSE_PERIODS } from './billing-rules'
import { text } from './text'

/**
 * The levers a club owner runs revenue with: promo codes, trials, plan changes, pauses, card
 * recovery and the offer at cancel. Schemas of requests and answers, and the texts both sides show.
 */

export const billingMessages = {
  promoUnknown: 'This code does not exist',
  promoInactive: 'This code is no longer active',
  promoExpired: 'This code has expired',
  promoUsedUp: 'This code has been used up',
  promoWrongPlan: 'This code is not valid for this plan',
  promoNewOnly: 'This code is for new members only',
  promoReturningOnly: 'This code is for returning members only',
  promoAlreadyUsed: 'You have already used this code',
  promoDuplicate: 'A code with this name exists already',
  promoCurrency: 'This code is in another currency than this plan',
  trialUsed: 'You have had a free trial already: this plan starts with its first payment',
  trialCardUsed: 'This card has had a free trial already: the plan starts now with its first payment',
  changeSamePlan: 'You are on this plan already',
  changeNotRenewing: 'Only a renewing card plan can be changed here',
  changeNothingScheduled: 'No plan change is scheduled',
  changePending: 'A plan change is waiting for its payment; finish it or try again later',
  pauseNotRenewing: 'Only a renewing card plan can be paused',
  pauseAlready: 'Your plan is paused already',
  notPaused: 'Your plan is not paused',
  noCardPlan: 'You have no renewing card plan to update',
  cardSetupFailed: 'The card could not be saved. Please try another card.',
} as const

// ---- promo codes

export const PROMO_DURATIONS = ['once', 'repeating', 'forever'] as const
export const PROMO_AUDIENCES = ['anyone', 'new', 'returning'] as const

const promoCodeText = text({ error: 'Enter a code' })
  .trim()
  .toUpperCase()
  .regex(/^[A-Z0-9][A-Z0-9_-]{2,29}$/, 'A code is 3 to 30 letters, digits, - or _')

/** POST /admin/promo-codes. */
export const PromoCodeInputSchema = z
  .object({
    code: promoCodeText,
    percentOff: z
      .number('Percent off must be a number')
      .gt(0, 'Percent off must be more than 0')
      .max(100, 'Percent off is at most 100')
      .refine((value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6, 'At most 2 decimals')
      .optional(),
    amountOff: z
      .number('Amount off must be a number')
      .gt(0, 'Amount off must be more than 0')
      .max(100_000)
      .refine((value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6, 'At most 2 decimals')
      .optional(),
    currency: text()
      .trim()
      .toUpperCase()
      .regex(/^[A-Z]{3}$/, 'Currency must be a 3-letter code such as USD')
      .optional(),
    duration: z.enum(PROMO_DURATIONS, 'Duration must be once, repeating or forever'),
    durationInMonths: z.number().int('Whole months').min(1).max(36).optional(),
    audience: z.enum(PROMO_AUDIENCES, 'Audience must be anyone, new or returning').default('anyone'),
    planIds: z.array(text().uuid('Choose plans from the list')).max(20).optional(),
    expiresAt: text().datetime({ offset: true, message: 'Expiry must be an ISO date and time' }).optional(),
    maxRedemptions: z.number().int('Whole number').min(1).max(1_000_000).optional(),
  })
  .superRefine((code, context) => {
    if ((code.percentOff === undefined) === (code.amountOff === undefined))
      context.addIssue({
        code: 'custom',
        path: ['percentOff'],
        message: 'Give a percent off or an amount off',
      })
    if (code.duration === 'repeating' && code.durationInMonths === undefined)
      context.addIssue({ code: 'custom', path: ['durationInMonths'], message: 'Say for how many months' })
    if (code.duration !== 'repeating' && code.durationInMonths !== undefined)
      context.addIssue({
        code: 'custom',
        path: ['durationInMonths'],
        message: 'Months apply to a repeating code only',
      })
  })
export type PromoCodeInput = z.infer<typeof PromoCodeInputSchema>

/** A promo code as admins see it, with what it brought. */
export const PromoCodeSchema = z.object({
  id: z.string(),
  code: z.string(),
  percentOff: z.number().nullable(),
  amountOff: z.number().nullable(),
  currency: z.string().nullable(),
  duration: z.enum(PROMO_DURATIONS),
  durationInMonths: z.number().int().nullable(),
  audience: z.enum(PROMO_AUDIENCES),
  planIds: z.array(z.string()).nullable(),
  expiresAt: z.string().nullable(),
  maxRedemptions: z.number().int().nullable(),
  active: z.boolean(),
  /** Members whose payment used the code. */
  redemptions: z.number().int(),
  /** What those members paid, in each currency, since (renewals included). */
  revenue: z.array(z.object({ currency: z.string(), amount: z.number() })),
  /** "20% off the first payment", "$5 off for 3 months". */
  description: z.string(),
  createdAt: z.string(),
})
export type PromoCode = z.infer<typeof PromoCodeSchema>
export const PromoCodeListSchema = z.object({ items: z.array(PromoCodeSchema) })

/** GET /promo-codes/:code?planId=: what the member would pay first with the code. */
export const PromoQuoteQuerySchema = z.object({ planId: text().uuid('Choose a plan') })
export const PromoQuoteSchema = z.object({
  code: z.string(),
  planId: z.string(),
  /** The first payment after the discount (major units). */
  amountDue: z.number(),
  /** The plan's price without the code. */
  fullAmount: z.number(),
  currency: z.string(),
  description: z.string(),
})
export type PromoQuote = z.infer<typeof PromoQuoteSchema>

/** "20% off", "$5.00 off" then "the first payment", "for 3 months", "for as long as you stay". */
export function describeDiscount(code: {
  percentOff: number | null
  amountOff: number | null
  currency: string | null
  duration: (typeof PROMO_DURATIONS)[number]
  durationInMonths: number | null
}): string {
  const off =
    code.percentOff !== null
      ? `${Number(code.percentOff.toFixed(2))}% off`
      : `${(code.amountOff ?? 0).toFixed(2)} ${code.currency ?? ''} off`.replace(/\s+off$/, ' off')
  const span =
    code.duration === 'once'
      ? 'the first payment'
      : code.duration === 'forever'
        ? 'every payment for as long as you stay'
        : `every payment for ${code.durationInMonths} month${code.durationInMonths === 1 ? '' : 's'}`
  return `${off} ${span}`
}

// ---- plan changes, pause, card recovery, cancel

export const ChangePlanSchema = z.object({
  planId: text().uuid('Choose a plan'),
  /** The preview's prorationDate, so the charge is the amount the member saw. */
  prorationDate: text().datetime({ offset: true }).optional(),
})
export const ChangePlanPreviewSchema = z.object({
  planId: z.string(),
  /** The moment the amount was computed for: sent back with the change, it charges exactly this amount. */
  prorationDate: z.string(),
  /** What is charged today: the new plan's price less the unused time of the current one (0: at renewal). */
  amountDueNow: z.number(),
  currency: z.string(),
  /** When the new plan takes effect: now for an upgrade, the renewal for a downgrade. */
  effectiveAt: z.string(),
  kind: z.enum(['upgrade', 'downgrade', 'lifetime']),
})
export type ChangePlanPreview = z.infer<typeof ChangePlanPreviewSchema>
/**
 * POST /subscriptions/change-plan: a downgrade is scheduled; an upgrade is paid now, or answers what
 * the card form needs (`clientSecret`) when the bank asks the member to confirm.
 */
export const ChangePlanResultSchema = z.object({
  scheduled: z.boolean(),
  effectiveAt: z.string(),
  planId: z.string(),
  /** Set when the payment must be confirmed in the card form (3-D Secure, or a first payment). */
  clientSecret: z.string().nullable(),
  paymentIntentId: z.string().nullable(),
  amount: z.number(),
  currency: z.string(),
})
export type ChangePlanResult = z.infer<typeof ChangePlanResultSchema>

export const PauseSchema = z.object({
  periods: z.union(
    PAUSE_PERIODS.map((value) => z.literal(value)),
    'Pause for 1, 2 or 3 billing periods',
  ),
})
/** POST /subscriptions/unpause: resumed; or, resumed during the pause, the charge to confirm. */
export const UnpauseResultSchema = z.object({
  resumed: z.boolean(),
  clientSecret: z.string().nullable(),
  paymentIntentId: z.string().nullable(),
  amount: z.number(),
})
export type UnpauseResult = z.infer<typeof UnpauseResultSchema>
export const PauseResultSchema = z.object({ resumesAt: z.string(), accessUntil: z.string().nullable() })
export type PauseResult = z.infer<typeof PauseResultSchema>

/** Admins: pause a member, or add free days before their next charge. */
export const AdminPauseSchema = PauseSchema
export const FreeDaysSchema = z.object({
  days: z.number('Enter a number of days').int('Whole days').min(1, 'At least 1 day').max(365),
})

export const CardSetupSchema = z.object({ clientSecret: z.string(), setupIntentId: z.string() })
export type CardSetup = z.infer<typeof CardSetupSchema>
export const CardSetupConfirmSchema = z.object({ setupIntentId: text().trim().min(1).max(255) })
/** The new card is the renewal card; an open invoice was paid with it, or why not. */
export const CardUpdateResultSchema = z.object({
  updated: z.boolean(),
  retried: z.enum(['none', 'paid', 'requires_action', 'failed']),
  /** For `requires_action`: the payment the card form confirms. */
  clientSecret: z.string().nullable(),
  message: z.string(),
})
export type CardUpdateResult = z.infer<typeof CardUpdateResultSchema>

export const CancelRequestSchema = z.object({
  reason: z.enum(CANCEL_REASONS, 'Choose a reason').optional(),
  detail: text({ multiline: true }).trim().max(500, 'At most 500 characters').optional(),
})
export type CancelRequest = z.infer<typeof CancelRequestSchema>
/** GET /subscriptions/retention: what the owner offers a member who is about to cancel. */
export const RetentionOfferSchema = z.object({
  code: z.object({ code: z.string(), description: z.string() }).nullable(),
  pause: z.boolean(),
})
export type RetentionOffer = z.infer<typeof RetentionOfferSchema>
export const AcceptRetentionSchema = z.object({
  offer: z.enum(['code', 'pause']),
  periods: z.union(PAUSE_PERIODS.map((value) => z.literal(value))).optional(),
  reason: z.enum(CANCEL_REASONS).optional(),
  detail: text({ multiline: true }).trim().max(500).optional(),
})

/** The owner's offer at cancel (PUT /admin/billing-settings). */
export const BillingSettingsSchema = z.object({
  retentionPromoCodeId: z.string().nullable(),
  retentionOffersPause: z.boolean(),
})
export type BillingSettings = z.infer<typeof BillingSettingsSchema>
export const BillingSettingsInputSchema = z.object({
  retentionPromoCodeId: text().uuid('Choose a code').nullable(),
  retentionOffersPause: z.boolean(),
})
