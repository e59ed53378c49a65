import { TipCreateSchema } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, ok } from '../../lib/envelope'
import { authOf } from '../../plugins/auth'
import type { TipsService } from './tips-service'

export const tipRoutes: FastifyPluginAsyncZod<{ tips: TipsService }> = async (app, { tips }) => {
  const tags = ['tips']
  const security = [{ bearerAuth: [] }]
  app.addHook('preHandler', app.requireAuth)

  app.post(
    '/tips/create',
    {
      schema: {
        tags,
        security,
        summary: 'Start a tip (SPEC §5 rules enforced here too)',
        body: TipCreateSchema,
        response: {
          200: envelope(
            z.object({
              clientSecret: z.string(),
              paymentIntentId: z.string(),
              tipId: z.string(),
              amount: z.number(),
              currency: z.string(),
              message: z.string(),
            }),
          ),
        },
      },
    },
    async (request) => ok(await tips.create(authOf(request).user, request.body)),
  )

  app.get(
    '/tips/status/:id',
    {
      schema: {
        tags,
        security,
        summary: 'One of your tips, by tip id or PaymentIntent id',
        params: z.object({ id: z.string().min(1).max(255) }),
        response: {
          200: envelope(
            z.object({
              id: z.string(),
              _id: z.string(),
              amount: z.number(),
              currency: z.string(),
              message: z.string(),
              status: z.string(),
              createdAt: z.string(),
            }),
          ),
        },
      },
    },
    async (request) => ok(await tips.status(authOf(request).user, request.params.id)),
  )
}
