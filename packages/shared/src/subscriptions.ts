import { z } from 'zod'
import { PaginationSchema } from './list-query'
import { PaymentIntentSchema } from './payments'
import { PLAN_INTERVALS } from './plans'

export const SUBSCRIPTION_STATUSES = ['active', 'past_due', 'cancelled', 'expired'] as const

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
  status: z.enum(SUBSCRIPTION_STATUSES),
  provider: z.enum(['stripe', 'crypto', 'admin']),
  startDate: z.string(),
  endDate: z.string().nullable(),
  graceUntil: z.string().nullable(),
  cancelAtPeriodEnd: z.boolean(),
  createdAt: z.string(),
})
export type SubscriptionView = z.infer<typeof SubscriptionViewSchema>

/**
 * GET /subscriptions/status: whether the member has access now (the server decides; the browser never
 * works it out from dates), and the subscription to show: the one giving access, else the latest.
 */
export const AccessStatusSchema = z.object({
  hasAccess: z.boolean(),
  activeSubscription: SubscriptionViewSchema.nullable(),
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
