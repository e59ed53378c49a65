import fs from 'node:fs/promises'
import path from 'node:path'
import v8 from 'node:v8'
import { PGlite } from '@electric-sql/pglite'
import { pg_trgm } from '@electric-sql/pglite/contrib/pg_trgm'
import { Kysely, PostgresDialect, type PostgresPool, type PostgresPoolClient, sql } from 'kysely'
import { PGliteDialect } from 'kysely-pglite-dialect'
import pg from 'pg'
import { withAdvisoryLock } from './advisory-lock'
import { claimEmbeddedDatabase, type Ownership } from './embedded-owner'
import { copyPgliteTemplate } from './pglite-template'
import type { DB } from './types'

export type DatabaseKind = 'pglite' | 'postgres'

/** What pg-boss needs to run its SQL on our connections (see queue/job-runner.ts). */
export interface SqlExecutor {
  executeSql(text: string, values?: unknown[]): Promise<{ rows: unknown[] }>
}

export interface Database {
  kind: DatabaseKind
  db: Kysely<DB>
  /** For pg-boss: runs its SQL on connections we own (their errors and timeouts are ours too). */
  boss: SqlExecutor
  /** Answers within `timeoutMs` or throws: readiness must not hang on a lost database. */
  ping(timeoutMs?: number): Promise<void>
  /**
   * Calls `handler` with the payload of every NOTIFY on `channel` (PostgreSQL's LISTEN). After a lost
   * connection it listens again by itself and calls `handler(null)`: notifications may have been
   * missed, so the listener should catch up from the data. Resolves with a function that stops.
   */
  listen(channel: string, handler: (payload: string | null) => void): Promise<() => Promise<void>>
  /** Runs schema changes without the request-path timeouts (an index build may take minutes). */
  withoutTimeouts<T>(work: (db: Kysely<DB>) => Promise<T>): Promise<T>
  /**
   * Runs `work` while no other process runs its own `exclusively` on this database (PostgreSQL: an
   * advisory lock, db/advisory-lock.ts): instances that start together migrate one after another.
   * The embedded database belongs to one process, so there it simply runs `work`. `onWait` is called
   * when another process holds the lock.
   */
  exclusively<T>(name: string, work: () => Promise<T>, onWait?: () => void): Promise<T>
  /** The connection pools' use now (PostgreSQL; the embedded database has no pool). */
  poolUse(): PoolUse[]
  /** The embedded database's data directory as a tarball (a backup, or a test template). */
  snapshot?(): Promise<Blob>
  /** The same, gzipped, taken by a caller that already holds the connection. */
  dump?(): Promise<Blob>
  /** A consistent gzipped copy while the app runs (checkpointed, taken holding the connection). */
  backup?(): Promise<Blob>
  close(): Promise<void>
}

export interface PoolUse {
  pool: string
  max: number
  /** Connections open, idle among them, and callers waiting for one. */
  total: number
  idle: number
  waiting: number
}

/** How long the app waits on PostgreSQL before it answers 503 instead of hanging. */
export interface DatabaseTimeouts {
  /** To open a connection, or to wait for a free one in the pool. */
  connectMs: number
  /** For one statement: the server cancels it, and the client gives up on a silent network. */
  statementMs: number
}

const DEFAULT_TIMEOUTS: DatabaseTimeouts = { connectMs: 2_000, statementMs: 3_000 }

export type DatabaseOptions =
  | { databaseUrl: string; timeouts?: DatabaseTimeouts; onError?: (error: Error) => void }
  /**
   * A directory for the embedded database, or null for one that lives in memory; `snapshot` starts
   * it from a dumped data directory instead of running initdb (seconds faster). A new directory
   * starts from the built template (db/pglite-template.ts) when there is one, unless `template: false`.
   */
  | { pgliteDir: string | null; snapshot?: Blob; template?: boolean }

// int8 (count(*), sums) as JS numbers: our counts and minor-unit sums stay far below 2^53.
pg.types.setTypeParser(20, (value) => Number.parseInt(value, 10))

export async function openDatabase(options: DatabaseOptions): Promise<Database> {
  if ('databaseUrl' in options)
    return openPostgres(options.databaseUrl, options.timeouts ?? DEFAULT_TIMEOUTS, options.onError)
  return openPglite(options.pgliteDir, options.snapshot, options.template ?? true)
}

/** SQLSTATE classes and socket errors that mean "the database is not there", not "the query is wrong". */
const CONNECTION_CODES = new Set([
  '57P01',
  '57P02',
  '57P03',
  '53300',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
])
const SOCKET_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENOTFOUND',
])
const CONNECTION_MESSAGES = [
  'Connection terminated',
  'connection timeout',
  'Query read timeout',
  'timeout exceeded when trying to connect',
  'Client has encountered a connection error',
  'Connection ended unexpectedly',
  'terminating connection',
]

/** Whether an error says the database is unreachable (answer 503 and try again later). */
export function isDatabaseUnavailable(error: unknown): boolean {
  if (!(error instanceof Error)) return false
  const code = (error as { code?: unknown }).code
  if (typeof code === 'string' && (CONNECTION_CODES.has(code) || SOCKET_CODES.has(code))) return true
  // A statement the server cancelled for running past statement_timeout (57014) under a lost network.
  if (code === '57014') return true
  return CONNECTION_MESSAGES.some((text) => error.message.includes(text))
}

/**
 * A pg pool that survives the database going away: every client gets an error listener (a backend
 * terminated while a client is checked out would otherwise crash the process), timeouts bound every
 * wait, and a client that failed at the connection level is destroyed instead of returned to the pool.
 */
function resilientPool(
  connectionString: string,
  settings: { max: number; timeouts: DatabaseTimeouts | null; onError: (error: Error) => void },
): { pool: pg.Pool; kysely: PostgresPool } {
  const { timeouts } = settings
  const pool = new pg.Pool({
    connectionString,
    max: settings.max,
    keepAlive: true,
    idleTimeoutMillis: 30_000,
    // Every statement of this app is short: compiling one (JIT) costs more than it could save.
    options: '-c jit=off',
    ...(timeouts
      ? {
          connectionTimeoutMillis: timeouts.connectMs,
          // The server cancels a long statement; the client gives up if the network stays silent.
          statement_timeout: timeouts.statementMs,
          query_timeout: timeouts.statementMs + 500,
          // A process that died mid-transaction must not hold row locks for long.
          idle_in_transaction_session_timeout: 60_000,
        }
      : {}),
  })
  pool.on('error', settings.onError)
  pool.on('connect', (client) => client.on('error', settings.onError))

  const kysely: PostgresPool = {
    connect: async () => {
      const client = await pool.connect()
      let broken = false
      const wrapped = {
        query: (...args: Parameters<pg.PoolClient['query']>) =>
          (client.query as (...a: unknown[]) => Promise<unknown>)(...args).catch((error: unknown) => {
            if (isDatabaseUnavailable(error)) broken = true
            throw error
          }),
        release: () => client.release(broken ? true : undefined),
      }
      return wrapped as unknown as PostgresPoolClient
    },
    end: () => pool.end(),
  }
  return { pool, kysely }
}

/**
 * pg-boss marks a finished batch completed without awaiting it, so that call can land after the
 * database was closed at shutdown. It has nothing left to do: the job runs again once its expiry
 * passes, and its business key makes that run a no-op. Its commands (complete, fail, delete) end by
 * counting the rows they touched and read that count back, so they are answered "0 touched"; any other
 * statement finds nothing. Either way the late call does not surface as an unhandled rejection.
 */
const afterClose = async (text: string) => ({
  rows: (/select count\(\*\) from results\s*$/i.test(text.trim()) ? [{ count: '0' }] : []) as unknown[],
})

async function openPostgres(
  connectionString: string,
  timeouts: DatabaseTimeouts,
  onError: ((error: Error) => void) | undefined,
): Promise<Database> {
  // The pools' errors are expected when PostgreSQL restarts or fails over; they are reported, never fatal.
  const report = onError ?? (() => {})
  const app = resilientPool(connectionString, { max: 10, timeouts, onError: report })
  const jobs = resilientPool(connectionString, { max: 3, timeouts, onError: report })
  const db = new Kysely<DB>({ dialect: new PostgresDialect({ pool: app.kysely }) })
  let closed = false

  return {
    kind: 'postgres',
    db,
    boss: {
      executeSql: async (text, values) => {
        if (closed) return afterClose(text)
        const result = await jobs.pool.query(text, values as unknown[] | undefined)
        // Several statements at once (pg-boss's migrations) come back as an array of results.
        const last = Array.isArray(result) ? result.at(-1) : result
        return { rows: (last?.rows ?? []) as unknown[] }
      },
    },
    ping: (timeoutMs = 1_500) => withTimeout(sql`select 1`.execute(db), timeoutMs),
    listen: (channel, handler) => listenOnPostgres(connectionString, channel, handler, report),
    withoutTimeouts: async (work) => {
      const own = resilientPool(connectionString, { max: 1, timeouts: null, onError: report })
      const longDb = new Kysely<DB>({ dialect: new PostgresDialect({ pool: own.kysely }) })
      try {
        return await work(longDb)
      } finally {
        await longDb.destroy()
      }
    },
    exclusively: (name, work, onWait) =>
      withAdvisoryLock(connectionString, name, work, {
        connectTimeoutMs: Math.max(timeouts.connectMs, 10_000),
        onWait,
        onError: report,
      }),
    poolUse: () =>
      [
        { pool: 'app', from: app.pool },
        { pool: 'jobs', from: jobs.pool },
      ].map(({ pool, from }) => ({
        pool,
        max: from.options.max,
        total: from.totalCount,
        idle: from.idleCount,
        waiting: from.waitingCount,
      })),
    close: async () => {
      closed = true
      await db.destroy()
      await jobs.pool.end()
    },
  }
}

/** A dedicated connection for LISTEN that reconnects (with growing waits) whenever it is lost. */
async function listenOnPostgres(
  connectionString: string,
  channel: string,
  handler: (payload: string | null) => void,
  report: (error: Error) => void,
): Promise<() => Promise<void>> {
  let stopped = false
  let client: pg.Client | undefined
  let attempt = 0
  const quoted = `"${channel.replaceAll('"', '""')}"`

  const connect = async (): Promise<void> => {
    if (stopped) return
    const next = new pg.Client({ connectionString, keepAlive: true, connectionTimeoutMillis: 5_000 })
    next.on('error', (error) => {
      report(error)
      void next.end().catch(() => {})
    })
    next.on('end', () => {
      if (client !== next || stopped) return
      client = undefined
      setTimeout(() => void reconnect(), Math.min(10_000, 250 * 2 ** attempt++))
    })
    next.on('notification', (message) => {
      if (message.channel === channel) handler(message.payload ?? '')
    })
    await next.connect()
    await next.query(`listen ${quoted}`)
    client = next
    if (attempt > 0) handler(null)
    attempt = 0
  }
  const reconnect = async () => {
    try {
      await connect()
    } catch (error) {
      report(error instanceof Error ? error : new Error(String(error)))
      setTimeout(() => void reconnect(), Math.min(10_000, 250 * 2 ** attempt++))
    }
  }

  try {
    await connect()
  } catch (error) {
    // Not fatal: the listener keeps trying, and the caller catches up when it is back.
    report(error instanceof Error ? error : new Error(String(error)))
    attempt = 1
    setTimeout(() => void reconnect(), 1_000)
  }
  return async () => {
    stopped = true
    const current = client
    client = undefined
    await current?.end().catch(() => {})
  }
}

async function withTimeout(promise: Promise<unknown>, ms: number): Promise<void> {
  let timer: NodeJS.Timeout | undefined
  try {
    await Promise.race([
      promise,
      new Promise((_resolve, reject) => {
        timer = setTimeout(() => reject(new Error('connection timeout: the database did not answer')), ms)
      }),
    ])
  } finally {
    clearTimeout(timer)
  }
}

/**
 * The embedded database's buffer cache. PostgreSQL's 128 MB default is resident memory of this very
 * process; an embedded database is small (a few thousand members' rows fit many times over), and the
 * operating system caches its files anyway. 8 MB keeps the process under 200 MB at rest (decision 018).
 */
const PGLITE_SHARED_BUFFERS = '8MB'

/**
 * The embedded database is PostgreSQL compiled to WebAssembly. By default V8 compiles it with its
 * baseline compiler and recompiles hot functions with its optimizing one, whose code and compile
 * memory stay resident: about 50 MB of a process that should sit under 200 MB. The baseline code
 * alone starts sooner and answers this app's short statements as fast; a long, CPU-heavy query runs
 * up to ~3x slower, and an install that has those belongs on PostgreSQL (decision 018). The flag is
 * set before PGlite compiles its module; no other WebAssembly runs in this process.
 */
function useBaselineWasmCompiler(): void {
  v8.setFlagsFromString('--liftoff-only')
}

async function openPglite(
  dir: string | null,
  snapshot: Blob | undefined,
  useTemplate: boolean,
): Promise<Database> {
  let dataDir: string | undefined
  let ownership: Ownership | undefined
  // What the owner socket answers with; set once the database is open.
  let backup: (() => Promise<Blob>) | undefined
  if (dir) {
    dataDir = path.join(dir, 'pglite')
    // Before anything touches the files: another process may have this database open.
    ownership = await claimEmbeddedDatabase(dataDir, {
      backup: () => (backup ? backup() : Promise.reject(new Error('the database is still opening'))),
    })
  }
  let pglite: PGlite
  try {
    if (dataDir) {
      const fresh = !(await fs.stat(path.join(dataDir, 'PG_VERSION')).catch(() => undefined))
      // A new database from the built template instead of initdb (seconds, and a second instance's
      // memory): only into a directory that is empty, so nothing of an operator's is ever overwritten.
      const empty = (await fs.readdir(dataDir).catch(() => [])).length === 0
      if (!(fresh && empty && !snapshot && useTemplate && (await copyPgliteTemplate(dataDir))))
        await fs.mkdir(dataDir, { recursive: true })
    }
    useBaselineWasmCompiler()
    // int8 as JS numbers, as on PostgreSQL above.
    const parsers = { 20: (value: string) => Number.parseInt(value, 10) }
    pglite = await PGlite.create({
      parsers,
      // Trigram indexes serve the admin's substring search (the extension ships with PGlite).
      extensions: { pg_trgm },
      ...(dataDir ? { dataDir } : {}),
      ...(snapshot ? { loadDataDir: snapshot } : {}),
      startParams: [...PGlite.defaultStartParams, '-c', `shared_buffers=${PGLITE_SHARED_BUFFERS}`],
    })
  } catch (error) {
    await ownership?.release()
    throw error
  }
  const db = new Kysely<DB>({ dialect: new PGliteDialect(pglite) })

  /**
   * PGlite is one connection. Kysely's driver queues users of it, and pg-boss must join that queue,
   * or its statements would land inside another request's transaction.
   */
  let closed = false
  const executor: SqlExecutor = {
    executeSql: (text, values) =>
      closed
        ? afterClose(text)
        : db.connection().execute(async () => {
            if (values && values.length > 0) {
              const result = await pglite.query(text, values)
              return { rows: result.rows }
            }
            // Statements without parameters may be several at once; only exec accepts that.
            const results = await pglite.exec(text)
            return { rows: results.at(-1)?.rows ?? [] }
          }),
  }

  // A backup while the app runs: holding the one connection, nothing writes; the checkpoint puts
  // every committed change into the data files, so the copy needs no recovery when it is restored.
  backup = () =>
    db.connection().execute(async () => {
      await pglite.exec('checkpoint')
      return pglite.dumpDataDir('gzip')
    })

  return {
    kind: 'pglite',
    db,
    boss: executor,
    ping: (timeoutMs = 1_500) => withTimeout(sql`select 1`.execute(db), timeoutMs),
    listen: async (channel, handler) => {
      const unsubscribe = await pglite.listen(channel, (payload) => handler(payload))
      return async () => {
        await unsubscribe()
      }
    },
    withoutTimeouts: (work) => work(db),
    exclusively: (_name, work) => work(),
    poolUse: () => [],
    snapshot: () => db.connection().execute(() => pglite.dumpDataDir('none')),
    dump: () => pglite.dumpDataDir('gzip'),
    backup,
    close: async () => {
      closed = true
      await db.destroy()
      await ownership?.release()
    },
  }
}
