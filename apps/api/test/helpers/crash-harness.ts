import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { type Emulator, startEmulator } from '@edgeclub/emulator'
import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'
import { createScratchPostgres } from './test-app'

export interface CrashHarness {
  emulator: Emulator
  /** A client of the scratch database, to set data up and look at the job queue. */
  db: pg.Client
  /** What the server processes start with: the scratch database, a data directory, quick polling. */
  env: Record<string, string>
}

/**
 * What a kill-and-restart test of real server processes stands on, made before the describe's tests
 * and removed after them: the emulator, a scratch PostgreSQL database and a data directory. `envOf`
 * adds the test's own settings (its admin, the services it talks to) to the common ones.
 */
export function crashHarness(
  name: string,
  envOf: (emulator: Emulator) => Record<string, string>,
): CrashHarness {
  const harness = {} as CrashHarness
  let scratch: { url: string; drop(): Promise<void> } | undefined
  let dataDir: string | undefined
  beforeAll(async () => {
    harness.emulator = await startEmulator()
    scratch = await createScratchPostgres()
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), `edgeclub-${name}-`))
    harness.db = new pg.Client({ connectionString: scratch.url })
    await harness.db.connect()
    harness.env = {
      DATABASE_URL: scratch.url,
      DATA_DIR: dataDir,
      JOBS_POLL_SECONDS: '0.5',
      LOG_LEVEL: 'warn',
      ...envOf(harness.emulator),
    }
  })
  afterAll(async () => {
    await harness.db?.end()
    await harness.emulator?.close()
    await scratch?.drop()
    if (dataDir) await fs.rm(dataDir, { recursive: true, force: true })
  })
  return harness
}

/** Signs in over HTTP (as a browser would) and answers the access token. */
export async function accessTokenOf(origin: string, credentials: { email: string; password: string }) {
  const login = await fetch(`${origin}/discord/api/auth/login`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(credentials),
  })
  return ((await login.json()) as { data: { tokens: { accessToken: string } } }).data.tokens.accessToken
}

/** Jobs of these queues not yet done (waiting, due for a retry, or held by a process). */
export async function jobsLeft(db: pg.Client, queues: string[]): Promise<number> {
  const { rows } = await db.query<{ pending: number }>(
    `select count(*)::int as pending from pgboss.job
     where name = any($1::text[]) and state in ('created', 'retry', 'active')`,
    [queues],
  )
  return rows[0]!.pending
}
