import path from 'node:path'
import { ConfigError, loadConfig } from '../config'
import { BackupError, restoreEmbedded, restorePostgres } from '../db/backups'

/**
 * `npm run restore -- <file> [--replace]`: puts a backup made by `npm run backup` back. The embedded
 * database (DATA_DIR) is replaced while no server runs, and the replaced directory is kept beside it;
 * PostgreSQL (DATABASE_URL) is restored into an empty database, or over an EdgeClub one with
 * --replace. Start the server afterwards: it migrates an older backup forward.
 */
async function main() {
  const args = process.argv.slice(2)
  const replace = args.includes('--replace')
  const files = args.filter((arg) => arg !== '--replace')
  const [file] = files
  if (!file || files.length > 1 || file.startsWith('-')) {
    console.error('Usage: npm run restore -- <file> [--replace]')
    process.exit(2)
  }
  const source = path.resolve(file)
  const config = loadConfig()
  if (config.databaseUrl) {
    await restorePostgres(config.databaseUrl, source, { replace })
    console.log(`Restored ${source} into the PostgreSQL database in DATABASE_URL.`)
    return
  }
  const { replacedDirectory } = await restoreEmbedded(config.dataDir, source)
  console.log(
    `Restored ${source} into ${config.dataDir}.${
      replacedDirectory
        ? ` The database it replaced is kept in ${replacedDirectory}; delete it when you are sure.`
        : ''
    }`,
  )
}

main().catch((error: unknown) => {
  const known = error instanceof ConfigError || error instanceof BackupError
  console.error(known ? error.message : `Restore failed: ${error instanceof Error ? error.message : error}`)
  process.exit(1)
})
