import { CreateCryptoSchema, CryptoCheckoutSchema, WebhookAckSchema } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { parseBtcpayEvent, verifyBtcpaySignature } from '../../../integrations/btcpay/btcpay-client'
import { envelope, ok } from '../../../lib/envelope'
import { AppError } from '../../../lib/errors'
import { securityEvent } from '../../../lib/security-log'
import { WEBHOOK_ROUTE } from '../../../lib/webhook-route'
import { authOf } from '../../../plugins/auth'
import type { CryptoService } from './crypto-service'

export const cryptoRoutes: FastifyPluginAsyncZod<{ crypto: CryptoService }> = async (app, { crypto }) => {
  app.post(
    '/payments/create-crypto',
    {
      onRequest: app.requireAuth,
      schema: {
        tags: ['payments'],
        security: [{ bearerAuth: [] }],
        summary: 'Pay for a plan with crypto: a BTCPay invoice for the plan price (reused while open)',
        body: CreateCryptoSchema,
        response: { 200: envelope(CryptoCheckoutSchema) },
      },
    },
    async (request) =>
      ok(await crypto.createCheckout(authOf(request).user, request.body.planId, request.body.promoCode)),
  )
}

/**
 * POST /discord/api/webhooks/btcpay: BTCPay-Sig checked on the raw body; then the service records the
 * delivery and reads the invoice from BTCPay (its status, not the order of events, decides). 2xx only
 * after that durable write; 5xx, so BTCPay redelivers, when it fails.
 */
export const btcpayWebhookRoutes: FastifyPluginAsyncZod<{
  secret: string | undefined
  crypto: CryptoService
}> = async (app, { secret, crypto }) => {
  // This context only: keep the exact bytes BTCPay signed.
  app.addContentTypeParser('application/json', { parseAs: 'buffer' }, (_request, body, done) =>
    done(null, body),
  )

  app.post(
    '/webhooks/btcpay',
    {
      ...WEBHOOK_ROUTE,
      schema: {
        tags: ['webhooks'],
        summary: 'BTCPay Server invoice events (signed)',
        response: { 200: envelope(WebhookAckSchema) },
      },
    },
    async (request, reply) => {
      if (!crypto.configured() || !secret)
        throw new AppError('NOT_FOUND', 'BTCPay webhooks are not configured')
      const signature = request.headers['btcpay-sig']
      if (
        !Buffer.isBuffer(request.body) ||
        !verifyBtcpaySignature(request.body, typeof signature === 'string' ? signature : undefined, secret)
      ) {
        securityEvent(request, 'webhook.signature.invalid', {
          provider: 'btcpay',
          reason: typeof signature === 'string' ? 'mismatch' : 'missing',
        })
        throw new AppError('VALIDATION_ERROR', 'Invalid BTCPay signature')
      }
      const event = parseBtcpayEvent(request.body)
      if (!event) throw new AppError('VALIDATION_ERROR', 'The body is not a BTCPay webhook event')
      const outcome = await crypto.handleWebhook(event)
      request.server.metrics?.webhookApplied('btcpay', event.timestamp)
      return reply.status(200).send(ok({ received: true as const, outcome }))
    },
  )
}
