import { TipCreateSchema, TipIntentSchema, TipSchema, text } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { envelope, ok } from '../../../lib/envelope'
import { authOf } from '../../../plugins/auth'
import type { TipsService } from './tips-service'

export const tipRoutes: FastifyPluginAsyncZod<{ tips: TipsService }> = async (app, { tips }) => {
  const tags = ['tips']
  const security = [{ bearerAuth: [] }]
  app.addHook('onRequest', app.requireAuth)

  app.post(
    '/tips/create',
    {
      schema: {
        tags,
        security,
        summary: "Start a tip (the form's rules are enforced here too)",
        body: TipCreateSchema,
        response: {
          200: envelope(TipIntentSchema),
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
        params: z.object({ id: text().min(1).max(255) }),
        response: {
          200: envelope(TipSchema),
        },
      },
    },
    async (request) => ok(await tips.status(authOf(request).user, request.params.id)),
  )
}
