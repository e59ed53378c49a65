import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import path from 'node:path'
import { promisify } from 'node:util'
import { startEmulator } from '@edgeclub/emulator'
import pg from 'pg'
import webpush from 'web-push'
import { createAccessTokens } from '../../apps/api/src/modules/auth/access-tokens'
import { atLeast, equals, type Figure, figure, round } from '../lib/figures'
import { benchJwtSecret, startApp } from '../lib/servers'
import { clientAddress, cpuMs, envNumber, percentile, root, sleep, tempDir } from '../lib/util'

/**
 * Publish → web push to 15,000 subscriptions (BENCH_PUSH_SUBSCRIPTIONS) through the emulator's push
 * service, on one instance: every member has access and notifications on in one browser; an admin
 * publishes a pick; the server fans it out to keyed batch jobs of 250 subscriptions and sends them,
 * each push encrypted for its subscriber and VAPID-signed; the emulator's push service verifies each
 * signature and keeps each push. Measured: notifications/s from the publish to the last arrival,
 * beside a bare sender (the same push client, same concurrency, no database or queue) in the same run.
 */

// Its own name per checkout (BENCH_PUSH_DATABASE_NAME): two runs on one server must not drop each other's.
const DB_NAME = process.env.BENCH_PUSH_DATABASE_NAME ?? 'edgeclub_bench_push'
const execFileAsync = promisify(execFile)

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

async function admin(serverUrl: string, statement: string) {
  const client = new pg.Client({ connectionString: serverUrl })
  await client.connect()
  try {
    await client.query(statement)
  } finally {
    await client.end()
  }
}

export async function measurePushDelivery({
  postgresUrl,
  log,
}: {
  postgresUrl: string
  log: (message: string) => void
}): Promise<{ figures: Figure[]; details: Record<string, unknown>; notes: string[] }> {
  const count = envNumber('BENCH_PUSH_SUBSCRIPTIONS', 15_000)
  const figures: Figure[] = []
  const details: Record<string, unknown> = {}
  const emulator = await startEmulator()
  await admin(postgresUrl, `drop database if exists ${DB_NAME} with (force)`)
  await admin(postgresUrl, `create database ${DB_NAME}`)
  const databaseUrl = withDatabase(postgresUrl, DB_NAME)
  // The app makes its VAPID keys in the database; the bench gives it a pair so the bare sender signs alike.
  const vapid = webpush.generateVAPIDKeys()
  const app = await startApp({
    databaseUrl,
    env: {
      PUSH_SERVICE_ORIGINS: emulator.url,
      VAPID_PUBLIC_KEY: vapid.publicKey,
      VAPID_PRIVATE_KEY: vapid.privateKey,
      // BENCH_PUSH_NODE_OPTIONS: the server's NODE_OPTIONS (a profiler preloaded with --import).
      ...(process.env.BENCH_PUSH_NODE_OPTIONS ? { NODE_OPTIONS: process.env.BENCH_PUSH_NODE_OPTIONS } : {}),
    },
  })
  try {
    log(`push: ${count} members with access and notifications on`)
    // Every subscription shares one subscriber key pair (the push service cannot read them anyway).
    const keys = emulator.push.subscribe().keys
    const devices = Array.from({ length: count }, () => emulator.push.subscribe({ keys }))
    const client = new pg.Client({ connectionString: databaseUrl })
    await client.connect()
    let publisher: { token: string; address: string }
    try {
      const userId = (n: string) => `md5('edgeclub-push-user-' || (${n}))::uuid`
      const sessionId = (n: string) => `md5('edgeclub-push-session-' || (${n}))::uuid`
      await client.query(`insert into users (id, email, email_normalized, password_hash, first_name, last_name,
          discord_username, agreed_terms_at, age_confirmed_at, role)
        select ${userId('n')}, 'push' || n || '@edgeclub.test', 'push' || n || '@edgeclub.test',
          '$bench$no-password', 'Bench', 'Member ' || n, 'bench_' || n, now(), now(),
          case when n = 0 then 'admin' else 'member' end
        from generate_series(0, ${count}) n`)
      await client.query(`insert into sessions (id, user_id, remember, user_agent, ip)
        values (${sessionId('0')}, ${userId('0')}, false, 'bench', '198.18.0.1')`)
      await client.query(`insert into subscriptions (user_id, plan_id, provider, status, start_date, end_date)
        select ${userId('n')}, (select id from plans where slug = 'monthly'), 'admin', 'active',
          now() - interval '1 day', now() + interval '30 days'
        from generate_series(1, ${count}) n`)
      await client.query(
        `insert into push_subscriptions (user_id, endpoint, p256dh, auth, kinds, sports)
         select ${userId('t.n')}, t.endpoint, $2, $3, '["picks"]'::jsonb, '[]'::jsonb
         from unnest($1::text[]) with ordinality as t(endpoint, n)`,
        [devices.map((device) => device.endpoint), keys.p256dh, keys.auth],
      )
      publisher = {
        token: await createAccessTokens(benchJwtSecret).sign({
          userId: (await client.query<{ id: string }>(`select ${userId('0')} as id`)).rows[0]!.id,
          role: 'admin',
          sessionId: (await client.query<{ id: string }>(`select ${sessionId('0')} as id`)).rows[0]!.id,
        }),
        address: clientAddress(0),
      }
    } finally {
      await client.end()
    }

    const publish = async (body: object) => {
      const sentAt = performance.now()
      const response = await fetch(`${app.url}/discord/api/signals`, {
        method: 'POST',
        headers: {
          authorization: `Bearer ${publisher.token}`,
          'content-type': 'application/json',
          'x-forwarded-for': publisher.address,
        },
        body: JSON.stringify(body),
      })
      if (response.status !== 201)
        throw new Error(`publishing answered ${response.status}: ${await response.text()}`)
      return sentAt
    }
    // Unmeasured: a trading signal (the subscriptions want picks only) warms the fan-out path.
    await publish({
      kind: 'signal',
      instrument: 'MSFT',
      direction: 'long',
      entry: 400,
      target: 430,
      stop: 385,
      expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
      stake: 1,
    })
    await sleep(2_000)
    emulator.push.clear()

    log(`push: publishing a pick to ${count} subscriptions`)
    const cpuBefore = await cpuMs(app.pid)
    const sentAt = await publish({
      kind: 'pick',
      sport: 'NBA',
      league: 'Regular season',
      event: 'Bench vs Baseline',
      startsAt: new Date(Date.now() + 3_600_000).toISOString(),
      market: 'moneyline',
      selection: 'Bench',
      odds: 1.9,
      stake: 1,
    })
    // Arrival times, sampled: the push service keeps every push, the bench looks every 20 ms.
    const arrivals: number[] = []
    const deadline = performance.now() + 600_000
    let seen = 0
    let firstAt: number | null = null
    while (seen < count && performance.now() < deadline) {
      await sleep(20)
      const now = performance.now() - sentAt
      // Subscriptions holding it (a repeat under the same topic replaces, and is not counted twice).
      const counts = emulator.push.counts()
      const holding = counts.accepted - counts.replaced
      if (holding > 0 && firstAt === null) firstAt = now
      for (let i = seen; i < holding; i++) arrivals.push(now)
      seen = holding
    }
    const serverCpuMs = (await cpuMs(app.pid)) - cpuBefore
    const lastMs = arrivals.at(-1) ?? Number.NaN
    const rate = seen / (lastMs / 1000)
    const kept = emulator.push.messages().length
    const repeated = emulator.push.counts().replaced

    // The bare baseline: the same number of pushes from the push client alone.
    log(`push: bare sender, ${count} pushes`)
    emulator.push.clear()
    const dir = await tempDir()
    const jobFile = path.join(dir, 'bare-push.json')
    await fs.writeFile(
      jobFile,
      JSON.stringify({
        endpoints: devices.map((device) => device.endpoint),
        keys,
        vapid: { ...vapid, subject: 'mailto:bench@edgeclub.test' },
        payload: JSON.stringify({
          title: 'New pick · NBA · Bench vs Baseline',
          body: 'Bench · 1u · 1.90'.repeat(8),
        }),
        concurrency: 64,
      }),
    )
    const { stdout } = await execFileAsync(
      process.execPath,
      ['--import', 'tsx', 'bench/lib/bare-push.ts', jobFile],
      {
        cwd: root,
        maxBuffer: 1 << 20,
      },
    )
    await fs.rm(dir, { recursive: true, force: true })
    const bare = JSON.parse(stdout.trim().split('\n').at(-1)!) as {
      ms: number
      cpuMs: number
      sent: number
      failed: number
    }
    const bareRate = bare.sent / (bare.ms / 1000)

    figures.push(
      figure('delivery.push.rate', `web push, ${count} subscriptions, one instance`, round(rate), {
        unit: 'notifications/s',
        goal: atLeast(500),
        note: `publish → last of ${seen} subscriptions notified in ${round(lastMs / 1000, 1)} s (first after ${round((firstAt ?? Number.NaN) / 1000, 2)} s; p50 ${round(percentile(arrivals, 50) / 1000, 2)} s, p99 ${round(percentile(arrivals, 99) / 1000, 2)} s); server CPU ${serverCpuMs} ms (${round(serverCpuMs / seen, 2)} ms a push); bare sender beside it ${round(bareRate)} notifications/s (${round(rate / bareRate, 2)}× bare), ${bare.cpuMs} ms CPU (${round(bare.cpuMs / Math.max(1, bare.sent), 2)} ms a push)`,
      }),
      figure('delivery.push.received', 'subscriptions holding the notification', kept, {
        goal: equals(count),
        note: `${repeated} sent twice (replaced under their topic); ${emulator.push.counts().rejected} refused during the bare run`,
      }),
    )
    details.push = {
      subscriptions: count,
      accepted: seen,
      kept,
      lastMs: round(lastMs),
      firstMs: round(firstAt ?? Number.NaN),
      rate: round(rate),
      serverCpuMs,
      bare: {
        ms: round(bare.ms),
        cpuMs: bare.cpuMs,
        sent: bare.sent,
        failed: bare.failed,
        rate: round(bareRate),
      },
    }
  } finally {
    await app.stop()
    await emulator.close()
    await admin(postgresUrl, `drop database if exists ${DB_NAME} with (force)`)
  }
  return {
    figures,
    details,
    notes: [
      `push: ${count} members with access and one subscription each at the emulator's push service, on PostgreSQL (${DB_NAME}, dropped afterwards); bare = the app's push client alone in its own process, 64 at a time`,
    ],
  }
}
