import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { Writable } from 'node:stream'
import type { FastifyInstance } from 'fastify'
import pg from 'pg'
import { inject } from 'vitest'
import { buildApp } from '../../src/app'
import { type Config, loadConfig } from '../../src/config'
import { type Database, openDatabase } from '../../src/db/database'
import type { Clock } from '../../src/lib/clock'

/** A clock that runs with real time plus whatever a test has skipped forward. */
export function testClock(): Clock & { advance(ms: number): void; reset(): void } {
  let offset = 0
  return {
    now: () => new Date(Date.now() + offset),
    advance: (ms) => {
      offset += ms
    },
    reset: () => {
      offset = 0
    },
  }
}

/**
 * A real app on a real, empty database: the embedded one in memory, or (TEST_DB=postgres) a fresh
 * database created on TEST_DATABASE_URL's server and dropped afterwards.
 */

export interface TestApp {
  app: FastifyInstance
  config: Config
  database: Database
  /** Every log line the app wrote, as text. */
  logs: () => string
  /** Every log line the app wrote, parsed (pino writes one JSON object a line). */
  logLines: <Line = Record<string, unknown>>() => Line[]
  close(): Promise<void>
}

export interface TestAppOptions {
  env?: Record<string, string>
  /** Adjust the loaded config (limits, timings) before the app is built. */
  configure?: (config: Config) => void
  /** The services' clock; see testClock(). */
  clock?: Clock
  /** Extra routes a test needs, added before the app starts. */
  routes?: (app: FastifyInstance) => void
  /** Reuse a database (e.g. to restart the app on the same data). */
  database?: TestDatabase
}

export interface TestDatabase {
  open(): Promise<Database>
  drop(): Promise<void>
}

export async function createTestDatabase(): Promise<TestDatabase> {
  if (process.env.TEST_DB !== 'postgres') {
    // One in-memory PGlite per test database; reopening it means keeping the same instance.
    const snapshot = new Blob([await fs.readFile(inject('pgliteSnapshot'))])
    const database = await openDatabase({ pgliteDir: null, snapshot })
    const close = database.close
    let closed = false
    const shared: Database = { ...database, close: async () => {} }
    return {
      open: async () => shared,
      drop: async () => {
        if (!closed) await close()
        closed = true
      },
    }
  }
  const scratch = await createScratchPostgres()
  const opened: Database[] = []
  return {
    open: async () => {
      const database = await openDatabase({ databaseUrl: scratch.url })
      opened.push(database)
      return database
    },
    drop: async () => {
      for (const database of opened) await database.close().catch(() => {})
      await scratch.drop()
    },
  }
}

/** A new, empty database on TEST_DATABASE_URL's server, and a way to drop it. */
export async function createScratchPostgres(): Promise<{ url: string; drop(): Promise<void> }> {
  const serverUrl = process.env.TEST_DATABASE_URL
  if (!serverUrl) throw new Error('TEST_DB=postgres needs TEST_DATABASE_URL')
  const name = `edgeclub_test_${randomBytes(6).toString('hex')}`
  const run = async (statement: string) => {
    const client = new pg.Client({ connectionString: serverUrl })
    await client.connect()
    try {
      await client.query(statement)
    } finally {
      await client.end()
    }
  }
  await run(`create database ${name}`)
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return { url: url.toString(), drop: () => run(`drop database if exists ${name} with (force)`) }
}

export async function createTestApp(options: TestAppOptions = {}): Promise<TestApp> {
  const dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-test-'))
  const config = loadConfig({
    NODE_ENV: 'test',
    LOG_LEVEL: 'info',
    DATA_DIR: dataDir,
    PRICE_FEED_URL: 'http://127.0.0.1:9/unreachable',
    ...options.env,
  })
  config.jobs.pollSeconds = 0.5
  // Retries wait a fifth of production's delays (still growing and jittered the same way).
  config.jobs.retryDelayScale = 0.2
  // Tests make many calls from one address; the tests of the limits set their own.
  config.limits.globalPerMinute = 10_000
  config.limits.auth = {
    loginPer15Min: 10_000,
    registerPerHour: 10_000,
    forgotPerHour: 10_000,
    resetPerHour: 10_000,
    refreshPerMinute: 10_000,
  }
  options.configure?.(config)

  const testDatabase = options.database ?? (await createTestDatabase())
  const database = await testDatabase.open()
  let logText = ''
  const logStream = new Writable({
    write(chunk, _encoding, done) {
      logText += chunk.toString()
      done()
    },
  })
  const app = await buildApp(config, { database, logStream, clock: options.clock })
  options.routes?.(app)
  await app.ready()
  return {
    app,
    config,
    database,
    logs: () => logText,
    logLines: <Line>() =>
      logText
        .split('\n')
        .filter(Boolean)
        .map((line) => JSON.parse(line) as Line),
    close: async () => {
      await app.close()
      if (!options.database) await testDatabase.drop()
      await fs.rm(dataDir, { recursive: true, force: true })
    },
  }
}
