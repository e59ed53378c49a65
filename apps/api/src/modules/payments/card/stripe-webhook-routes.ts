import { WebhookAckSchema } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type Stripe from 'stripe'
import { envelope, ok } from '../../../lib/envelope'
import { AppError } from '../../../lib/errors'
import { securityEvent } from '../../../lib/security-log'
import { WEBHOOK_ROUTE } from '../../../lib/webhook-route'
import type { StripeWebhooks } from './stripe-webhooks'

/**
 * POST /discord/api/webhooks/stripe: the signature is checked on the raw body; 2xx only after the
 * event is recorded and handled; 200 for types we ignore; 5xx (so Stripe retries) when handling fails.
 */
export const stripeWebhookRoutes: FastifyPluginAsyncZod<{
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
    {
      ...WEBHOOK_ROUTE,
      schema: {
        tags: ['webhooks'],
        summary: 'Stripe events (signed)',
        response: { 200: envelope(WebhookAckSchema) },
      },
    },
    async (request, reply) => {
      if (!stripe || !secret || !webhooks)
        throw new AppError('NOT_FOUND', 'Stripe webhooks are not configured')
      const signature = request.headers['stripe-signature']
      if (typeof signature !== 'string' || !Buffer.isBuffer(request.body)) {
        securityEvent(request, 'webhook.signature.invalid', { provider: 'stripe', reason: 'missing' })
        throw new AppError('VALIDATION_ERROR', 'Missing Stripe signature')
      }
      let event: Stripe.Event
      try {
        event = stripe.webhooks.constructEvent(request.body, signature, secret)
      } catch {
        securityEvent(request, 'webhook.signature.invalid', { provider: 'stripe', reason: 'mismatch' })
        throw new AppError('VALIDATION_ERROR', 'Invalid Stripe signature')
      }
      const outcome = await webhooks.handle(event)
      request.server.metrics?.webhookApplied('stripe', event.created)
      return reply.status(200).send(ok({ received: true as const, outcome }))
    },
  )
}
