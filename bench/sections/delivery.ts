import http from 'node:http'
import pg from 'pg'
import { createAccessTokens } from '../../apps/api/src/modules/auth/access-tokens'
import { atMost, equals, type Figure, figure, round } from '../lib/figures'
import type { Section } from '../lib/section'
import { benchJwtSecret, startApp } from '../lib/servers'
import { clientAddress, cpuMs, envNumber, percentile, sleep } from '../lib/util'
import { measurePushDelivery } from './delivery-push'

/**
 * Publish → delivery: 1,000 members (BENCH_STREAM_MEMBERS) hold the live stream open
 * (GET /discord/api/signals/stream, the token in the Authorization header, each from its own
 * address), an admin publishes one signal, and each member's arrival is timed from the moment the
 * publish request left. The members are raw HTTP connections reading the event stream, not
 * browsers, so the figure is the server's delivery and not the client's rendering.
 *
 * The app runs in production mode on a scratch PostgreSQL database of its own (the deployment the
 * goal is about: the NOTIFY that wakes the stream is PostgreSQL's). Members, their live sessions and
 * their access are written straight into it; their tokens are minted with the server's secret, as
 * the signed-in reads section does. One unmeasured publish first warms the path.
 */

const DB_NAME = 'edgeclub_bench_delivery'

function withDatabase(serverUrl: string, name: string): string {
  const url = new URL(serverUrl)
  url.pathname = `/${name}`
  return url.toString()
}

/** One member's open stream: when each `signal` event arrived, and its data. */
interface Reader {
  events: { at: number; data: string }[]
  request: http.ClientRequest
}

/** Opens the stream for one member; resolves once the server has said it is connected. */
function openStream(url: string, headers: Record<string, string>): Promise<Reader> {
  return new Promise((resolve, reject) => {
    const reader: Reader = { events: [], request: undefined as unknown as http.ClientRequest }
    // One socket per member, never pooled: each is a member's own long-lived connection.
    reader.request = http.get(url, { headers, agent: false }, (response) => {
      if (response.statusCode !== 200) {
        response.resume()
        reject(new Error(`the stream answered ${response.statusCode}`))
        return
      }
      response.setEncoding('utf8')
      let buffer = ''
      let connected = false
      response.on('data', (chunk: string) => {
        const at = performance.now()
        buffer += chunk
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (block.includes(': connected') && !connected) {
            connected = true
            resolve(reader)
          }
          if (!block.includes('event: signal')) continue
          const data = block
            .split('\n')
            .filter((line) => line.startsWith('data: '))
            .map((line) => line.slice(6))
            .join('\n')
          reader.events.push({ at, data })
        }
      })
    })
    reader.request.on('error', reject)
  })
}

async function setUpDatabase(serverUrl: string): Promise<string> {
  const admin = new pg.Client({ connectionString: serverUrl })
  await admin.connect()
  try {
    await admin.query(`drop database if exists ${DB_NAME} with (force)`)
    await admin.query(`create database ${DB_NAME}`)
  } finally {
    await admin.end()
  }
  return withDatabase(serverUrl, DB_NAME)
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

export const deliverySection: Section = {
  name: 'delivery',
  title: 'signal publish → delivery to 1,000 live members and to 15,000 push subscriptions',
  async run({ postgresUrl, log }) {
    const members = envNumber('BENCH_STREAM_MEMBERS', 1000)
    log(`scratch database ${DB_NAME}`)
    const databaseUrl = await setUpDatabase(postgresUrl)
    const app = await startApp({ databaseUrl })
    const readers: Reader[] = []
    const figures: Figure[] = []
    const details: Record<string, unknown> = {}
    try {
      const rows = await seedMembers(databaseUrl, members)
      const tokens = createAccessTokens(benchJwtSecret)
      const signed = await Promise.all(
        rows.map(async (row) => ({
          token: await tokens.sign({
            userId: row.user_id,
            role: row.n === 1 ? 'admin' : 'member',
            sessionId: row.session_id,
          }),
          address: clientAddress(row.n),
        })),
      )
      const [publisher, ...audience] = signed
      const streamUrl = `${app.url}/discord/api/signals/stream`

      log(`connecting ${audience.length} members to the live stream`)
      const connectStarted = performance.now()
      for (let i = 0; i < audience.length; i += 50) {
        const batch = audience.slice(i, i + 50)
        readers.push(
          ...(await Promise.all(
            batch.map((member) =>
              openStream(streamUrl, {
                authorization: `Bearer ${member.token}`,
                accept: 'text/event-stream',
                'x-forwarded-for': member.address,
              }),
            ),
          )),
        )
      }
      const connectS = round((performance.now() - connectStarted) / 1000, 1)
      details.connectSeconds = connectS

      const publish = async () => {
        const sentAt = performance.now()
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
        return { id: body.data.id, sentAt, answeredMs: performance.now() - sentAt }
      }
      const arrivals = async (id: string, sentAt: number, timeoutMs: number) => {
        const deadline = performance.now() + timeoutMs
        const arrivedAt = () =>
          readers.map((reader) => reader.events.find((event) => event.data.includes(`"id":"${id}"`))?.at)
        let seen = arrivedAt()
        while (seen.some((at) => at === undefined) && performance.now() < deadline) {
          await sleep(50)
          seen = arrivedAt()
        }
        return seen.map((at) => (at === undefined ? null : at - sentAt))
      }

      log('warm-up publish (not measured)')
      const warm = await publish()
      await arrivals(warm.id, warm.sentAt, 30_000)

      log(`measured publish to ${readers.length} live members`)
      const cpuBefore = await cpuMs(app.pid)
      const readersCpuBefore = process.cpuUsage()
      const measured = await publish()
      const delays = await arrivals(measured.id, measured.sentAt, 30_000)
      const serverCpuMs = (await cpuMs(app.pid)) - cpuBefore
      const readersCpu = process.cpuUsage(readersCpuBefore)
      const readersCpuMs = Math.round((readersCpu.user + readersCpu.system) / 1000)
      const received = delays.filter((delay): delay is number => delay !== null)
      const missing = delays.length - received.length
      const p = (q: number) => round(percentile(received, q) / 1000, 3)

      figures.push(
        figure(
          'delivery.p99',
          `publish → delivery p99, ${readers.length} live members`,
          missing ? null : p(99),
          {
            unit: 's',
            goal: atMost(1),
            note: missing
              ? `${missing} of ${readers.length} members received nothing within 30 s`
              : `p50 ${p(50)} s, p90 ${p(90)} s, max ${p(100)} s; the publish call answered in ${round(measured.answeredMs)} ms; server CPU ${serverCpuMs} ms for the publication and its ${readers.length} deliveries (the readers' process: ${readersCpuMs} ms); on a crowded machine wall time stretches far beyond CPU time`,
          },
        ),
        figure('delivery.received', 'members who received the signal', received.length, {
          goal: equals(readers.length),
          note: `of ${readers.length} connected (connecting took ${connectS} s)`,
        }),
      )
      details.delaysMs = {
        p50: round(percentile(received, 50)),
        p90: round(percentile(received, 90)),
        p99: round(percentile(received, 99)),
        max: round(percentile(received, 100)),
        missing,
      }
      details.publishAnsweredMs = round(measured.answeredMs)
      details.rssAfterMB = await app.rssMB()
    } finally {
      for (const reader of readers) reader.request.destroy()
      await app.stop()
      await dropDatabase(postgresUrl)
    }
    // Web push through the emulator's push service, beside its bare sender (delivery-push.ts).
    const push = await measurePushDelivery({ postgresUrl, log })
    return {
      figures: [...figures, ...push.figures],
      details: { ...details, ...push.details },
      notes: [
        `${members} members with their own tokens, sessions, access and client addresses, on PostgreSQL (${DB_NAME}, dropped afterwards)`,
        ...push.notes,
      ],
    }
  },
}
