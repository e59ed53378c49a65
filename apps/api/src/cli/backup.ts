import path from 'node:path'
import { ConfigError, loadConfig } from '../config'
import { BackupError, backupEmbedded, backupPostgres } from '../db/backups'

/**
 * `npm run backup -- <file>`: a consistent copy of the database. The embedded one (DATA_DIR) is
 * dumped by the running server when there is one, else by this process; PostgreSQL (DATABASE_URL)
 * through pg_dump's custom format. Restore with `npm run restore -- <file>`.
 */
async function main() {
  const [file, ...rest] = process.argv.slice(2)
  if (!file || rest.length > 0 || file.startsWith('-')) {
    console.error('Usage: npm run backup -- <file>')
    process.exit(2)
  }
  const target = path.resolve(file)
  const config = loadConfig()
  if (config.databaseUrl) {
    const { bytes } = await backupPostgres(config.databaseUrl, target)
    console.log(`Backed up the PostgreSQL database to ${target} (${bytes} bytes, pg_dump custom format).`)
    return
  }
  const outcome = await backupEmbedded(config.dataDir, target)
  console.log(
    `Backed up the embedded database in ${config.dataDir} to ${target} (${outcome.bytes} bytes, taken by ${
      outcome.takenBy === 'running server' ? `the running server, pid ${outcome.pid}` : 'this process'
    }).`,
  )
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof BackupError
  console.error(known ? error.message : `Backup failed: ${error instanceof Error ? error.message : error}`)
  process.exit(1)
})
