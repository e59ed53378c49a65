import { PageQuerySchema, PaymentPageSchema, PaymentSummarySchema } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, ok } from '../../../lib/envelope'
import { SAMPLED_LOG } from '../../../lib/hot-route'
import { authOf } from '../../../plugins/auth'
import { PAYMENT_SORTS } from './payments-repository'
import type { PaymentsService } from './payments-service'

export const PaymentHistoryQuery = PageQuerySchema.extend({
  sortBy: z.enum(Object.keys(PAYMENT_SORTS) as [keyof typeof PAYMENT_SORTS]).default('createdAt'),
  provider: z.enum(['stripe', 'crypto', 'admin']).optional(),
})

/** The member's own ledger: payment history and totals. */
export const paymentRoutes: FastifyPluginAsyncZod<{ payments: PaymentsService }> = async (
  app,
  { payments },
) => {
  const tags = ['payments']
  const security = [{ bearerAuth: [] }]
  app.addHook('onRequest', app.requireAuth)

  app.get(
    '/payments/history',
    {
      ...SAMPLED_LOG,
      schema: {
        tags,
        security,
        summary: "The member's own payments, newest first",
        querystring: PaymentHistoryQuery,
        response: { 200: envelope(PaymentPageSchema) },
      },
    },
    async (request) => ok(await payments.history(authOf(request).user.id, request.query)),
  )

  app.get(
    '/payments/summary',
    {
      schema: {
        tags,
        security,
        summary: 'Total spent (completed payments) per currency',
        response: { 200: envelope(PaymentSummarySchema) },
      },
    },
    async (request) => ok(await payments.summary(authOf(request).user.id)),
  )
}
