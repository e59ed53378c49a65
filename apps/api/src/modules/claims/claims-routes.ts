import { ClaimsInputSchema, ClaimsSettingsSchema, ShownClaimsSchema } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { envelope, ok } from '../../lib/envelope'
import type { ClaimsService } from './claims-service'

/** The marketing claims: what the public pages show, and the owner's settings with their warnings. */
export const claimsRoutes: FastifyPluginAsyncZod<{ claims: ClaimsService }> = async (app, { claims }) => {
  app.get(
    '/claims',
    {
      schema: {
        tags: ['claims'],
        summary:
          'The claims the public pages show (members, accuracy, win rate, track record); fromRecord when the win rate is the verified record’s',
        response: { 200: envelope(ShownClaimsSchema) },
      },
    },
    async (_request, reply) => {
      reply.header('cache-control', 'public, max-age=30')
      return ok(await claims.shown())
    },
  )

  app.get(
    '/admin/claims',
    {
      onRequest: app.requireAdmin,
      schema: {
        tags: ['admin'],
        security: [{ bearerAuth: [] }],
        summary:
          'The claims as typed, what the pages show, what the record says, and warnings where they disagree',
        response: { 200: envelope(ClaimsSettingsSchema) },
      },
    },
    async () => ok(await claims.settings()),
  )

  app.put(
    '/admin/claims',
    {
      onRequest: app.requireAdmin,
      config: { audit: { action: 'claims.settings', targetType: 'settings', target: () => null } },
      schema: {
        tags: ['admin'],
        security: [{ bearerAuth: [] }],
        summary:
          'Set the claims; showRecordFigures puts the record’s own win rate, sample and period in their place (only once enough picks have settled)',
        body: ClaimsInputSchema,
        response: { 200: envelope(ClaimsSettingsSchema) },
      },
    },
    async (request) => ok(await claims.save(request.body), 'Claims saved'),
  )
}
