import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { type Emulator, startEmulator } from '@edgeclub/emulator'
import pg from 'pg'
import { afterAll, beforeAll } from 'vitest'
import { createScratchPostgres } from './test-app'
import { newSubscriber } from './web-push'

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

/**
 * `count` members (emails `<tag><n>@<tag>.test`) with a month of the monthly plan, each with
 * notifications of `kinds` on in one browser of the emulator's push service, all sharing one
 * subscriber's keys (so a test can decrypt what arrived). Answers the subscriber and the devices.
 */
export async function pushAudience(
  h: CrashHarness,
  options: { count: number; tag: string; kinds: string[] },
) {
  const subscriber = newSubscriber()
  const { rows: users } = await h.db.query<{ id: string }>(
    `insert into users (email, email_normalized, password_hash, first_name, last_name, discord_username)
     select $2 || n || '@' || $2 || '.test', $2 || n || '@' || $2 || '.test', 'not-a-hash',
       'Fan', 'No. ' || n, $2 || n
     from generate_series(1, $1::int) as n returning id`,
    [options.count, options.tag],
  )
  await h.db.query(
    `insert into subscriptions (user_id, plan_id, provider, status, start_date, end_date)
     select u, (select id from plans where slug = 'monthly'), 'stripe', 'active',
       now() - interval '1 day', now() + interval '30 days'
     from unnest($1::uuid[]) as u`,
    [users.map((user) => user.id)],
  )
  const devices = users.map(() =>
    h.emulator.push.subscribe({ keys: { p256dh: subscriber.p256dh, auth: subscriber.auth } }),
  )
  await h.db.query(
    `insert into push_subscriptions (user_id, endpoint, p256dh, auth, kinds, sports)
     select u, e, $3, $4, $5::jsonb, '[]'::jsonb
     from unnest($1::uuid[], $2::text[]) as t(u, e)`,
    [
      users.map((user) => user.id),
      devices.map((device) => device.endpoint),
      subscriber.p256dh,
      subscriber.auth,
      JSON.stringify(options.kinds),
    ],
  )
  return { subscriber, devices }
}
