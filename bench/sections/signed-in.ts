import { createAccessTokens } from '../../apps/api/src/modules/auth/access-tokens'
import { atMost, type Figure, figure } from '../lib/figures'
import { openLoop } from '../lib/open-loop'
import type { Section } from '../lib/section'
import { benchJwtSecret, startApp, startBare } from '../lib/servers'
import { clientAddress, cpuMs, envNumber } from '../lib/util'

/**
 * Signed-in reads at a steady arrival rate (BENCH_RATE, 500 req/s, open loop: requests leave on
 * schedule whatever the server does, and latency counts from the scheduled moment) on the big
 * dataset. Requests rotate over ~2,200 members, each with its own access token (minted with the
 * server's secret for a real, unrevoked session row) and its own client address in X-Forwarded-For
 * (the server trusts one proxy hop), so the figure is the work and not the per-address rate limit.
 * Requests accept gzip/br as a browser's do.
 * The bare route at the same rate, same generator, gives the floor of this machine.
 */
/** One request per member, eight at a time (closed loop): what the open loop then reads is in memory. */
async function primeEach(
  baseUrl: string,
  path: string,
  count: number,
  headersOf: (i: number) => Record<string, string>,
) {
  let next = 0
  const worker = async () => {
    while (next < count) {
      const i = next++
      const response = await fetch(`${baseUrl}${path}`, { headers: headersOf(i) })
      await response.arrayBuffer()
    }
  }
  await Promise.all(Array.from({ length: 8 }, worker))
}

export const SIGNED_IN_READS = [
  '/discord/api/subscriptions/status',
  '/discord/api/payments/history',
  '/discord/api/auth/profile',
]

export const signedInSection: Section = {
  name: 'reads',
  title: 'signed-in reads at a steady rate, 1M members / 10M payments',
  async run({ dataset, log }) {
    const data = await dataset()
    const rate = envNumber('BENCH_RATE', 500)
    const durationS = envNumber('BENCH_DURATION', 10)
    const tokens = createAccessTokens(benchJwtSecret)
    const members = await Promise.all(
      data.members.map(async (member, index) => ({
        token: await tokens.sign({ userId: member.userId, role: 'member', sessionId: member.sessionId }),
        address: clientAddress(index),
      })),
    )
    const headersOf = (i: number) => {
      const member = members[(i * 7919) % members.length]!
      // What the dashboard's fetch sends: compressed answers accepted, like every browser.
      return {
        authorization: `Bearer ${member.token}`,
        'x-forwarded-for': member.address,
        'accept-encoding': 'gzip, deflate, br',
      }
    }
    // Unmeasured warm-up long enough to reach every member once: the figure is the steady state
    // of a server whose active members' rows are in memory, not the first read of each from disk.
    const warmupS = Math.max(2, Math.ceil(members.length / rate))
    const app = await startApp({ databaseUrl: data.databaseUrl })
    const figures: Figure[] = []
    const details: Record<string, unknown> = {}
    try {
      const sample = await fetch(`${app.url}${SIGNED_IN_READS[0]}`, { headers: headersOf(0) })
      const sampleBody = await sample.text()
      if (sample.status !== 200)
        throw new Error(`a bench member's token was refused: ${sample.status} ${sampleBody.slice(0, 200)}`)

      // Each member's rows read once before anything is measured, a few at a time: on a cold disk
      // (a fresh machine, or one whose page cache was given back) a warm-up at the full rate reads
      // from disk and starts the measured run behind a queue it never catches up with.
      log(`reading each of ${members.length} members' answers once (${SIGNED_IN_READS.length} reads each)`)
      for (const path of SIGNED_IN_READS) await primeEach(app.url, path, members.length, headersOf)

      const bare = await startBare({ status: sampleBody })
      try {
        log(`bare route at ${rate} req/s`)
        const floor = await openLoop({
          baseUrl: bare.url,
          rate,
          durationS,
          request: (i) => ({ path: '/bare/status', headers: headersOf(i) }),
        })
        figures.push(
          figure('reads.bare.p99', `bare route p99 at ${rate} req/s`, floor.latencyMs.p99, {
            unit: 'ms',
            note: `the floor of this machine; p50 ${floor.latencyMs.p50} ms`,
          }),
        )
        details.bare = floor
      } finally {
        await bare.stop()
      }

      for (const path of SIGNED_IN_READS) {
        log(`${path} at ${rate} req/s for ${durationS} s`)
        const cpuBefore = await cpuMs(app.pid)
        const result = await openLoop({
          baseUrl: app.url,
          rate,
          durationS,
          warmupS: warmupS,
          request: (i) => ({ path, headers: headersOf(i) }),
        })
        // Node's share of each request (the rest is PostgreSQL and waiting), warm-up included.
        const cpuUs = Math.round(
          (((await cpuMs(app.pid)) - cpuBefore) * 1000) / (rate * (durationS + warmupS)),
        )
        const bad = result.completed - (result.statuses['200'] ?? 0) + result.errors
        figures.push(
          figure(`reads.${path}.p99`, `${path} p99`, result.latencyMs.p99, {
            unit: 'ms',
            goal: atMost(20),
            note: `server CPU ${cpuUs} µs/request, p50 ${result.latencyMs.p50} ms, p90 ${result.latencyMs.p90} ms, max ${result.latencyMs.max} ms, ${result.achievedRate} req/s achieved${
              bad ? `, ${bad} not 200: ${JSON.stringify(result.statuses)}` : ''
            }`,
          }),
        )
        details[path] = { ...result, serverCpuUsPerRequest: cpuUs }
      }
      details.rssAfterMB = await app.rssMB()
    } finally {
      await app.stop()
    }
    return {
      figures,
      details,
      notes: [
        `${members.length} members with their own tokens and client addresses; ${data.shape.members} members, ${data.shape.payments} payments`,
      ],
    }
  },
}
