import { z } from 'zod'

export const PLAN_INTERVALS = ['week', 'month', 'year', 'lifetime'] as const
export type PlanInterval = (typeof PLAN_INTERVALS)[number]

/** A plan as the API serves it (price in major units; id and _id are the same value). */
export const PlanSchema = z.object({
  id: z.string(),
  _id: z.string(),
  name: z.string(),
  slug: z.string(),
  description: z.string(),
  price: z.number(),
  currency: z.string(),
  interval: z.enum(PLAN_INTERVALS),
  intervalCount: z.number().int(),
  features: z.array(z.string()),
  isPopular: z.boolean(),
  sortOrder: z.number().int(),
  isActive: z.boolean(),
  /** Free days before the first charge (0: none); a member gets one trial, ever. */
  trialDays: z.number().int(),
})
export type Plan = z.infer<typeof PlanSchema>
