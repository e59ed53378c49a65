import { z } from 'zod'
import { PublicUserSchema, USER_ROLES } from './auth'
import { TRIAL_DAYS_MAX } from './billing-rules'
import { DISCORD_LINK_STATES } from './community'
import { PageQuerySchema, PaginationSchema } from './list-query'
import { PAYMENT_STATUSES, PaymentViewSchema } from './payments'
import { PlanPlacesSchema } from './places'
import { PLAN_INTERVALS, type PlanInterval, PlanSchema } from './plans'
import { SubscriptionViewSchema } from './subscriptions'
import { text } from './text'

/**
 * Stripe renews a subscription at most every three years (3 years, 36 months or 156 weeks); a plan
 * that renews less often could never be bought by card.
 */
export const MAX_INTERVAL_COUNT = { week: 156, month: 36, year: 3, lifetime: 1 } as const

/** The plan editor's and the API's message for a renewal interval Stripe cannot bill, or null. */
export function intervalCountProblem(interval: PlanInterval, intervalCount: number): string | null {
  if (interval === 'year' && intervalCount > MAX_INTERVAL_COUNT.year)
    return 'A yearly plan can renew at most every 3 years'
  return null
}

const checkIntervalCount = (
  plan: {
    interval?: PlanInterval | undefined
    intervalCount?: number | undefined
    trialDays?: number | undefined
  },
  context: z.RefinementCtx,
) => {
  if (plan.interval === 'lifetime' && plan.trialDays)
    context.addIssue({ code: 'custom', message: 'A lifetime plan has no trial', path: ['trialDays'] })
  if (plan.interval === undefined || plan.intervalCount === undefined) return
  const problem = intervalCountProblem(plan.interval, plan.intervalCount)
  if (problem) context.addIssue({ code: 'custom', message: problem, path: ['intervalCount'] })
}

/** The fields of a plan as an admin writes it (price in major units), without defaults. */
const planFields = {
  name: text({ error: 'Plan name is required' })
    .trim()
    .min(1, 'Plan name is required')
    .max(60, 'Plan name must be 60 characters or less'),
  slug: text({ error: 'Slug is required' })
    .trim()
    .regex(/^[a-z0-9]+(-[a-z0-9]+)*$/, 'Slug may use lowercase letters, digits and single hyphens')
    .min(2, 'Slug must be at least 2 characters')
    .max(40, 'Slug must be 40 characters or less'),
  description: text({ multiline: true }).trim().max(500, 'Description must be 500 characters or less'),
  price: z
    .number({ error: 'Price must be a number' })
    .min(0.5, 'Price must be at least 0.50')
    .max(100_000, 'Price must be 100,000 or less')
    .refine(
      (value) => Math.abs(value * 100 - Math.round(value * 100)) < 1e-6,
      'Price may have at most 2 decimals',
    ),
  currency: text()
    .trim()
    .toUpperCase()
    .regex(/^[A-Z]{3}$/, 'Currency must be a 3-letter code such as USD'),
  interval: z.enum(PLAN_INTERVALS, 'Interval must be week, month, year or lifetime'),
  intervalCount: z
    .number()
    .int('Interval count must be a whole number')
    .min(1)
    .max(12, 'Interval count must be 12 or less'),
  features: z
    .array(
      text().trim().min(1, 'A feature cannot be empty').max(120, 'A feature must be 120 characters or less'),
    )
    .max(20, 'At most 20 features'),
  isPopular: z.boolean(),
  sortOrder: z.number().int().min(0).max(1000),
  isActive: z.boolean(),
  trialDays: z
    .number('Trial days must be a number')
    .int('Trial days must be a whole number')
    .min(0, 'Trial days cannot be negative')
    .max(TRIAL_DAYS_MAX, `A trial is at most ${TRIAL_DAYS_MAX} days`),
  /** The places the plan opens (Discord roles, Telegram chats, signal categories). */
  places: PlanPlacesSchema,
}
/** A new plan: what is left out takes the editor's defaults. */
export const PlanInputSchema = z
  .object({
    ...planFields,
    description: planFields.description.default(''),
    currency: planFields.currency.default('USD'),
    intervalCount: planFields.intervalCount.default(1),
    features: planFields.features.default([]),
    isPopular: planFields.isPopular.default(false),
    sortOrder: planFields.sortOrder.default(0),
    isActive: planFields.isActive.default(true),
    trialDays: planFields.trialDays.default(0),
    places: planFields.places.optional(),
  })
  .superRefine(checkIntervalCount)
export type PlanInput = z.infer<typeof PlanInputSchema>
/**
 * An edit: only the fields sent change (no defaults here, or an edit of the name would reset the
 * features). The service checks the interval against the stored plan too.
 */
export const PlanUpdateSchema = z.object(planFields).partial().superRefine(checkIntervalCount)

export const GrantAccessSchema = z.object({
  days: z
    .number({ error: 'Enter a number of days' })
    .int('Days must be a whole number')
    .min(1, 'Grant at least 1 day')
    .max(3650, 'Grant at most 3650 days'),
  planId: text().uuid('Choose a plan').optional(),
  note: text().trim().max(300).optional(),
})

export const RefundSchema = z.object({
  /** Major units; omitted: the whole remaining amount. */
  amount: z.number().positive('Refund amount must be positive').max(100_000).optional(),
  reason: text().trim().max(300).optional(),
})

/** Promote, demote, or make an analyst (who publishes and settles signals and has no other admin power). */
export const RoleChangeSchema = z.object({
  role: z.enum(USER_ROLES, 'Role must be member, analyst or admin'),
})
export const DisableSchema = z.object({ disabled: z.boolean() })

/** POST /admin/users/kick|ban|unban. */
export const ModerationSchema = z.object({
  userId: text({ error: 'Choose a member' }).uuid('Choose a member'),
  reason: text().trim().max(300, 'Reason must be 300 characters or less').optional(),
})

export const BroadcastSchema = z.object({
  /**
   * Names this broadcast (the form makes one per message it composes): the same id sent again is
   * refused as already sent, so a double click or a retried request never posts twice. Without it,
   * every request is a new broadcast.
   */
  broadcastId: text().uuid('broadcastId must be a UUID').optional(),
  message: text({ multiline: true, error: 'Write a message' })
    .trim()
    .min(1, 'Write a message')
    .max(1800, 'Discord messages must be 1800 characters or less'),
  title: text().trim().max(120).optional(),
  alsoEmail: z.boolean().default(false),
  /** Also a bot message to every member who connected Telegram (queued within Telegram's limits). */
  alsoTelegram: z.boolean().default(false),
})

export const USER_SORTS = ['createdAt', 'email', 'name'] as const
export const SUBSCRIPTION_SORT_FIELDS = ['createdAt', 'startDate', 'endDate', 'status'] as const
export const PAYMENT_SORT_FIELDS = ['createdAt', 'amount', 'status'] as const
export const PLAN_SORTS = ['sortOrder', 'name', 'price', 'createdAt'] as const

export const AdminUsersQuerySchema = PageQuerySchema.extend({
  sortBy: z.enum(USER_SORTS, `sortBy must be one of ${USER_SORTS.join(', ')}`).default('createdAt'),
  role: z.enum(USER_ROLES).optional(),
})
export const AdminSubscriptionsQuerySchema = PageQuerySchema.extend({
  sortBy: z
    .enum(SUBSCRIPTION_SORT_FIELDS, `sortBy must be one of ${SUBSCRIPTION_SORT_FIELDS.join(', ')}`)
    .default('createdAt'),
  status: z.enum(['active', 'past_due', 'paused', 'cancelled', 'expired']).optional(),
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

/** A member in the admin lists: the public user plus account and Discord state, and access now. */
export const AdminUserSchema = PublicUserSchema.extend({
  disabled: z.boolean(),
  /** By the access ledger's rule, on the server; the console never works it out itself. */
  hasAccess: z.boolean(),
  discord: z.object({
    state: z.enum(DISCORD_LINK_STATES),
    roleGranted: z.boolean(),
    /**
     * Verified: the member connected this Discord account through Discord's OAuth2. Unverified: we
     * only have the username they typed, which anyone can type.
     */
    verified: z.boolean(),
  }),
  /** The Telegram account the member connected (through the bot's deep link), if any. */
  telegram: z.object({ connected: z.boolean(), username: z.string().nullable() }),
})
export type AdminUser = z.infer<typeof AdminUserSchema>

/** One Telegram chat the member's plan grants, and where the member stands in it. */
export const ADMIN_TELEGRAM_CHAT_STATES = [
  'not-joined',
  'link-sent',
  'member',
  'removed',
  'declined',
  'banned',
] as const

/** The member's Telegram side, beside Discord's in the console. */
export const AdminTelegramSchema = z.object({
  account: z
    .object({ telegramUserId: z.string(), username: z.string().nullable(), connectedAt: z.string() })
    .nullable(),
  banned: z.boolean(),
  reminders: z.boolean(),
  chats: z.array(
    z.object({
      placeId: z.string(),
      title: z.string(),
      granted: z.boolean(),
      state: z.enum(ADMIN_TELEGRAM_CHAT_STATES),
    }),
  ),
})
export type AdminTelegram = z.infer<typeof AdminTelegramSchema>

export const AdminUserPageSchema = z.object({ items: z.array(AdminUserSchema), pagination: PaginationSchema })
export type AdminUserPage = z.infer<typeof AdminUserPageSchema>

/** One member in full: subscriptions, payments, Discord link, and the subscription giving access now. */
export const AdminUserDetailSchema = z.object({
  user: AdminUserSchema,
  currentAccess: SubscriptionViewSchema.nullable(),
  discord: z.object({
    state: z.enum(DISCORD_LINK_STATES),
    roleGranted: z.boolean(),
    discordUserId: z.string().nullable(),
    lastSyncedAt: z.string().nullable(),
    lastError: z.string().nullable(),
    banned: z.boolean(),
    verified: z.boolean(),
    /** The connected account's Discord username and when it was proven (null: unverified). */
    verifiedUsername: z.string().nullable(),
    verifiedAt: z.string().nullable(),
  }),
  telegram: AdminTelegramSchema,
  /** What the member's plan opens now (empty without access). */
  places: z.object({
    discordRoles: z.array(z.string()),
    telegramChats: z.array(z.string()),
    signalCategories: z.union([z.literal('all'), z.array(z.string())]),
  }),
  subscriptions: z.array(SubscriptionViewSchema),
  payments: z.array(PaymentViewSchema),
})
export type AdminUserDetail = z.infer<typeof AdminUserDetailSchema>

export const GrantResultSchema = z.object({ endDate: z.string(), plan: z.string() })
export type GrantResult = z.infer<typeof GrantResultSchema>
export const DisableResultSchema = z.object({ disabled: z.boolean() })
export const RefundResultSchema = z.object({ status: z.enum(PAYMENT_STATUSES), amountRefunded: z.number() })
export type RefundResult = z.infer<typeof RefundResultSchema>

/** A subscription in the admin list, with whose it is. */
export const AdminSubscriptionSchema = SubscriptionViewSchema.extend({
  userId: z.string(),
  userEmail: z.string(),
})
export type AdminSubscription = z.infer<typeof AdminSubscriptionSchema>
export const AdminSubscriptionPageSchema = z.object({
  items: z.array(AdminSubscriptionSchema),
  pagination: PaginationSchema,
})
export type AdminSubscriptionPage = z.infer<typeof AdminSubscriptionPageSchema>

/** A plan as the plans editor reads it: archived or not, and how many members hold it now. */
export const AdminPlanSchema = PlanSchema.extend({
  archived: z.boolean(),
  subscriberCount: z.number().int(),
  places: PlanPlacesSchema,
})
export type AdminPlan = z.infer<typeof AdminPlanSchema>
export const AdminPlanPageSchema = z.object({ items: z.array(AdminPlanSchema), pagination: PaginationSchema })
export type AdminPlanPage = z.infer<typeof AdminPlanPageSchema>
export const PlanRemovalSchema = z.object({ deleted: z.boolean(), archived: z.boolean() })

/** The console's overview: members, MRR, revenue per month, churn, plan mix and tips (USD). */
export const AnalyticsSchema = z.object({
  currency: z.string(),
  activeMembers: z.number().int(),
  mrr: z.number(),
  revenueByMonth: z.array(z.object({ month: z.string(), amount: z.number() })),
  newMembers30d: z.number().int(),
  cancellations30d: z.number().int(),
  churnRate: z.number(),
  planMix: z.array(
    z.object({ planId: z.string(), name: z.string(), slug: z.string(), members: z.number().int() }),
  ),
  tips: z.array(z.object({ currency: z.string(), amount: z.number(), count: z.number().int() })),
  /** Free trials: started in the last 30 days, and of the trials that ended then, how many paid. */
  trials: z.object({
    started30d: z.number().int(),
    ended30d: z.number().int(),
    converted30d: z.number().int(),
    /** converted ÷ ended (null when none ended). */
    conversionRate: z.number().nullable(),
  }),
  /** This month's MRR movements (USD, monthly amounts): new, expansion, contraction, churned, reactivated. */
  mrrMovements: z.object({
    month: z.string(),
    new: z.number(),
    expansion: z.number(),
    contraction: z.number(),
    churned: z.number(),
    reactivated: z.number(),
    net: z.number(),
  }),
  /** Promo code redemptions in the last 30 days, by code. */
  promoRedemptions: z.array(z.object({ code: z.string(), redemptions: z.number().int() })),
  /** Why members cancelled in the last 30 days (and how many an offer kept). */
  cancellationReasons: z.array(
    z.object({ reason: z.string(), label: z.string(), cancelled: z.number().int(), kept: z.number().int() }),
  ),
})
export type Analytics = z.infer<typeof AnalyticsSchema>

/** One admin action in the audit log. */
export const AuditEntrySchema = z.object({
  id: z.string(),
  actor: z.object({ id: z.string(), email: z.string() }).nullable(),
  action: z.string(),
  targetType: z.string(),
  targetId: z.string().nullable(),
  outcome: z.enum(['success', 'failure']),
  details: z.record(z.string(), z.unknown()),
  createdAt: z.string(),
})
export type AuditEntry = z.infer<typeof AuditEntrySchema>
export const AuditPageSchema = z.object({ items: z.array(AuditEntrySchema), pagination: PaginationSchema })
export type AuditPage = z.infer<typeof AuditPageSchema>

/** Something a payment processor holds as paid that the ledger could not match (the sweep found it). */
export const ReconciliationIssueSchema = z.object({
  id: z.string(),
  rail: z.enum(['card', 'crypto']),
  objectId: z.string(),
  kind: z.string(),
  amount: z.number().nullable(),
  currency: z.string().nullable(),
  detail: z.string(),
  firstSeenAt: z.string(),
  lastSeenAt: z.string(),
})
export type ReconciliationIssue = z.infer<typeof ReconciliationIssueSchema>
export const ReconciliationIssuesSchema = z.object({ issues: z.array(ReconciliationIssueSchema) })
export type ReconciliationIssues = z.infer<typeof ReconciliationIssuesSchema>

/** POST /admin/reconciliation/run: what a sweep run now repaired and could not match, and the open list. */
export const ReconciliationRunSchema = ReconciliationIssuesSchema.extend({
  repaired: z.number().int(),
  unmatched: z.number().int(),
})
export type ReconciliationRun = z.infer<typeof ReconciliationRunSchema>
