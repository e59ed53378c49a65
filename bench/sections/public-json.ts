import { startEmulator } from '@edgeclub/emulator'
import { autocannon, type ClosedLoopResult } from '../lib/autocannon'
import { atLeast, equals, type Figure, figure, pending, round } from '../lib/figures'
import type { Section } from '../lib/section'
import { startApp, startBare } from '../lib/servers'
import { cpuMs, envNumber, sleep } from '../lib/util'

/**
 * Cached public JSON: maximum throughput of each endpoint (autocannon, closed loop) against a bare
 * Fastify process answering the same bytes, measured in the same run with the same arrangement
 * (each server its own process, autocannon in a third). The bare route is measured before and after
 * the app's endpoint and averaged, so drift of the shared machine during the run cancels out.
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
        for (const endpoint of found) {
          const url = `${app.url}${endpoint.path}`
          log(`autocannon ${endpoint.path} and its bare twin`)
          // CPU time each server spent per request: the same comparison, steadier on a busy machine.
          // What the server spends at rest (the app's job queue polls its queues, timers run) is
          // measured for a few seconds first and taken off: on a crowded machine throughput falls,
          // and a fixed cost per second would otherwise be charged to fewer requests.
          // Each server first answers the same load for BENCH_WARMUP_S seconds (3), unmeasured: a
          // server runs for days, and the first seconds of a fresh process are spent compiling its hot
          // path (on V8's background threads, which its CPU time counts), more of it for the app's
          // longer path than for the bare route's.
          const withCpu = async (pid: number, target: string) => {
            await autocannon(target, {}, envNumber('BENCH_WARMUP_S', 3))
            const restStarted = performance.now()
            const restBefore = await cpuMs(pid)
            await sleep(3000)
            const restMsPerS = ((await cpuMs(pid)) - restBefore) / ((performance.now() - restStarted) / 1000)
            const started = performance.now()
            const cpuBefore = await cpuMs(pid)
            const result = await autocannon(target)
            const busyMs = (await cpuMs(pid)) - cpuBefore
            const restMs = restMsPerS * ((performance.now() - started) / 1000)
            const usPerRequest = (Math.max(0, busyMs - restMs) * 1000) / Math.max(1, result.requests)
            return {
              ...result,
              cpuUsPerRequest: Math.round(usPerRequest),
              cpuUsPerRequestWithRest: Math.round((busyMs * 1000) / Math.max(1, result.requests)),
              restCpuMsPerS: Math.round(restMsPerS),
            }
          }
          const before = await withCpu(bare.pid, `${bare.url}/bare/${endpoint.name}`)
          const measured = await withCpu(app.pid, url)
          const after = await withCpu(bare.pid, `${bare.url}/bare/${endpoint.name}`)
          const bareCpu = (before.cpuUsPerRequest + after.cpuUsPerRequest) / 2
          const bareRps = (before.rps + after.rps) / 2
          const cache = await cacheCheck(url)
          const key = `json.${endpoint.name}`
          const failures = (r: ClosedLoopResult) => r.errors + r.non2xx
          figures.push(
            figure(`${key}.ratio`, `${endpoint.path} throughput / bare`, round(measured.rps / bareRps, 2), {
              goal: atLeast(0.6),
              note: `${measured.rps} vs ${Math.round(bareRps)} req/s, p99 ${measured.p99} vs ${before.p99} ms${
                failures(measured) ? `, ${failures(measured)} errors/non-2xx` : ''
              }`,
            }),
            figure(
              `${key}.cpuRatio`,
              `${endpoint.path} bare CPU / app CPU per request`,
              round(bareCpu / measured.cpuUsPerRequest, 2),
              {
                // Within 1.5× of the bare route's CPU per request.
                goal: atLeast(0.67),
                note: `${measured.cpuUsPerRequest} vs ${Math.round(bareCpu)} µs of server CPU per request beyond what each spends at rest (${measured.restCpuMsPerS} vs ${before.restCpuMsPerS} ms/s); with it ${measured.cpuUsPerRequestWithRest} vs ${before.cpuUsPerRequestWithRest} µs`,
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
            bareBefore: before,
            bareAfter: after,
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
