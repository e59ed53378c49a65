import { createHash, timingSafeEqual } from 'node:crypto'
import http from 'node:http'
import type { FastifyInstance } from 'fastify'
import fp from 'fastify-plugin'
import type { Config } from '../config'
import type { Database } from '../db/database'
import type { Metrics } from '../lib/metrics'
import type { Jobs } from '../queue/job-runner'

declare module 'fastify' {
  interface FastifyInstance {
    /** The instance's metrics, or null when none are exposed (METRICS_TOKEN and METRICS_PORT unset). */
    metrics: Metrics | null
  }
}

/**
 * GET /metrics in Prometheus's text format: on the app's port behind `Authorization: Bearer
 * <METRICS_TOKEN>`, and/or on a listener of its own (METRICS_PORT, on METRICS_HOST or HOST) for
 * networks that keep that port private; the token is asked there too when it is set. Nothing is
 * collected, and prom-client is not even loaded, when neither is configured.
 */

function sameSecret(given: string, expected: string): boolean {
  const digest = (text: string) => createHash('sha256').update(text).digest()
  return timingSafeEqual(digest(given), digest(expected))
}

function authorized(header: string | undefined, token: string | undefined): boolean {
  if (!token) return true
  const match = /^Bearer\s+(.+)$/i.exec(header ?? '')
  return Boolean(match?.[1] && sameSecret(match[1].trim(), token))
}

const UNAUTHORIZED = JSON.stringify({
  success: false,
  message: 'The metrics need the Bearer token set in METRICS_TOKEN',
  error: 'UNAUTHORIZED',
})

export const metricsPlugin = fp<{ config: Config; database: Database; liveStreams: () => number }>(
  async (app: FastifyInstance, { config, database, liveStreams }) => {
    const { token, listener } = config.metrics
    if (!token && !listener) {
      app.decorate('metrics', null)
      return
    }
    const { createMetrics } = await import('../lib/metrics')
    const metrics = createMetrics({ database, liveStreams })
    app.decorate('metrics', metrics)

    // The hot lane's answers never reach Fastify's hooks: it observes them itself (lib/hot-lane.ts).
    app.hotLane.observe(metrics.observeRequest)
    app.addHook('onResponse', (request, reply, done) => {
      // The route's pattern, never the URL: an unknown path must not become a series of its own.
      metrics.observeRequest(
        request.method,
        request.routeOptions.url ?? 'unmatched',
        reply.statusCode,
        reply.elapsedTime / 1000,
      )
      done()
    })

    if (token) {
      app.get('/metrics', { schema: { hide: true } }, async (request, reply) => {
        if (!authorized(request.headers.authorization, token))
          return reply
            .status(401)
            .header('www-authenticate', 'Bearer')
            .type('application/json; charset=utf-8')
            .send(UNAUTHORIZED)
        const { contentType, body } = await metrics.render()
        return reply.type(contentType).header('cache-control', 'no-store').send(body)
      })
    }

    if (listener) {
      const server = http.createServer((request, response) => {
        const path = (request.url ?? '').split('?')[0]
        if (request.method !== 'GET' || path !== '/metrics') {
          response.writeHead(404, { 'content-type': 'text/plain' }).end('Not found: GET /metrics\n')
          return
        }
        if (!authorized(request.headers.authorization, token)) {
          response
            .writeHead(401, {
              'content-type': 'application/json; charset=utf-8',
              'www-authenticate': 'Bearer',
            })
            .end(UNAUTHORIZED)
          return
        }
        metrics.render().then(
          ({ contentType, body }) =>
            response.writeHead(200, { 'content-type': contentType, 'cache-control': 'no-store' }).end(body),
          () => response.writeHead(500, { 'content-type': 'text/plain' }).end('metrics failed\n'),
        )
      })
      await new Promise<void>((resolve, reject) => {
        server.once('error', reject)
        server.listen(listener.port, listener.host, () => {
          server.off('error', reject)
          resolve()
        })
      })
      app.log.info({ host: listener.host, port: listener.port }, 'metrics listener ready')
      app.addHook('onClose', async () => {
        server.closeAllConnections()
        await new Promise<void>((resolve) => server.close(() => resolve()))
      })
    }
  },
  { name: 'edgeclub-metrics' },
)

/**
 * The job runner with every attempt of every worker counted, when metrics are on; the runner itself
 * stays unaware of them.
 */
export function countJobAttempts(jobs: Jobs, metrics: Metrics | null): Jobs {
  if (!metrics) return jobs
  return {
    ...jobs,
    work: (queue, handler) =>
      jobs.work(queue, async (data, job) => {
        try {
          await handler(data, job)
        } catch (error) {
          metrics.jobAttempt(queue, 'failed')
          throw error
        }
        metrics.jobAttempt(queue, 'completed')
      }),
  }
}
