import {
  ConfirmPaymentSchema,
  CreateIntentSchema,
  PaymentConfirmationSchema,
  PaymentIntentSchema,
  text,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, ok } from '../../../lib/envelope'
import { authOf } from '../../../plugins/auth'
import type { CardCheckoutService } from './card-checkout-service'

/** Paying a plan by card: start, confirm with Stripe, and try again. */
export const cardRoutes: FastifyPluginAsyncZod<{ card: CardCheckoutService }> = async (app, { card }) => {
  const tags = ['payments']
  const security = [{ bearerAuth: [] }]
  app.addHook('onRequest', app.requireAuth)

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
    async (request) => ok(await card.createIntent(authOf(request).user, request.body)),
  )

  app.post(
    '/payments/confirm',
    {
      schema: {
        tags,
        security,
        summary:
          'After Stripe.js reports success: check with Stripe and grant access; a saved card (setupIntentId) starts its trial',
        body: ConfirmPaymentSchema,
        response: { 200: envelope(PaymentConfirmationSchema) },
      },
    },
    async (request) => ok(await card.confirm(authOf(request).user, request.body)),
  )

  app.post(
    '/payments/retry/:id',
    {
      schema: {
        tags,
        security,
        summary: 'A fresh client secret for one of your pending or failed payments',
        params: z.object({ id: text().min(1).max(255) }),
        response: { 200: envelope(PaymentIntentSchema) },
      },
    },
    async (request) => ok(await card.retry(authOf(request).user, request.params.id)),
  )
}
