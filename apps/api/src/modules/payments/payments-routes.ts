import {
  ConfirmPaymentSchema,
  CreateIntentSchema,
  fromMinorUnits,
  PageQuerySchema,
  PaginationSchema,
  PlanSchema,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, ok } from '../../lib/envelope'
import { authOf } from '../../plugins/auth'
import type { CheckoutService } from './checkout-service'
import { PaymentViewSchema, toPaymentView } from './payment-views'
import { PAYMENT_SORTS, type PaymentsRepository } from './payments-repository'

export const PaymentIntentSchema = z.object({
  clientSecret: z.string(),
  paymentIntentId: z.string(),
  amount: z.number(),
  currency: z.string(),
  paymentId: z.string(),
  plan: PlanSchema.nullable(),
})

export const PaymentHistoryQuery = PageQuerySchema.extend({
  sortBy: z.enum(Object.keys(PAYMENT_SORTS) as [keyof typeof PAYMENT_SORTS]).default('createdAt'),
  provider: z.enum(['stripe', 'crypto', 'admin']).optional(),
})

export const pages = (page: number, limit: number, total: number) => ({
  page,
  limit,
  total,
  pages: Math.ceil(total / limit),
})

export const paymentRoutes: FastifyPluginAsyncZod<{
  checkout: CheckoutService
  payments: PaymentsRepository
}> = async (app, { checkout, payments }) => {
  const tags = ['payments']
  const security = [{ bearerAuth: [] }]
  app.addHook('preHandler', app.requireAuth)

  app.post(
    '/payments/create-intent',
    {
      schema: {
        tags,
        security,
        summary: 'Start paying for a plan (the amount always comes from the plan)',
        body: CreateIntentSchema,
        response: { 200: envelope(PaymentIntentSchema) },
      },
    },
    async (request) => ok(await checkout.createIntent(authOf(request).user, request.body)),
  )

  app.post(
    '/payments/confirm',
    {
      schema: {
        tags,
        security,
        summary: 'After Stripe.js reports success: check with Stripe and grant access',
        body: ConfirmPaymentSchema,
        response: {
          200: envelope(z.object({ paymentId: z.string(), status: z.string(), stripeStatus: z.string() })),
        },
      },
    },
    async (request) => ok(await checkout.confirm(authOf(request).user, request.body.paymentIntentId)),
  )

  app.get(
    '/payments/history',
    {
      schema: {
        tags,
        security,
        summary: "The member's own payments, newest first",
        querystring: PaymentHistoryQuery,
        response: {
          200: envelope(z.object({ items: z.array(PaymentViewSchema), pagination: PaginationSchema })),
        },
      },
    },
    async (request) => {
      const query = request.query
      const { rows, total } = await payments.list({ ...query, userId: authOf(request).user.id })
      return ok({
        items: rows.map((row) => toPaymentView(row)),
        pagination: pages(query.page, query.limit, total),
      })
    },
  )

  app.get(
    '/payments/summary',
    {
      schema: {
        tags,
        security,
        summary: 'Total spent (completed payments) per currency',
        response: {
          200: envelope(
            z.object({
              totals: z.array(z.object({ currency: z.string(), amount: z.number() })),
              completedCount: z.number().int(),
            }),
          ),
        },
      },
    },
    async (request) => {
      const rows = await payments.completedTotals(authOf(request).user.id)
      return ok({
        totals: rows.map((row) => ({
          currency: row.currency,
          amount: fromMinorUnits(Number(row.total), row.currency),
        })),
        completedCount: rows.reduce((sum, row) => sum + Number(row.count), 0),
      })
    },
  )

  app.post(
    '/payments/retry/:id',
    {
      schema: {
        tags,
        security,
        summary: 'A fresh client secret for one of your pending or failed payments',
        params: z.object({ id: z.string().min(1).max(255) }),
        response: { 200: envelope(PaymentIntentSchema) },
      },
    },
    async (request) => ok(await checkout.retry(authOf(request).user, request.params.id)),
  )
}
