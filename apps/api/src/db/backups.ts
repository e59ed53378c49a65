import { spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import path from 'node:path'
import { sql } from 'kysely'
import pg from 'pg'
import { openDatabase } from './database'
import { askOwner, claimEmbeddedDatabase, EmbeddedDatabaseBusyError } from './embedded-owner'

/**
 * `npm run backup` and `npm run restore` (cli/backup.ts, cli/restore.ts).
 *
 * - **Embedded database.** The backup is PGlite's own dump of the data directory (a gzipped tar),
 *   checkpointed and taken while holding the database's one connection, so it is consistent. While a
 *   server runs, only that server may touch the files: the backup is asked of it through its owner
 *   socket (db/embedded-owner.ts); with no server running, this process opens the database itself.
 *   A restore needs the server stopped: it unpacks the backup beside the database, checks it, and only
 *   then swaps it in, keeping the replaced directory.
 * - **PostgreSQL.** pg_dump's custom format and pg_restore, into an empty database unless asked to
 *   replace what the backup holds.
 */

export type BackupKind = 'embedded' | 'postgres'

const GZIP = Buffer.from([0x1f, 0x8b])
const PG_DUMP = Buffer.from('PGDMP')

export function backupKindOf(head: Buffer): BackupKind | undefined {
  if (head.subarray(0, 2).equals(GZIP)) return 'embedded'
  if (head.subarray(0, 5).equals(PG_DUMP)) return 'postgres'
  return undefined
}

export class BackupError extends Error {
  override name = 'BackupError'
}

/** Written beside the target and renamed into place: a failed backup never leaves half a file. */
async function writeAtomically(file: string, data: Buffer): Promise<void> {
  const temporary = `${file}.partial-${process.pid}`
  await fs.writeFile(temporary, data, { mode: 0o600 })
  await fs.rename(temporary, file)
}

export async function backupEmbedded(
  dataDir: string,
  file: string,
): Promise<{ bytes: number; takenBy: 'running server' | 'this process'; pid: number }> {
  const pgliteDir = path.join(dataDir, 'pglite')
  const asked = await askOwner(pgliteDir, 'backup')
  if (asked) {
    if (!asked.answer.ok)
      throw new BackupError(`The running server could not back up: ${asked.answer.message}`)
    await writeAtomically(file, asked.payload)
    return { bytes: asked.payload.length, takenBy: 'running server', pid: asked.answer.pid ?? 0 }
  }
  try {
    await fs.access(path.join(pgliteDir, 'PG_VERSION'))
  } catch {
    throw new BackupError(`There is no embedded database in ${dataDir} (DATA_DIR) to back up.`)
  }
  const database = await openDatabase({ pgliteDir: dataDir, template: false })
  try {
    const data = Buffer.from(await (await database.backup!()).arrayBuffer())
    await writeAtomically(file, data)
    return { bytes: data.length, takenBy: 'this process', pid: process.pid }
  } finally {
    await database.close()
  }
}

function timestamp(): string {
  return new Date().toISOString().replace(/[:.]/g, '-')
}

export async function restoreEmbedded(
  dataDir: string,
  file: string,
): Promise<{ replacedDirectory: string | undefined }> {
  const data = await readBackup(file, 'embedded')
  const pgliteDir = path.join(dataDir, 'pglite')
  let ownership: Awaited<ReturnType<typeof claimEmbeddedDatabase>>
  try {
    ownership = await claimEmbeddedDatabase(pgliteDir, {})
  } catch (error) {
    if (error instanceof EmbeddedDatabaseBusyError)
      throw new BackupError(
        `The embedded database in ${dataDir} is in use${error.ownerPid ? ` by pid ${error.ownerPid}` : ''}: stop the server, then restore.`,
      )
    throw error
  }
  const staging = path.join(dataDir, `.restoring-${process.pid}`)
  try {
    await fs.rm(staging, { recursive: true, force: true })
    try {
      const restored = await openDatabase({ pgliteDir: staging, snapshot: new Blob([data]), template: false })
      try {
        await sql`select count(*) from kysely_migration`.execute(restored.db)
      } finally {
        await restored.close()
      }
    } catch (error) {
      throw new BackupError(
        `${file} is not a usable EdgeClub backup (${error instanceof Error ? error.message : String(error)}); nothing was changed.`,
      )
    }
    let replacedDirectory: string | undefined
    if (await exists(pgliteDir)) {
      replacedDirectory = `${pgliteDir}.before-restore-${timestamp()}`
      await fs.rename(pgliteDir, replacedDirectory)
    }
    await fs.rename(path.join(staging, 'pglite'), pgliteDir)
    return { replacedDirectory }
  } finally {
    await fs.rm(staging, { recursive: true, force: true })
    await ownership.release()
  }
}

async function exists(target: string): Promise<boolean> {
  return fs.stat(target).then(
    () => true,
    () => false,
  )
}

async function readBackup(file: string, expected: BackupKind): Promise<Buffer> {
  let data: Buffer
  try {
    data = await fs.readFile(file)
  } catch (error) {
    throw new BackupError(`Cannot read ${file}: ${(error as NodeJS.ErrnoException).code ?? String(error)}`)
  }
  const kind = backupKindOf(data)
  if (kind === expected) return data
  if (kind === 'postgres')
    throw new BackupError(`${file} is a PostgreSQL backup (pg_dump): set DATABASE_URL to restore it there.`)
  if (kind === 'embedded')
    throw new BackupError(
      `${file} is a backup of the embedded database: unset DATABASE_URL to restore it into DATA_DIR.`,
    )
  throw new BackupError(
    `${file} is not an EdgeClub backup (neither an embedded-database dump nor pg_dump's).`,
  )
}

/** The connection string without its password, which goes to pg_dump through the environment. */
function clientArguments(databaseUrl: string): { dbname: string; env: NodeJS.ProcessEnv } {
  const url = new URL(databaseUrl)
  const env: NodeJS.ProcessEnv = { ...process.env }
  if (url.password) {
    env.PGPASSWORD = decodeURIComponent(url.password)
    url.password = ''
  }
  return { dbname: url.toString(), env }
}

function run(command: string, args: string[], env: NodeJS.ProcessEnv): Promise<void> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { env, stdio: ['ignore', 'inherit', 'pipe'] })
    let errors = ''
    child.stderr.on('data', (chunk: Buffer) => {
      errors = (errors + chunk.toString()).slice(-4000)
    })
    child.once('error', (error: NodeJS.ErrnoException) =>
      reject(
        new BackupError(
          error.code === 'ENOENT'
            ? `${command} was not found: install PostgreSQL's client tools (the server's major version or newer).`
            : `${command} failed to start: ${error.message}`,
        ),
      ),
    )
    child.once('exit', (code) =>
      code === 0 ? resolve() : reject(new BackupError(`${command} failed (exit ${code}): ${errors.trim()}`)),
    )
  })
}

export async function backupPostgres(databaseUrl: string, file: string): Promise<{ bytes: number }> {
  const { dbname, env } = clientArguments(databaseUrl)
  const temporary = `${file}.partial-${process.pid}`
  try {
    await run(
      'pg_dump',
      ['--format=custom', '--no-owner', '--no-privileges', `--file=${temporary}`, `--dbname=${dbname}`],
      env,
    )
    await fs.chmod(temporary, 0o600)
    await fs.rename(temporary, file)
  } finally {
    await fs.rm(temporary, { force: true })
  }
  return { bytes: (await fs.stat(file)).size }
}

export async function restorePostgres(
  databaseUrl: string,
  file: string,
  options: { replace: boolean },
): Promise<void> {
  await readBackup(file, 'postgres')
  const client = new pg.Client({ connectionString: databaseUrl, connectionTimeoutMillis: 10_000 })
  await client.connect()
  let holdsEdgeClub: boolean
  try {
    const found = await client.query<{ found: boolean }>(
      "select to_regclass('public.kysely_migration') is not null as found",
    )
    holdsEdgeClub = Boolean(found.rows[0]?.found)
  } finally {
    await client.end()
  }
  if (holdsEdgeClub && !options.replace)
    throw new BackupError(
      'The database in DATABASE_URL already holds EdgeClub tables; nothing was changed. Restore into a new, ' +
        'empty database (createdb) and point DATABASE_URL at it, or pass --replace to drop and recreate ' +
        'everything the backup holds.',
    )
  const { dbname, env } = clientArguments(databaseUrl)
  await run(
    'pg_restore',
    [
      '--no-owner',
      '--no-privileges',
      '--exit-on-error',
      '--single-transaction',
      ...(options.replace ? ['--clean', '--if-exists'] : []),
      `--dbname=${dbname}`,
      file,
    ],
    env,
  )
}
