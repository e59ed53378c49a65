import http from 'node:http'
import { percentile, sleep } from './util'

export interface OpenLoopRequest {
  path: string
  headers: Record<string, string>
}

export interface OpenLoopResult {
  targetRate: number
  achievedRate: number
  sent: number
  completed: number
  errors: number
  statuses: Record<string, number>
  /** From the moment each request was due, so a stalled server cannot hide its queue (coordinated omission). */
  latencyMs: { p50: number; p90: number; p99: number; max: number }
  /** From the moment each request actually left, for comparison. */
  serviceMs: { p50: number; p99: number }
}

/**
 * Constant arrival rate: request i is due at start + i/rate whatever the server is doing, sent over a
 * keep-alive pool large enough that a slow answer never holds back the next request. Latency is
 * measured from the due time. The first `warmupS` seconds are sent but not counted.
 */
export async function openLoop(options: {
  baseUrl: string
  rate: number
  durationS: number
  warmupS?: number
  request: (index: number) => OpenLoopRequest
  maxSockets?: number
  timeoutMs?: number
}): Promise<OpenLoopResult> {
  const base = new URL(options.baseUrl)
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.maxSockets ?? 256 })
  const warmup = options.warmupS ?? 2
  const total = Math.round(options.rate * (warmup + options.durationS))
  const counted = Math.round(options.rate * warmup)
  const latencies: number[] = []
  const service: number[] = []
  const statuses: Record<string, number> = {}
  let errors = 0
  let completed = 0
  let firstCounted = 0
  let lastDone = 0
  const inFlight = new Set<Promise<void>>()

  const send = (index: number, due: number) => {
    const { path, headers } = options.request(index)
    const sentAt = performance.now()
    const done = new Promise<void>((resolve) => {
      const req = http.request(
        {
          host: base.hostname,
          port: base.port,
          path,
          method: 'GET',
          headers,
          agent,
          timeout: options.timeoutMs ?? 30_000,
        },
        (res) => {
          res.on('data', () => {})
          res.on('end', () => {
            const end = performance.now()
            if (index >= counted) {
              latencies.push(end - due)
              service.push(end - sentAt)
              const key = String(res.statusCode)
              statuses[key] = (statuses[key] ?? 0) + 1
              completed++
              lastDone = end
            }
            resolve()
          })
        },
      )
      req.on('timeout', () => req.destroy(new Error('timeout')))
      req.on('error', () => {
        if (index >= counted) errors++
        resolve()
      })
      req.end()
    })
    inFlight.add(done)
    void done.then(() => inFlight.delete(done))
  }

  const start = performance.now()
  const interval = 1000 / options.rate
  let next = 0
  while (next < total) {
    const now = performance.now()
    while (next < total && start + next * interval <= now) {
      const due = start + next * interval
      if (next === counted) firstCounted = due
      send(next, due)
      next++
    }
    await sleep(1)
  }
  await Promise.all([...inFlight])
  agent.destroy()

  const measured = total - counted
  return {
    targetRate: options.rate,
    achievedRate: Math.round(completed / ((lastDone - firstCounted) / 1000 || 1)),
    sent: measured,
    completed,
    errors,
    statuses,
    latencyMs: {
      p50: round1(percentile(latencies, 50)),
      p90: round1(percentile(latencies, 90)),
      p99: round1(percentile(latencies, 99)),
      max: round1(Math.max(0, ...latencies)),
    },
    serviceMs: { p50: round1(percentile(service, 50)), p99: round1(percentile(service, 99)) },
  }
}

const round1 = (value: number) => Math.round(value * 10) / 10
