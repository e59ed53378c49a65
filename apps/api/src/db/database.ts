import fs from 'node:fs/promises'
import path from 'node:path'
import { PGlite } from '@electric-sql/pglite'
import { Kysely, PostgresDialect, sql } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import type { DB } from './types'

export type DatabaseKind = 'pglite' | 'postgres'

/** What pg-boss needs to run its SQL on our connection (see jobs/boss.ts). */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>
}

export interface Database {
  kind: DatabaseKind
  db: Kysely<DB>
  /** For pg-boss: a connection string (PostgreSQL) or an executor sharing the embedded database. */
  boss: { connectionString: string } | { executor: SqlExecutor }
  ping(): Promise<void>
  /** The embedded database's data directory as a tarball (a backup, or a test template). */
  snapshot?(): Promise<Blob>
  close(): Promise<void>
}

export type DatabaseOptions =
  | { databaseUrl: string }
  /**
   * A directory for the embedded database, or null for one that lives in memory; `snapshot` starts
   * it from a dumped data directory instead of running initdb (seconds faster).
   */
  | { pgliteDir: string | null; snapshot?: Blob }

// int8 (count(*), sums) as JS numbers: our counts and minor-unit sums stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10))

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if ('databaseUrl' in options) return openPostgres(options.databaseUrl)
  return openPglite(options.pgliteDir, options.snapshot)
}

async function openPostgres(connectionString: string): Promise<Database> {
  const pool = new pg.Pool({ connectionString, max: 10 })
  // An idle client can die with the server (restart, failover); the pool replaces it. Without a
  // listener, that error would crash the process.
  pool.on('error', () => {})
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool }) })
  return {
    kind: 'postgres',
    db,
    boss: { connectionString },
    ping: async () => {
      await sql`select 1`.execute(db)
    },
    close: () => db.destroy(),
  }
}

async function openPglite(dir: string | null, snapshot: Blob | undefined): Promise<Database> {
  let dataDir: string | undefined
  if (dir) {
    dataDir = path.join(dir, 'pglite')
    await fs.mkdir(dataDir, { recursive: true })
  }
  // int8 as JS numbers, as on PostgreSQL above.
  const parsers = { 20: (value: string) => Number.parseInt(value, 10) }
  const pglite = await PGlite.create({
    parsers,
    ...(dataDir ? { dataDir } : {}),
    ...(snapshot ? { loadDataDir: snapshot } : {}),
  })
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) })

  /**
   * PGlite is one connection. Kysely's driver queues users of it, and pg-boss must join that queue,
   * or its statements would land inside another request's transaction.
   */
  const executor: SqlExecutor = {
    executeSql: (text, values) =>
      db.connection().execute(async () => {
        if (values && values.length > 0) {
          const result = await pglite.query(text, values)
          return { rows: result.rows }
        }
        // Statements without parameters may be several at once; only exec accepts that.
        const results = await pglite.exec(text)
        return { rows: results.at(-1)?.rows ?? [] }
      }),
  }

  return {
    kind: 'pglite',
    db,
    boss: { executor },
    ping: async () => {
      await sql`select 1`.execute(db)
    },
    snapshot: () => db.connection().execute(() => pglite.dumpDataDir('none')),
    close: () => db.destroy(),
  }
}
