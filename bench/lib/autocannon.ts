import { execFile } from 'node:child_process'
import path from 'node:path'
import { promisify } from 'node:util'
import { envNumber, root } from './util'

const run = promisify(execFile)

export interface ClosedLoopResult {
  rps: number
  p50: number
  p99: number
  errors: number
  non2xx: number
  requests: number
}

/**
 * Maximum throughput, closed loop: autocannon in its own process (so the load generator never shares
 * the server's event loop), BENCH_CONNECTIONS connections (50) for BENCH_DURATION seconds (10), or
 * `seconds` when given (a warm-up).
 */
export async function autocannon(
  url: string,
  headers: Record<string, string> = {},
  seconds = envNumber('BENCH_DURATION', 10),
): Promise<ClosedLoopResult> {
  const bin = path.join(root, 'node_modules/.bin/autocannon')
  const args = [
    '--json',
    '--connections',
    String(envNumber('BENCH_CONNECTIONS', 50)),
    '--duration',
    String(seconds),
  ]
  for (const [key, value] of Object.entries(headers)) args.push('--headers', `${key}=${value}`)
  args.push(url)
  const { stdout } = await run(bin, args, { maxBuffer: 20_000_000 })
  const result = JSON.parse(stdout) as {
    requests: { average: number; total: number }
    latency: { p50: number; p99: number }
    errors: number
    non2xx: number
  }
  return {
    rps: Math.round(result.requests.average),
    p50: result.latency.p50,
    p99: result.latency.p99,
    errors: result.errors,
    non2xx: result.non2xx,
    requests: result.requests.total,
  }
}
