import type { FastifyPluginAsync } from 'fastify'
import type Stripe from 'stripe'
import { AppError } from '../../lib/errors'
import type { StripeWebhooks } from './stripe-webhooks'

/**
 * POST /discord/api/webhooks/stripe: the signature is checked on the raw body; 2xx only after the
 * event is recorded and handled; 200 for types we ignore; 5xx (so Stripe retries) when handling fails.
 */
export const stripeWebhookRoutes: FastifyPluginAsync<{
  stripe: Stripe | undefined
  secret: string | undefined
  webhooks: StripeWebhooks | undefined
}> = async (app, { stripe, secret, webhooks }) => {
  // This context only: keep the exact bytes Stripe signed.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
    done(null, body),
  )

  app.post(
    '/webhooks/stripe',
    { schema: { tags: ['webhooks'], summary: 'Stripe events (signed)' } },
    async (request, reply) => {
      if (!stripe || !secret || !webhooks)
        throw new AppError('NOT_FOUND', 'Stripe webhooks are not configured')
      const signature = request.headers['stripe-signature']
      if (typeof signature !== 'string' || !Buffer.isBuffer(request.body)) {
        throw new AppError('VALIDATION_ERROR', 'Missing Stripe signature')
      }
      let event: Stripe.Event
      try {
        event = stripe.webhooks.constructEvent(request.body, signature, secret)
      } catch {
        throw new AppError('VALIDATION_ERROR', 'Invalid Stripe signature')
      }
      const outcome = await webhooks.handle(event)
      return reply.status(200).send({ success: true, data: { received: true, outcome } })
    },
  )
}
