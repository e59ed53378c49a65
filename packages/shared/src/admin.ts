import { z } from 'zod'
import { PageQuerySchema } from './list-query'
import { PLAN_INTERVALS } from './plans'

/** SPEC §3 Plan, as an admin writes it (price in major units). */
export const PlanInputSchema = z.object({
  name: z
    .string({ error: 'Plan name is required' })
    .trim()
    .min(1, 'Plan name is required')
    .max(60, 'Plan name must be 60 characters or less'),
  slug: z
    .string({ error: 'Slug is required' })
    .trim()
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'Slug may use lowercase letters, digits and single hyphens')
    .min(2, 'Slug must be at least 2 characters')
    .max(40, 'Slug must be 40 characters or less'),
  description: z.string().trim().max(500, 'Description must be 500 characters or less').default(''),
  price: z
    .number({ error: 'Price must be a number' })
    .min(0.5, 'Price must be at least 0.50')
    .max(100_000, 'Price must be 100,000 or less')
    .refine(
      (value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6,
      'Price may have at most 2 decimals',
    ),
  currency: z
    .string()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, 'Currency must be a 3-letter code such as USD')
    .default('USD'),
  interval: z.enum(PLAN_INTERVALS, 'Interval must be week, month, year or lifetime'),
  intervalCount: z
    .number()
    .int('Interval count must be a whole number')
    .min(1)
    .max(12, 'Interval count must be 12 or less')
    .default(1),
  features: z
    .array(
      z
        .string()
        .trim()
        .min(1, 'A feature cannot be empty')
        .max(120, 'A feature must be 120 characters or less'),
    )
    .max(20, 'At most 20 features')
    .default([]),
  isPopular: z.boolean().default(false),
  sortOrder: z.number().int().min(0).max(1000).default(0),
  isActive: z.boolean().default(true),
})
export type PlanInput = z.infer<typeof PlanInputSchema>
export const PlanUpdateSchema = PlanInputSchema.partial()

export const GrantAccessSchema = z.object({
  days: z
    .number({ error: 'Enter a number of days' })
    .int('Days must be a whole number')
    .min(1, 'Grant at least 1 day')
    .max(3650, 'Grant at most 3650 days'),
  planId: z.string().uuid('Choose a plan').optional(),
  note: z.string().trim().max(300).optional(),
})

export const RefundSchema = z.object({
  /** Major units; omitted: the whole remaining amount. */
  amount: z.number().positive('Refund amount must be positive').max(100_000).optional(),
  reason: z.string().trim().max(300).optional(),
})

export const RoleChangeSchema = z.object({
  role: z.enum(['member', 'admin'], 'Role must be member or admin'),
})
export const DisableSchema = z.object({ disabled: z.boolean() })

/** POST /admin/users/kick|ban|unban. */
export const ModerationSchema = z.object({
  userId: z.string({ error: 'Choose a member' }).uuid('Choose a member'),
  reason: z.string().trim().max(300, 'Reason must be 300 characters or less').optional(),
})

export const BroadcastSchema = z.object({
  message: z
    .string({ error: 'Write a message' })
    .trim()
    .min(1, 'Write a message')
    .max(1800, 'Discord messages must be 1800 characters or less'),
  title: z.string().trim().max(120).optional(),
  alsoEmail: z.boolean().default(false),
})

export const USER_SORTS = ['createdAt', 'email', 'name'] as const
export const SUBSCRIPTION_SORT_FIELDS = ['createdAt', 'startDate', 'endDate', 'status'] as const
export const PAYMENT_SORT_FIELDS = ['createdAt', 'amount', 'status'] as const
export const PLAN_SORTS = ['sortOrder', 'name', 'price', 'createdAt'] as const

export const AdminUsersQuerySchema = PageQuerySchema.extend({
  sortBy: z.enum(USER_SORTS, `sortBy must be one of ${USER_SORTS.join(', ')}`).default('createdAt'),
  role: z.enum(['member', 'admin']).optional(),
})
export const AdminSubscriptionsQuerySchema = PageQuerySchema.extend({
  sortBy: z
    .enum(SUBSCRIPTION_SORT_FIELDS, `sortBy must be one of ${SUBSCRIPTION_SORT_FIELDS.join(', ')}`)
    .default('createdAt'),
  status: z.enum(['active', 'past_due', 'cancelled', 'expired']).optional(),
})
export const AdminPaymentsQuerySchema = PageQuerySchema.extend({
  sortBy: z
    .enum(PAYMENT_SORT_FIELDS, `sortBy must be one of ${PAYMENT_SORT_FIELDS.join(', ')}`)
    .default('createdAt'),
  provider: z.enum(['stripe', 'crypto', 'admin']).optional(),
  status: z
    .enum(['pending', 'completed', 'failed', 'cancelled', 'refunded', 'partially_refunded'])
    .optional(),
})
export const AdminPlansQuerySchema = PageQuerySchema.extend({
  sortBy: z.enum(PLAN_SORTS, `sortBy must be one of ${PLAN_SORTS.join(', ')}`).default('sortOrder'),
  sortOrder: z.enum(['asc', 'desc']).default('asc'),
  includeArchived: z
    .enum(['true', 'false'])
    .default('true')
    .transform((value) => value === 'true'),
})
