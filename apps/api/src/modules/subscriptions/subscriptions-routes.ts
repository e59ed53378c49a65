import {
  AccessStatusSchema,
  CancelRequestSchema,
  CancelResultSchema,
  CreateIntentSchema,
  PageQuerySchema,
  PaymentIntentSchema,
  RenewResultSchema,
  SubscriptionPageSchema,
  text,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, ok } from '../../lib/envelope'
import { SAMPLED_LOG } from '../../lib/hot-route'
import { authOf } from '../../plugins/auth'
import type { CardCheckoutService } from '../payments/card/card-checkout-service'
import { SUBSCRIPTION_SORTS } from './subscriptions-repository'
import type { SubscriptionsService } from './subscriptions-service'

const HistoryQuery = PageQuerySchema.extend({
  sortBy: z.enum(Object.keys(SUBSCRIPTION_SORTS) as [keyof typeof SUBSCRIPTION_SORTS]).default('createdAt'),
})
const IdParams = z.object({ id: text().uuid('Subscription not found') })

export const subscriptionRoutes: FastifyPluginAsyncZod<{
  subscriptions: SubscriptionsService
  card: CardCheckoutService
}> = async (app, { subscriptions, card }) => {
  const tags = ['subscriptions']
  const security = [{ bearerAuth: [] }]
  app.addHook('onRequest', app.requireAuth)

  app.post(
    '/subscriptions/create',
    {
      schema: {
        tags,
        security,
        summary: 'Start a checkout for a plan (same as /payments/create-intent)',
        body: CreateIntentSchema,
        response: { 200: envelope(PaymentIntentSchema) },
      },
    },
    async (request) => ok(await card.createIntent(authOf(request).user, request.body)),
  )

  app.get(
    '/subscriptions/status',
    {
      ...SAMPLED_LOG,
      schema: {
        tags,
        security,
        summary: 'Whether the member has access now, and the subscription behind it',
        response: { 200: envelope(AccessStatusSchema) },
      },
    },
    async (request) => ok(await subscriptions.status(authOf(request).user.id)),
  )

  app.get(
    '/subscriptions/history',
    {
      schema: {
        tags,
        security,
        summary: "The member's subscriptions",
        querystring: HistoryQuery,
        response: { 200: envelope(SubscriptionPageSchema) },
      },
    },
    async (request) => ok(await subscriptions.history(authOf(request).user.id, request.query)),
  )

  app.put(
    '/subscriptions/:id/cancel',
    {
      schema: {
        tags,
        security,
        summary: 'Stop renewing; access lasts until the end date. The reason, when given, goes to the owner',
        params: IdParams,
        body: CancelRequestSchema.nullish(),
        response: { 200: envelope(CancelResultSchema) },
      },
    },
    async (request) =>
      ok(
        await subscriptions.cancel(authOf(request).user, request.params.id, request.body ?? undefined),
        'Your plan will not renew. You keep access until the end of the period.',
      ),
  )

  app.post(
    '/subscriptions/:id/renew',
    {
      schema: {
        tags,
        security,
        summary: 'Resume a cancelling subscription, or start a new checkout for an ended one',
        params: IdParams,
        response: { 200: envelope(RenewResultSchema) },
      },
    },
    async (request) => {
      const result = await subscriptions.renew(authOf(request).user, request.params.id)
      return result.resumed ? ok(result, 'Your plan will renew as before.') : ok(result)
    },
  )
}
