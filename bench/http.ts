import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { startEmulator } from '@edgeclub/emulator'
import Fastify from 'fastify'
import { buildApp } from '../apps/api/src/app'
import { loadConfig } from '../apps/api/src/config'
import { root, tempDir } from './util'

/** Cached public endpoints against a bare Fastify route, same machine, same run (DESIGN §6: within 2×). */
const run = promisify(execFile)

/** autocannon in its own process, so the load generator does not share the server's event loop. */
async function load(url: string) {
  const bin = path.join(root, 'node_modules/.bin/autocannon')
  const { stdout } = await run(bin, ['--json', '--connections', '20', '--duration', '8', url], {
    maxBuffer: 10_000_000,
  })
  const result = JSON.parse(stdout) as {
    requests: { average: number }
    latency: { p99: number }
    errors: number
    non2xx: number
  }
  return {
    rps: Math.round(result.requests.average),
    p99: result.latency.p99,
    errors: result.errors + result.non2xx,
  }
}

export async function benchHttp() {
  const emulator = await startEmulator()

  const config = loadConfig({
    NODE_ENV: 'production',
    JWT_SECRET: 'x'.repeat(40),
    DATA_DIR: await tempDir(),
    LOG_LEVEL: 'warn',
    PRICE_FEED_URL: emulator.priceFeedUrl,
  })
  config.limits.globalPerMinute = 10_000_000
  const app = await buildApp(config)
  const appUrl = await app.listen({ port: 0, host: '127.0.0.1' })
  // The bare route answers the same bytes as the plans endpoint, from memory: the floor for this payload.
  const payload = await (await fetch(`${appUrl}/discord/api/admin/plans/public/active`)).text()
  const bare = Fastify()
  bare.get('/bare', (_request, reply) => reply.type('application/json').send(payload))
  const bareUrl = await bare.listen({ port: 0, host: '127.0.0.1' })
  try {
    await fetch(`${appUrl}/discord/api/market/prices`)
    const baseline = await load(`${bareUrl}/bare`)
    const plans = await load(`${appUrl}/discord/api/admin/plans/public/active`)
    const prices = await load(`${appUrl}/discord/api/market/prices`)
    const ratio = (other: { rps: number }) => Math.round((baseline.rps / other.rps) * 100) / 100
    return {
      baseline,
      plans: { ...plans, slowerThanBareBy: ratio(plans) },
      prices: { ...prices, slowerThanBareBy: ratio(prices), feedRequests: emulator.prices.requests },
      budget: 'within 2x of the bare route',
    }
  } finally {
    await app.close()
    await bare.close()
    await emulator.close()
  }
}
