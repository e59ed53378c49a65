import {
  PromoCodeInputSchema,
  PromoCodeListSchema,
  PromoCodeSchema,
  PromoQuoteQuerySchema,
  PromoQuoteSchema,
  text,
} from '@edgeclub/shared'
import type { FastifyPluginAsyncZod, ZodTypeProvider } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, ok } from '../../../lib/envelope'
import { bodyOf } from '../../../plugins/audit'
import { authOf } from '../../../plugins/auth'
import type { PromoCodesService } from './promo-codes-service'

const IdParams = z.object({ id: text().min(1).max(64) })

/** Members check a code against a plan; admins make, list and deactivate codes (audited). */
export const promoCodeRoutes: FastifyPluginAsyncZod<{ promos: PromoCodesService }> = async (
  app,
  { promos },
) => {
  const security = [{ bearerAuth: [] }]

  app.get(
    '/promo-codes/:code',
    {
      onRequest: app.requireAuth,
      schema: {
        tags: ['payments'],
        security,
        summary: 'What the first payment of a plan costs with a code, or why the code is refused',
        params: z.object({ code: text().trim().min(1).max(40) }),
        querystring: PromoQuoteQuerySchema,
        response: { 200: envelope(PromoQuoteSchema) },
      },
    },
    async (request) =>
      ok(await promos.quote(authOf(request).user, request.params.code, request.query.planId)),
  )

  await app.register(async (admin) => {
    admin.addHook('onRequest', admin.requireAdmin)
    const tags = ['admin']

    admin.withTypeProvider<ZodTypeProvider>().post(
      '/admin/promo-codes',
      {
        config: {
          audit: { action: 'promo.create', targetType: 'promo_code', target: (r) => String(bodyOf(r).code) },
        },
        schema: {
          tags,
          security,
          summary: 'Create a promo code (a Stripe coupon and promotion code for card payments)',
          body: PromoCodeInputSchema,
          response: { 201: envelope(PromoCodeSchema) },
        },
      },
      async (request, reply) =>
        reply
          .status(201)
          .send(ok(await promos.create(request.body, authOf(request).user.id), 'Promo code created')),
    )

    admin.withTypeProvider<ZodTypeProvider>().get(
      '/admin/promo-codes',
      {
        schema: {
          tags,
          security,
          summary: 'Promo codes with their redemptions and the revenue they brought',
          response: { 200: envelope(PromoCodeListSchema) },
        },
      },
      async () => ok({ items: await promos.list() }),
    )

    admin.withTypeProvider<ZodTypeProvider>().post(
      '/admin/promo-codes/:id/deactivate',
      {
        config: { audit: { action: 'promo.deactivate', targetType: 'promo_code' } },
        schema: {
          tags,
          security,
          summary: 'Stop a promo code from being used (what was redeemed stays)',
          params: IdParams,
          response: { 200: envelope(PromoCodeSchema) },
        },
      },
      async (request) => ok(await promos.deactivate(request.params.id), 'Promo code deactivated'),
    )
  })
}
