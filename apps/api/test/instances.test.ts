import fs from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort, type ServerProcess, startServerProcess } from './helpers/server-process'
import { createScratchPostgres } from './helpers/test-app'

/**
 * Several real server processes on one PostgreSQL database, as a deployment runs them: started all at
 * once on an empty database (an autoscaler, a first deploy), and restarted one after the other behind
 * a load balancer while traffic flows (a rolling deploy).
 */
const onPostgres = process.env.TEST_DB === 'postgres'
const JWT_SECRET = 'instances-test-secret-'.padEnd(48, 'x')

describe.skipIf(!onPostgres)('many instances on one PostgreSQL database', () => {
  let scratch: { url: string; drop(): Promise<void> }
  let dataRoot: string
  const running: ServerProcess[] = []

  beforeAll(async () => {
    scratch = await createScratchPostgres()
    dataRoot = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-instances-'))
  })
  afterAll(async () => {
    for (const server of running) await server.kill()
    await scratch?.drop()
    await fs.rm(dataRoot, { recursive: true, force: true })
  })

  const envFor = async (name: string) => {
    const dataDir = path.join(dataRoot, name)
    await fs.mkdir(dataDir, { recursive: true })
    return { DATABASE_URL: scratch.url, DATA_DIR: dataDir, JWT_SECRET, JOBS_POLL_SECONDS: '1' }
  }

  it('four instances started at the same moment on an empty database all become ready', async () => {
    const envs = await Promise.all(['a', 'b', 'c', 'd'].map(envFor))
    const started = await Promise.allSettled(envs.map((env) => startServerProcess(env)))
    for (const outcome of started) if (outcome.status === 'fulfilled') running.push(outcome.value)
    const failures = started.flatMap((outcome) =>
      outcome.status === 'rejected' ? [String(outcome.reason).slice(0, 2000)] : [],
    )
    expect(failures).toEqual([])
    for (const server of running) {
      const ready = await fetch(`${server.origin}/readyz`)
      expect(ready.status).toBe(200)
    }
    // One of them did the work; the others waited for it and found it done.
    const output = running.map((server) => server.output()).join('\n')
    expect(output).not.toContain('deadlock')
    const plans = await (await fetch(`${running[0]!.origin}/discord/api/subscriptions/plans`)).json()
    expect((plans as { data: unknown[] }).data).toHaveLength(4)
    for (const server of running.splice(0)) await server.kill()
  }, 180_000)

  it('a rolling restart of two instances behind a proxy under steady traffic loses no request', async () => {
    const envA = await envFor('rolling-a')
    const envB = await envFor('rolling-b')
    let a = await startServerProcess(envA)
    let b = await startServerProcess(envB)
    running.push(a, b)
    const backends = [a.origin, b.origin]
    const proxy = await startRetryingProxy(backends)

    const outcomes: { status: number; retryAfter: string | null; path: string }[] = []
    let lost = 0
    const lostReasons: string[] = []
    let stop = false
    const paths = [
      '/discord/api/subscriptions/plans',
      '/discord/api/config',
      '/discord/api/record',
      '/readyz',
      '/',
    ]
    const client = async (index: number) => {
      for (let n = 0; !stop; n++) {
        const target = paths[(index + n) % paths.length]!
        try {
          const response = await fetch(`${proxy.origin}${target}`)
          if (response.headers.get('x-proxy') === 'undelivered') {
            lost++
            lostReasons.push(await response.text())
            continue
          }
          await response.arrayBuffer()
          outcomes.push({
            status: response.status,
            retryAfter: response.headers.get('retry-after'),
            path: target,
          })
        } catch (error) {
          lost++
          lostReasons.push(`client: ${String((error as Error).cause ?? error)}`)
        }
        await new Promise((resolve) => setTimeout(resolve, 20))
      }
    }
    const clients = Promise.all([0, 1, 2, 3].map(client))
    try {
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      // Restart A, then B, each on its own port again, as a deploy replaces instances one by one.
      a.child.kill('SIGTERM')
      expect(await a.exited).toBe(0)
      a = await startServerProcess(envA, { port: Number(new URL(a.origin).port) })
      running.push(a)
      b.child.kill('SIGTERM')
      expect(await b.exited).toBe(0)
      b = await startServerProcess(envB, { port: Number(new URL(b.origin).port) })
      running.push(b)
      await new Promise((resolve) => setTimeout(resolve, 1_000))
    } finally {
      stop = true
      await clients
      await proxy.close()
    }

    expect({ lost, reasons: [...new Set(lostReasons)].slice(0, 5) }).toEqual({ lost: 0, reasons: [] })
    const refusedWithoutRetryAfter = outcomes.filter(
      (outcome) => outcome.status >= 300 && !(outcome.status === 503 && outcome.retryAfter),
    )
    expect(refusedWithoutRetryAfter).toEqual([])
    expect(outcomes.length).toBeGreaterThan(100)
    // Both replaced instances took traffic once back.
    expect(proxy.servedBy(a.origin)).toBeGreaterThan(0)
    expect(proxy.servedBy(b.origin)).toBeGreaterThan(0)
  }, 240_000)
})

/**
 * A small load balancer: round robin over the backends, keeping connections alive to them. A request
 * that could not be delivered (connection refused or reset before any answer, as when an instance
 * stops or is not listening yet) goes to the next backend, as a load balancer's retry on connection
 * errors does; one no backend took is answered 502 and counts as lost.
 */
async function startRetryingProxy(backends: string[]) {
  const agent = new http.Agent({ keepAlive: true, maxSockets: 16 })
  const served = new Map<string, number>()
  let next = 0
  const forward = (
    request: http.IncomingMessage,
    backend: string,
  ): Promise<{ status: number; headers: http.IncomingHttpHeaders; body: Buffer }> =>
    new Promise((resolve, reject) => {
      const target = new URL(request.url ?? '/', backend)
      const outgoing = http.request(
        target,
        { method: request.method, headers: { ...request.headers, host: target.host }, agent },
        (response) => {
          const chunks: Buffer[] = []
          response.on('data', (chunk: Buffer) => chunks.push(chunk))
          response.on('end', () =>
            resolve({
              status: response.statusCode ?? 0,
              headers: response.headers,
              body: Buffer.concat(chunks),
            }),
          )
          response.on('error', reject)
        },
      )
      outgoing.on('error', reject)
      outgoing.end()
    })
  const server = http.createServer(async (request, response) => {
    let lastError = ''
    for (let attempt = 0; attempt < 20; attempt++) {
      const backend = backends[next++ % backends.length]!
      try {
        const answer = await forward(request, backend)
        served.set(backend, (served.get(backend) ?? 0) + 1)
        const headers = { ...answer.headers }
        delete headers.connection
        delete headers['keep-alive']
        delete headers['transfer-encoding']
        response.writeHead(answer.status, headers).end(answer.body)
        return
      } catch (error) {
        lastError = `${(error as NodeJS.ErrnoException).code ?? ''} ${(error as Error).message}`
        // Not delivered: the next backend, after a pause once every backend has been tried.
        if (attempt % backends.length === backends.length - 1)
          await new Promise((resolve) => setTimeout(resolve, 100))
      }
    }
    response.writeHead(502, { 'x-proxy': 'undelivered' }).end(`no backend took the request: ${lastError}`)
  })
  const port = await freePort()
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
  return {
    origin: `http://127.0.0.1:${port}`,
    servedBy: (backend: string) => served.get(backend) ?? 0,
    close: async () => {
      agent.destroy()
      server.closeAllConnections()
      await new Promise<void>((resolve) => server.close(() => resolve()))
    },
  }
}
