import { startEmulator } from '@edgeclub/emulator'
import { autocannon, type ClosedLoopResult } from '../lib/autocannon'
import { atLeast, equals, type Figure, figure, pending, round } from '../lib/figures'
import type { Section } from '../lib/section'
import { startApp, startBare } from '../lib/servers'
import { cpuMs, envNumber, sleep } from '../lib/util'

/**
 * Cached public JSON: maximum throughput of each endpoint (autocannon, closed loop) against a bare
 * Fastify process answering the same bytes, measured in the same run with the same arrangement
 * (each server its own process, autocannon in a third). The two take turns over a few short rounds,
 * each round visiting every endpoint, and each figure is the median of the rounds' ratios, so drift
 * of the shared machine (or of a long-running process) during the run weighs on both servers and on
 * every endpoint alike.
 * Also: whether the answers can be cached by clients and proxies (ETag, Cache-Control, 304).
 *
 * An endpoint names the paths it may live at; the first that answers 200 is measured.
 */
export const PUBLIC_JSON = [
  { name: 'plans', paths: ['/discord/api/plans/active', '/discord/api/admin/plans/public/active'] },
  { name: 'prices', paths: ['/discord/api/market/prices'] },
  { name: 'record', paths: ['/discord/api/record'] },
]

async function findPath(base: string, paths: string[]) {
  for (const path of paths) {
    const response = await fetch(`${base}${path}`)
    const body = await response.text()
    if (response.status === 200) return { path, body }
  }
  return null
}

async function cacheCheck(url: string) {
  const first = await fetch(url)
  await first.arrayBuffer()
  const etag = first.headers.get('etag')
  const cacheControl = first.headers.get('cache-control')
  let conditional: number | null = null
  if (etag) {
    const second = await fetch(url, { headers: { 'if-none-match': etag } })
    await second.arrayBuffer()
    conditional = second.status
  }
  return { etag, cacheControl, conditional }
}

export const publicJsonSection: Section = {
  name: 'json',
  aliases: ['http'],
  title: 'cached public JSON against a bare Fastify route (autocannon)',
  async run({ log }) {
    const emulator = await startEmulator()
    const app = await startApp({ env: { PRICE_FEED_URL: emulator.priceFeedUrl } })
    const figures: Figure[] = []
    const notes: string[] = []
    const details: Record<string, unknown> = {}
    try {
      const found: { name: string; path: string; body: string }[] = []
      const missing: Figure[] = []
      for (const endpoint of PUBLIC_JSON) {
        const hit = await findPath(app.url, endpoint.paths)
        if (hit) found.push({ name: endpoint.name, ...hit })
        else {
          missing.push(
            pending(
              `json.${endpoint.name}.ratio`,
              `${endpoint.name}: throughput vs bare`,
              `${endpoint.paths.join(' or ')} not found`,
              {
                goal: atLeast(0.6),
              },
            ),
          )
        }
      }
      const bare = await startBare(Object.fromEntries(found.map((f) => [f.name, f.body])))
      try {
        const targets = found.map((endpoint) => ({
          ...endpoint,
          url: `${app.url}${endpoint.path}`,
          bareTarget: `${bare.url}/bare/${endpoint.name}`,
        }))
        // CPU time each server spent per request: the same comparison, steadier on a busy machine.
        // Each server first answers the same load for BENCH_WARMUP_S seconds (3) per endpoint,
        // unmeasured: a server runs for days, and the first seconds of a fresh process are spent
        // compiling its hot path (on V8's background threads, which its CPU time counts), more of it
        // for the app's longer path than for the bare route's.
        for (const target of targets) {
          log(`warming ${target.path} and its bare twin`)
          await autocannon(target.bareTarget, {}, envNumber('BENCH_WARMUP_S', 3))
          await autocannon(target.url, {}, envNumber('BENCH_WARMUP_S', 3))
        }
        // What each spends at rest (the app's job queue looks for work, timers run) is measured for a
        // few seconds, both at once, and taken off: on a crowded machine throughput falls, and a fixed
        // cost per second would otherwise be charged to fewer requests.
        const restStarted = performance.now()
        const [bareRest0, appRest0] = await Promise.all([cpuMs(bare.pid), cpuMs(app.pid)])
        await sleep(3000)
        const restS = (performance.now() - restStarted) / 1000
        const bareRestMsPerS = ((await cpuMs(bare.pid)) - bareRest0) / restS
        const appRestMsPerS = ((await cpuMs(app.pid)) - appRest0) / restS
        const measure = async (pid: number, target: string, restMsPerS: number) => {
          const started = performance.now()
          const cpuBefore = await cpuMs(pid)
          const result = await autocannon(target, {}, envNumber('BENCH_JSON_ROUND_S', 5))
          const busyMs = (await cpuMs(pid)) - cpuBefore
          const restMs = restMsPerS * ((performance.now() - started) / 1000)
          return {
            ...result,
            cpuUsPerRequest: (Math.max(0, busyMs - restMs) * 1000) / Math.max(1, result.requests),
            cpuUsPerRequestWithRest: (busyMs * 1000) / Math.max(1, result.requests),
          }
        }
        type Measured = Awaited<ReturnType<typeof measure>>
        // BENCH_JSON_ROUNDS rounds (4) of BENCH_JSON_ROUND_S seconds (5) per server and endpoint. Each
        // round visits every endpoint, starting one further along each time, and measures the two
        // servers one after the other, first one then the other: a machine (or a process) that slows
        // down or speeds up during the run weighs on both servers and on every endpoint alike. Each
        // figure is the median of the rounds' ratios.
        const rounds = new Map<string, { bare: Measured; app: Measured }[]>(targets.map((t) => [t.name, []]))
        const roundCount = envNumber('BENCH_JSON_ROUNDS', 4)
        for (let round = 0; round < roundCount; round++) {
          log(`round ${round + 1} of ${roundCount}`)
          for (let i = 0; i < targets.length; i++) {
            const target = targets[(round + i) % targets.length]!
            const measureBare = () => measure(bare.pid, target.bareTarget, bareRestMsPerS)
            const measureApp = () => measure(app.pid, target.url, appRestMsPerS)
            if ((round + i) % 2 === 0) {
              const bareRound = await measureBare()
              rounds.get(target.name)!.push({ bare: bareRound, app: await measureApp() })
            } else {
              const appRound = await measureApp()
              rounds.get(target.name)!.push({ app: appRound, bare: await measureBare() })
            }
          }
        }
        const median = (values: number[]) => {
          const sorted = [...values].sort((a, b) => a - b)
          const middle = Math.floor(sorted.length / 2)
          return sorted.length % 2 ? sorted[middle]! : (sorted[middle - 1]! + sorted[middle]!) / 2
        }
        const range = (values: number[]) =>
          `${round(Math.min(...values), 2)}–${round(Math.max(...values), 2)}`
        for (const endpoint of targets) {
          const { url } = endpoint
          const ofEndpoint = rounds.get(endpoint.name)!
          const cpuRatios = ofEndpoint.map((r) => r.bare.cpuUsPerRequest / r.app.cpuUsPerRequest)
          const rpsRatios = ofEndpoint.map((r) => r.app.rps / r.bare.rps)
          // Each side's figures: the median of its rounds (errors and non-2xx summed).
          const summary = (side: 'app' | 'bare') => {
            const of = (pick: (r: Measured) => number) => median(ofEndpoint.map((r) => pick(r[side])))
            return {
              rps: Math.round(of((r) => r.rps)),
              p99: of((r) => r.p99),
              cpuUsPerRequest: Math.round(of((r) => r.cpuUsPerRequest)),
              cpuUsPerRequestWithRest: Math.round(of((r) => r.cpuUsPerRequestWithRest)),
              errors: ofEndpoint.reduce((sum, r) => sum + r[side].errors, 0),
              non2xx: ofEndpoint.reduce((sum, r) => sum + r[side].non2xx, 0),
            }
          }
          const measured = summary('app')
          const bareMeasured = summary('bare')
          const cache = await cacheCheck(url)
          const key = `json.${endpoint.name}`
          const failures = (r: Pick<ClosedLoopResult, 'errors' | 'non2xx'>) => r.errors + r.non2xx
          figures.push(
            figure(`${key}.ratio`, `${endpoint.path} throughput / bare`, round(median(rpsRatios), 2), {
              goal: atLeast(0.6),
              note: `${measured.rps} vs ${bareMeasured.rps} req/s, p99 ${measured.p99} vs ${bareMeasured.p99} ms (medians of ${ofEndpoint.length} rounds; ratios ${range(rpsRatios)})${
                failures(measured) ? `, ${failures(measured)} errors/non-2xx` : ''
              }`,
            }),
            figure(
              `${key}.cpuRatio`,
              `${endpoint.path} bare CPU / app CPU per request`,
              round(median(cpuRatios), 2),
              {
                // Within 1.5× of the bare route's CPU per request.
                goal: atLeast(0.67),
                note: `${measured.cpuUsPerRequest} vs ${bareMeasured.cpuUsPerRequest} µs of server CPU per request beyond what each spends at rest (${Math.round(appRestMsPerS)} vs ${Math.round(bareRestMsPerS)} ms/s); with it ${measured.cpuUsPerRequestWithRest} vs ${bareMeasured.cpuUsPerRequestWithRest} µs; rounds' ratios ${range(cpuRatios)}`,
              },
            ),
            figure(`${key}.etag`, `${endpoint.path} sends ETag`, cache.etag !== null, { goal: equals(true) }),
            figure(
              `${key}.cacheControl`,
              `${endpoint.path} sends Cache-Control`,
              cache.cacheControl !== null,
              {
                goal: equals(true),
                ...(cache.cacheControl ? { note: cache.cacheControl } : {}),
              },
            ),
            figure(`${key}.notModified`, `${endpoint.path} If-None-Match → 304`, cache.conditional === 304, {
              goal: equals(true),
              ...(cache.conditional ? { note: `answered ${cache.conditional}` } : {}),
            }),
          )
          details[endpoint.name] = {
            path: endpoint.path,
            bytes: Buffer.byteLength(endpoint.body),
            app: measured,
            bare: bareMeasured,
            restCpuMsPerS: { app: appRestMsPerS, bare: bareRestMsPerS },
            rounds: ofEndpoint,
            cache,
          }
        }
      } finally {
        await bare.stop()
      }
      figures.push(...missing)
      notes.push(
        `app: NODE_ENV=production LOG_LEVEL=${process.env.BENCH_LOG_LEVEL ?? 'info'}; price feed requests during the run: ${emulator.prices.requests}`,
      )
    } finally {
      await app.stop()
      await emulator.close()
    }
    return { figures, notes, details }
  },
}
