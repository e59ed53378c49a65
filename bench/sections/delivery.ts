import pg from 'pg'
import { openDatabase } from '../../apps/api/src/db/database'
import { migrateToLatest } from '../../apps/api/src/db/migrate'
import { seedPlans } from '../../apps/api/src/db/seed'
import { createAccessTokens } from '../../apps/api/src/modules/auth/access-tokens'
import { atMost, equals, type Figure, figure, round } from '../lib/figures'
import type { Section } from '../lib/section'
import { benchJwtSecret, type RunningProcess, startApp, startBareStream } from '../lib/servers'
import { openStreamReaders, type StreamReaders, type StreamTarget } from '../lib/stream-readers'
import { clientAddress, cpuMs, envNumber, percentile } from '../lib/util'
import { measurePushDelivery } from './delivery-push'

/**
 * Publish → delivery at the club's size: 15,000 members (BENCH_STREAM_MEMBERS) hold the live stream
 * open on one app instance (GET /discord/api/signals/stream, the token in the Authorization header,
 * each from its own address), an admin publishes one signal, and each member's arrival is timed from
 * the moment the publish request left. Then two instances on the same PostgreSQL share 30,000
 * (BENCH_STREAM_PAIR_MEMBERS) streams, half on each; the admin publishes on the first, and the second
 * hears of it by NOTIFY. The members are raw HTTP connections reading the event stream, spread over
 * several reader processes (bench/lib/stream-readers.ts), not browsers, so the figure is the
 * server's delivery and not the client's rendering.
 *
 * The floor, measured first in the same run by the same readers: a bare Node server writing one
 * event to as many open streams (bench/lib/bare-stream-server.ts; no auth, no database).
 *
 * The app runs in production mode on a scratch PostgreSQL database of its own (the deployment the
 * goal is about: the NOTIFY that wakes the stream is PostgreSQL's). Members, their live sessions and
 * their access are written straight into it; their tokens are minted with the server's secret, as
 * the signed-in reads section does. One unmeasured publish first warms each setup.
 */

// Its own name per checkout (BENCH_DELIVERY_DATABASE_NAME): two runs on one server must not drop each other's.
const DB_NAME = process.env.BENCH_DELIVERY_DATABASE_NAME ?? 'edgeclub_bench_delivery'

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

const now = () => performance.timeOrigin + performance.now()

async function setUpDatabase(serverUrl: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(`drop database if exists ${DB_NAME} with (force)`)
    await admin.query(`create database ${DB_NAME}`)
  } finally {
    await admin.end()
  }
  const databaseUrl = withDatabase(serverUrl, DB_NAME)
  // The app's schema and plans, as the first server start would make them.
  const database = await openDatabase({ databaseUrl })
  await migrateToLatest(database.db)
  await seedPlans(database.db)
  await database.close()
  return databaseUrl
}

async function dropDatabase(serverUrl: string): Promise<void> {
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(`drop database if exists ${DB_NAME} with (force)`)
  } finally {
    await admin.end()
  }
}

/**
 * Member n (1 is the admin who publishes) with a live session and, for members, a month of access:
 * what a paying member streaming the signal room looks like in the database.
 */
async function seedMembers(databaseUrl: string, count: number) {
  const client = new pg.Client({ connectionString: databaseUrl })
  await client.connect()
  try {
    const userId = (n: string) => `md5('edgeclub-delivery-user-' || (${n}))::uuid`
    const sessionId = (n: string) => `md5('edgeclub-delivery-session-' || (${n}))::uuid`
    await client.query(`insert into users (id, email, email_normalized, password_hash, first_name, last_name,
        discord_username, trading_interests, agreed_terms_at, age_confirmed_at, role, disabled_at, stripe_customer_id)
      select ${userId('n')}, 'delivery' || n || '@edgeclub.test', 'delivery' || n || '@edgeclub.test',
        '$bench$no-password', 'Bench', 'Member ' || n, 'bench_' || n, null, now(), now(),
        case when n = 1 then 'admin' else 'member' end, null, null
      from generate_series(1, ${count + 1}) n`)
    await client.query(`insert into sessions (id, user_id, remember, user_agent, ip, revoked_at, revoke_reason)
      select ${sessionId('n')}, ${userId('n')}, false, 'bench', '198.18.0.1', null, null
      from generate_series(1, ${count + 1}) n`)
    await client.query(`insert into subscriptions (user_id, plan_id, provider, status, start_date, end_date)
      select ${userId('n')}, (select id from plans where slug = 'monthly'), 'admin', 'active',
        now() - interval '1 day', now() + interval '30 days'
      from generate_series(2, ${count + 1}) n`)
    const { rows } = await client.query<{ user_id: string; session_id: string; n: number }>(
      `select ${userId('n')} as user_id, ${sessionId('n')} as session_id, n from generate_series(1, ${count + 1}) n order by n`,
    )
    return rows
  } finally {
    await client.end()
  }
}

const tradingSignal = () => ({
  kind: 'signal',
  instrument: 'MSFT',
  direction: 'long',
  entry: 400,
  target: 430,
  stop: 385,
  expiresAt: new Date(Date.now() + 3 * 24 * 3_600_000).toISOString(),
  stake: 1,
  analysis: 'Bench signal: breakout above the range high.',
})

interface Published {
  id: string
  /** When the publish request left (absolute ms). */
  sentAt: number
  answeredMs: number
}

interface Delivery {
  p50: number
  p90: number
  p99: number
  max: number
  received: number
  missing: number
  answeredMs: number
  serverCpuMs: number
  readersCpuMs: number
}

/** Waits until every reader has the event (or the timeout); delays in ms from the publish. */
async function arrivals(readers: StreamReaders, published: Published, timeoutMs: number) {
  const times = await readers.awaitArrivals(published.id, timeoutMs)
  return times.map((at) => (at === null ? null : at - published.sentAt))
}

/** One unmeasured publish, then the measured one: its delivery to every reader. */
async function measure(
  readers: StreamReaders,
  publish: () => Promise<Published>,
  serverPids: number[],
): Promise<Delivery> {
  const warm = await publish()
  await arrivals(readers, warm, 60_000)
  const serverCpu = async () => (await Promise.all(serverPids.map(cpuMs))).reduce((a, b) => a + b, 0)
  const cpuBefore = await serverCpu()
  const readersBefore = await readers.cpuMs()
  const measured = await publish()
  const delays = await arrivals(readers, measured, 60_000)
  const serverCpuMs = (await serverCpu()) - cpuBefore
  const readersCpuMs = (await readers.cpuMs()) - readersBefore
  const received = delays.filter((delay): delay is number => delay !== null)
  const p = (q: number) => round(percentile(received, q))
  return {
    p50: p(50),
    p90: p(90),
    p99: p(99),
    max: p(100),
    received: received.length,
    missing: delays.length - received.length,
    answeredMs: round(measured.answeredMs),
    serverCpuMs,
    readersCpuMs,
  }
}

function deliveryFigures(key: string, label: string, delivery: Delivery, connected: number, bare?: Delivery) {
  const vsBare =
    bare && bare.p99 > 0
      ? ` (${round(delivery.p99 / bare.p99, 1)}× the bare server's p99 ${bare.p99} ms)`
      : ''
  return [
    figure(
      `${key}.p99`,
      `publish → delivery p99, ${label}`,
      delivery.missing ? null : round(delivery.p99 / 1000, 3),
      {
        unit: 's',
        goal: atMost(1),
        note: delivery.missing
          ? `${delivery.missing} of ${connected} streams received nothing within 60 s`
          : `p50 ${delivery.p50} ms, p90 ${delivery.p90} ms, max ${delivery.max} ms${vsBare}; the publish call answered in ${delivery.answeredMs} ms; server CPU ${delivery.serverCpuMs} ms for the publication and its ${connected} deliveries (the readers' processes: ${delivery.readersCpuMs} ms); on a crowded machine wall time stretches far beyond CPU time`,
      },
    ),
    figure(`${key}.received`, `streams that received the signal, ${label}`, delivery.received, {
      goal: equals(connected),
      note: `of ${connected} connected`,
    }),
  ]
}

export const deliverySection: Section = {
  name: 'delivery',
  title:
    'signal publish → delivery to 15,000 live streams on one instance, 30,000 on two, and to 15,000 push subscriptions',
  async run({ postgresUrl, log }) {
    // BENCH_DELIVERY=push: only the web push part (its own scratch database, a few minutes less).
    if (process.env.BENCH_DELIVERY === 'push') return measurePushDelivery({ postgresUrl, log })
    // BENCH_DELIVERY=pair: only the two-instance setups (the bare pair and the app pair).
    const onlyPair = process.env.BENCH_DELIVERY === 'pair'
    const single = envNumber('BENCH_STREAM_MEMBERS', 15_000)
    const pair = envNumber('BENCH_STREAM_PAIR_MEMBERS', single * 2)
    const figures: Figure[] = []
    const details: Record<string, unknown> = {}
    const streamHeaders = (member: { token: string; address: string }) => ({
      authorization: `Bearer ${member.token}`,
      accept: 'text/event-stream',
      'x-forwarded-for': member.address,
    })
    let readers: StreamReaders | undefined
    const running: RunningProcess[] = []
    const stopAll = async () => {
      await readers?.close()
      readers = undefined
      for (const server of running.splice(0)) await server.stop()
    }
    const connect = async (what: string, targets: StreamTarget[]) => {
      log(`connecting ${targets.length.toLocaleString()} streams to ${what}`)
      const started = performance.now()
      readers = await openStreamReaders(targets)
      const seconds = round((performance.now() - started) / 1000, 1)
      log(
        `  ${readers.count.toLocaleString()} open in ${seconds} s${readers.failed ? `, ${readers.failed} failed: ${readers.failures[0]}` : ''}`,
      )
      return { readers, seconds }
    }

    // The floor: a bare server and the same readers.
    let bareDelivery: Delivery | undefined
    if (!onlyPair) {
      const bare = await startBareStream()
      running.push(bare)
      try {
        const { readers: bareReaders, seconds } = await connect(
          'the bare stream server',
          Array.from({ length: single }, () => ({ url: `${bare.url}/bare/stream`, headers: {} })),
        )
        bareDelivery = await measure(bareReaders, async () => {
          const sentAt = now()
          const response = await fetch(`${bare.url}/bare/publish`, { method: 'POST', body: '{}' })
          const body = (await response.json()) as { data: { id: string } }
          return { id: body.data.id, sentAt, answeredMs: now() - sentAt }
        }, [bare.pid])
        log(`bare: p99 ${bareDelivery.p99} ms`)
        figures.push(
          ...deliveryFigures(
            'delivery.bare',
            `bare Node server, ${bareReaders.count.toLocaleString()} streams`,
            bareDelivery,
            bareReaders.count,
          ),
        )
        details.bare = { ...bareDelivery, connectSeconds: seconds }
      } finally {
        await stopAll()
      }
    }

    // The floor for the pair: two bare servers, half the streams on each, both told at once (the app's
    // second instance hears by NOTIFY instead). On one 2-core machine the readers of 30,000 streams
    // compete with the servers for the same cores: this says what is left for any server.
    let barePairDelivery: Delivery | undefined
    if (pair > single) {
      const bares = [await startBareStream(), await startBareStream()]
      running.push(...bares)
      try {
        const { readers: bareReaders, seconds } = await connect(
          'two bare stream servers',
          Array.from({ length: pair }, (_, i) => ({ url: `${bares[i % 2]!.url}/bare/stream`, headers: {} })),
        )
        barePairDelivery = await measure(
          bareReaders,
          async () => {
            const sentAt = now()
            const ids = await Promise.all(
              bares.map(async (bare) => {
                const response = await fetch(`${bare.url}/bare/publish`, { method: 'POST', body: '{}' })
                return ((await response.json()) as { data: { id: string } }).data.id
              }),
            )
            // Both number their events alike: one id names the event on every stream.
            if (ids[0] !== ids[1])
              throw new Error(`the bare servers disagree on the event id: ${ids.join(', ')}`)
            return { id: ids[0]!, sentAt, answeredMs: now() - sentAt }
          },
          bares.map((bare) => bare.pid),
        )
        log(`bare pair: p99 ${barePairDelivery.p99} ms`)
        figures.push(
          ...deliveryFigures(
            'delivery.barePair',
            `two bare Node servers, ${bareReaders.count.toLocaleString()} streams`,
            barePairDelivery,
            bareReaders.count,
          ),
        )
        details.barePair = { ...barePairDelivery, connectSeconds: seconds }
      } finally {
        await stopAll()
      }
    }

    log(`scratch database ${DB_NAME}`)
    const databaseUrl = await setUpDatabase(postgresUrl)
    try {
      const rows = await seedMembers(databaseUrl, Math.max(single, pair))
      // Access tokens live minutes: each setup signs its own right before it connects.
      const tokens = createAccessTokens(benchJwtSecret)
      const sign = () =>
        Promise.all(
          rows.map(async (row) => ({
            token: await tokens.sign({
              userId: row.user_id,
              role: row.n === 1 ? 'admin' : 'member',
              sessionId: row.session_id,
            }),
            address: clientAddress(row.n),
          })),
        )
      let signed: Awaited<ReturnType<typeof sign>> = []
      const publishOn = (app: RunningProcess) => async (): Promise<Published> => {
        const publisher = signed[0]
        const sentAt = now()
        const response = await fetch(`${app.url}/discord/api/signals`, {
          method: 'POST',
          headers: {
            authorization: `Bearer ${publisher!.token}`,
            'content-type': 'application/json',
            'x-forwarded-for': publisher!.address,
          },
          body: JSON.stringify(tradingSignal()),
        })
        const body = (await response.json()) as { data?: { id: string } }
        if (response.status !== 201 || !body.data)
          throw new Error(`publishing answered ${response.status}: ${JSON.stringify(body).slice(0, 200)}`)
        return { id: body.data.id, sentAt, answeredMs: now() - sentAt }
      }

      /**
       * `count` instances on the scratch database (tokens signed right before they connect), `streams` streams spread over them in turn, the
       * signal published on the first (the others hear of it by NOTIFY); `floor` is the bare figure.
       */
      const onInstances = async (
        count: number,
        name: string,
        streams: number,
        floor: Delivery | undefined,
      ) => {
        try {
          const apps: RunningProcess[] = []
          for (let i = 0; i < count; i++) {
            apps.push(await startApp({ databaseUrl }))
            running.push(apps.at(-1)!)
          }
          signed = await sign()
          const { readers: appReaders, seconds } = await connect(
            `${count} app instance${count === 1 ? '' : 's'}`,
            signed.slice(1, streams + 1).map((member, i) => ({
              url: `${apps[i % count]!.url}/discord/api/signals/stream`,
              headers: streamHeaders(member),
            })),
          )
          const delivery = await measure(
            appReaders,
            publishOn(apps[0]!),
            apps.map((app) => app.pid),
          )
          log(`${name}: p99 ${delivery.p99} ms`)
          figures.push(
            ...deliveryFigures(
              count === 1 ? 'delivery' : 'delivery.pair',
              `${appReaders.count.toLocaleString()} streams on ${name}`,
              delivery,
              streams,
              floor,
            ),
          )
          return {
            ...delivery,
            connectSeconds: seconds,
            failedToConnect: appReaders.failed,
            rssAfterMB: await Promise.all(apps.map((app) => app.rssMB())),
          }
        } finally {
          await stopAll()
        }
      }
      if (!onlyPair) details.oneInstance = await onInstances(1, 'one instance', single, bareDelivery)
      // Two instances on the same database, half the streams on each.
      details.twoInstances = await onInstances(2, 'two instances', pair, barePairDelivery ?? bareDelivery)
    } finally {
      await dropDatabase(postgresUrl)
    }
    // Web push through the emulator's push service, beside its bare sender (delivery-push.ts).
    const push = onlyPair
      ? { figures: [], details: {}, notes: [] }
      : await measurePushDelivery({ postgresUrl, log })
    return {
      figures: [...figures, ...push.figures],
      details: { ...details, ...push.details },
      notes: [
        `${Math.max(single, pair)} members with their own tokens, sessions, access and client addresses, on PostgreSQL (${DB_NAME}, dropped afterwards); readers in processes of at most 4,000 streams each`,
        ...push.notes,
      ],
    }
  },
}
