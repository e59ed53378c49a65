import { CreateIntentSchema, PageQuerySchema, PaginationSchema } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, ok } from '../../lib/envelope'
import { authOf } from '../../plugins/auth'
import type { CheckoutService } from '../payments/checkout-service'
import { PaymentIntentSchema, pages } from '../payments/payments-routes'
import { SUBSCRIPTION_SORTS } from './subscriptions-repository'
import type { SubscriptionsService } from './subscriptions-service'

const SubscriptionViewSchema = z.object({
  _id: z.string(),
  id: z.string(),
  planId: z.object({
    _id: z.string(),
    id: z.string(),
    name: z.string(),
    slug: z.string(),
    interval: z.string(),
  }),
  status: z.string(),
  provider: z.string(),
  startDate: z.string(),
  endDate: z.string().nullable(),
  graceUntil: z.string().nullable(),
  cancelAtPeriodEnd: z.boolean(),
  createdAt: z.string(),
})

const HistoryQuery = PageQuerySchema.extend({
  sortBy: z.enum(Object.keys(SUBSCRIPTION_SORTS) as [keyof typeof SUBSCRIPTION_SORTS]).default('createdAt'),
})
const IdParams = z.object({ id: z.string().uuid('Subscription not found') })

export const subscriptionRoutes: FastifyPluginAsyncZod<{
  subscriptions: SubscriptionsService
  checkout: CheckoutService
}> = async (app, { subscriptions, checkout }) => {
  const tags = ['subscriptions']
  const security = [{ bearerAuth: [] }]

  app.post(
    '/subscriptions/create',
    {
      preHandler: app.requireAuth,
      schema: {
        tags,
        security,
        summary: 'Start a checkout for a plan (same as /payments/create-intent)',
        body: CreateIntentSchema,
        response: { 200: envelope(PaymentIntentSchema) },
      },
    },
    async (request) => ok(await checkout.createIntent(authOf(request).user, request.body)),
  )

  app.get(
    '/subscriptions/status',
    {
      preHandler: app.requireAuth,
      schema: {
        tags,
        security,
        summary: 'Whether the member has access now, and the subscription behind it',
        response: {
          200: envelope(
            z.object({ hasAccess: z.boolean(), activeSubscription: SubscriptionViewSchema.nullable() }),
          ),
        },
      },
    },
    async (request) => ok(await subscriptions.status(authOf(request).user.id)),
  )

  app.get(
    '/subscriptions/history',
    {
      preHandler: app.requireAuth,
      schema: {
        tags,
        security,
        summary: "The member's subscriptions",
        querystring: HistoryQuery,
        response: {
          200: envelope(z.object({ items: z.array(SubscriptionViewSchema), pagination: PaginationSchema })),
        },
      },
    },
    async (request) => {
      const { rows, total } = await subscriptions.history(authOf(request).user.id, request.query)
      return ok({ items: rows, pagination: pages(request.query.page, request.query.limit, total) })
    },
  )

  app.put(
    '/subscriptions/:id/cancel',
    {
      preHandler: app.requireAuth,
      schema: {
        tags,
        security,
        summary: 'Stop renewing; access lasts until the end date',
        params: IdParams,
        response: {
          200: envelope(z.object({ cancelAtPeriodEnd: z.boolean(), endDate: z.string().nullable() })),
        },
      },
    },
    async (request) => {
      const row = await checkout.cancel(authOf(request).user, request.params.id)
      return ok(
        {
          cancelAtPeriodEnd: row?.cancel_at_period_end ?? true,
          endDate: row?.end_date ? new Date(row.end_date).toISOString() : null,
        },
        'Your plan will not renew. You keep access until the end of the period.',
      )
    },
  )

  app.post(
    '/subscriptions/:id/renew',
    {
      preHandler: app.requireAuth,
      schema: {
        tags,
        security,
        summary: 'Resume a cancelling subscription, or start a new checkout for an ended one',
        params: IdParams,
        response: {
          200: envelope(z.object({ resumed: z.boolean(), paymentIntent: PaymentIntentSchema.nullable() })),
        },
      },
    },
    async (request) => {
      const result = await checkout.renew(authOf(request).user, request.params.id)
      return 'resumed' in result
        ? ok({ resumed: true, paymentIntent: null }, 'Your plan will renew as before.')
        : ok({ resumed: false, paymentIntent: result.paymentIntent })
    },
  )
}
