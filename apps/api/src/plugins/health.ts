import type { FastifyInstance } from 'fastify'
import type { Database } from '../db/database'
import { AppError } from '../lib/errors'

/** Liveness (the process answers) and readiness (it can reach its database and is not closing). */
export async function healthRoutes(
  app: FastifyInstance,
  options: { database: Database; isClosing: () => boolean },
) {
  app.get('/healthz', async () => ({ success: true, data: { status: 'ok' } }))
  app.get('/readyz', async () => {
    if (options.isClosing()) throw new AppError('UPSTREAM_ERROR', 'Shutting down', { statusCode: 503 })
    try {
      await options.database.ping()
    } catch {
      throw new AppError('UPSTREAM_ERROR', 'The database is not reachable', { statusCode: 503 })
    }
    return { success: true, data: { status: 'ready', database: 'ok' } }
  })
}
