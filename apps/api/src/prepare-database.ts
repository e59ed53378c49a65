import type { FastifyBaseLogger } from 'fastify'
import type { Database } from './db/database'
import { migrateToLatest } from './db/migrate'
import { seedPlans } from './db/seed'
import { type Jobs, type QueuePolicies, startJobs } from './queue/job-runner'

/**
 * What an instance does to its database before it serves: migrations, the starting plans, the job
 * queue's schema and queues. On PostgreSQL all of it runs under one advisory lock, so any number of
 * instances may start at once (pg-boss's queue creation deadlocks when two run it together); the
 * first one does the work and the others find it done. `npm run migrate` runs the same for deploy
 * pipelines that migrate before they start instances.
 */
/** The lock every schema change of this app takes (instances, `npm run migrate`, `npm run admin`). */
export const PREPARE_LOCK = 'edgeclub:prepare-database'

export async function prepareDatabase(
  database: Database,
  options: { policies: QueuePolicies; pollSeconds: number; retryDelayScale?: number; log: FastifyBaseLogger },
): Promise<Jobs> {
  return database.exclusively(
    PREPARE_LOCK,
    async () => {
      await database.withoutTimeouts((db) => migrateToLatest(db))
      await seedPlans(database.db)
      return startJobs(database, options)
    },
    () => options.log.info('another instance is preparing the database: waiting for it'),
  )
}
