import pino from 'pino'
import { ConfigError, loadConfig } from '../config'
import { openDatabase } from '../db/database'
import { prepareDatabase } from '../prepare-database'
import { QUEUES } from '../workers'

/**
 * `npm run migrate`: brings the database (DATABASE_URL, or the embedded one in DATA_DIR) to this
 * version's schema, starting plans and job queues included, then exits. For deploy pipelines that
 * migrate before they start or replace instances; an instance that starts does the same by itself,
 * under the same lock, and finds nothing left to do.
 */
async function main() {
  const config = loadConfig()
  const log = pino({ level: config.logLevel })
  const database = await openDatabase(
    config.databaseUrl
      ? { databaseUrl: config.databaseUrl, timeouts: config.database.timeouts }
      : { pgliteDir: config.dataDir },
  )
  try {
    const jobs = await prepareDatabase(database, {
      policies: QUEUES,
      pollSeconds: config.jobs.pollSeconds,
      log,
    })
    await jobs.stop()
  } finally {
    await database.close()
  }
  console.log(
    `The ${config.databaseUrl ? 'PostgreSQL' : `embedded (${config.dataDir})`} database is up to date.`,
  )
}

main().catch((error: unknown) => {
  console.error(
    error instanceof ConfigError
      ? error.message
      : `Migration failed: ${error instanceof Error ? error.message : error}`,
  )
  process.exit(1)
})
