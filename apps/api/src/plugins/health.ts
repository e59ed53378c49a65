import { HealthSchema, ReadinessSchema } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import type { Database } from '../db/database'
import { envelope, ok } from '../lib/envelope'
import { AppError } from '../lib/errors'

/** Liveness (the process answers) and readiness (it can reach its database and is not closing). */
export const healthRoutes: FastifyPluginAsyncZod<{ database: Database; isClosing: () => boolean }> = async (
  app,
  options,
) => {
  app.get('/healthz', { schema: { tags: ['health'], response: { 200: envelope(HealthSchema) } } }, async () =>
    ok({ status: 'ok' as const }),
  )
  app.get(
    '/readyz',
    { schema: { tags: ['health'], response: { 200: envelope(ReadinessSchema) } } },
    async () => {
      if (options.isClosing())
        throw new AppError('UPSTREAM_ERROR', 'Shutting down', {
          statusCode: 503,
          headers: { 'retry-after': '1' },
        })
      try {
        await options.database.ping()
      } catch {
        throw new AppError('UPSTREAM_ERROR', 'The database is not reachable', {
          statusCode: 503,
          headers: { 'retry-after': '5' },
        })
      }
      return ok({ status: 'ready' as const, database: 'ok' as const })
    },
  )
}
