import { z } from 'zod'
import { PaginationSchema } from './list-query'
import { PaymentIntentSchema } from './payments'
import { PLAN_INTERVALS } from './plans'

export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'paused', 'cancelled', 'expired'] as const
/** What a member sees: a subscription in its free trial is 'trialing' (it gives access like 'active'). */
export const SUBSCRIPTION_VIEW_STATUSES = [...SUBSCRIPTION_STATUSES, 'trialing'] as const

export const ScheduledChangeSchema = z.object({
  planId: z.string(),
  planName: z.string(),
  effectiveAt: z.string(),
})

/** A subscription as the API serves it: planId carries the plan's name, slug and interval. */
export const SubscriptionViewSchema = z.object({
  _id: z.string(),
  id: z.string(),
  planId: z.object({
    _id: z.string(),
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    interval: z.enum(PLAN_INTERVALS),
  }),
  status: z.enum(SUBSCRIPTION_VIEW_STATUSES),
  provider: z.enum(['stripe', 'crypto', 'admin']),
  startDate: z.string(),
  endDate: z.string().nullable(),
  graceUntil: z.string().nullable(),
  cancelAtPeriodEnd: z.boolean(),
  createdAt: z.string(),
  /** While 'trialing': when the trial ends (and the first charge falls). */
  trialEndsAt: z.string().nullable(),
  /** While 'paused' (or paused from the end of the paid period): when it resumes and charges again. */
  resumesAt: z.string().nullable(),
  /** A downgrade waiting for the renewal. */
  scheduledChange: ScheduledChangeSchema.nullable(),
})
export type SubscriptionView = z.infer<typeof SubscriptionViewSchema>

/**
 * GET /subscriptions/status: whether the member has access now (the server decides; the browser never
 * works it out from dates), and the subscription to show: the one giving access, else the latest.
 */
export const AccessStatusSchema = z.object({
  hasAccess: z.boolean(),
  activeSubscription: SubscriptionViewSchema.nullable(),
  /** The shown subscription's state, trial end, resume date and scheduled change, at the top level too. */
  status: z.enum(SUBSCRIPTION_VIEW_STATUSES).nullable(),
  trialEndsAt: z.string().nullable(),
  resumesAt: z.string().nullable(),
  scheduledChange: ScheduledChangeSchema.nullable(),
})
export type AccessStatus = z.infer<typeof AccessStatusSchema>

export const SubscriptionPageSchema = z.object({
  items: z.array(SubscriptionViewSchema),
  pagination: PaginationSchema,
})
export type SubscriptionPage = z.infer<typeof SubscriptionPageSchema>

export const CancelResultSchema = z.object({ cancelAtPeriodEnd: z.boolean(), endDate: z.string().nullable() })
export type CancelResult = z.infer<typeof CancelResultSchema>

/** POST /subscriptions/{id}/renew: resumed in place, or a new checkout for an ended plan. */
export const RenewResultSchema = z.object({
  resumed: z.boolean(),
  paymentIntent: PaymentIntentSchema.nullable(),
})
export type RenewResult = z.infer<typeof RenewResultSchema>
