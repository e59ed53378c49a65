import fs from 'node:fs/promises'
import http from 'node:http'
import os from 'node:os'
import path from 'node:path'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { startServerProcess } from './helpers/server-process'
import { createScratchPostgres } from './helpers/test-app'

/**
 * The real server process (`npm start`'s entry point) and what an operator's SIGTERM does to it:
 * requests already in flight are answered, new connections are refused, the process exits 0.
 */

/** A POST whose headers are sent now and whose body is finished later, by `finish`. */
function startSlowPost(origin: string, urlPath: string, body: string) {
  const url = new URL(urlPath, origin)
  const request = http.request({
    host: url.hostname,
    port: url.port,
    path: url.pathname,
    method: 'POST',
    headers: { 'content-type': 'application/json', 'content-length': Buffer.byteLength(body) },
  })
  const response = new Promise<{ status: number; body: string }>((resolve, reject) => {
    request.once('error', reject)
    request.once('response', (res) => {
      let text = ''
      res.setEncoding('utf8')
      res.on('data', (chunk: string) => {
        text += chunk
      })
      res.on('end', () => resolve({ status: res.statusCode ?? 0, body: text }))
    })
  })
  const half = Math.floor(body.length / 2)
  request.write(body.slice(0, half))
  return {
    finish: () => request.end(body.slice(half)),
    response,
  }
}

describe('graceful shutdown', () => {
  let dataDir: string
  let databaseUrl: string | undefined
  let dropDatabase = async () => {}

  beforeAll(async () => {
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-shutdown-'))
    if (process.env.TEST_DB === 'postgres') {
      const scratch = await createScratchPostgres()
      databaseUrl = scratch.url
      dropDatabase = scratch.drop
    }
  })

  afterAll(async () => {
    await dropDatabase()
    await fs.rm(dataDir, { recursive: true, force: true })
  })

  it('on SIGTERM answers the request in flight, refuses new connections and exits 0', async () => {
    const server = await startServerProcess({
      DATA_DIR: dataDir,
      ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
    })
    const { origin } = server
    try {
      const inFlight = startSlowPost(
        origin,
        '/discord/api/contact',
        JSON.stringify({
          name: 'Ann Punter',
          email: 'ann@example.com',
          subject: 'billing',
          message: 'Sent while the server was stopping.',
        }),
      )
      // The server has received the headers (it logged the request) before it is told to stop.
      await expect.poll(() => server.output(), { timeout: 10_000 }).toContain('/discord/api/contact')
      server.child.kill('SIGTERM')
      await expect.poll(() => server.output(), { timeout: 10_000 }).toContain('shutting down')

      // A new visitor is turned away while the old request is still open.
      await expect(fetch(`${origin}/healthz`)).rejects.toThrow()

      inFlight.finish()
      const answered = await inFlight.response
      expect(answered.status, answered.body).toBe(201)
      expect(JSON.parse(answered.body)).toMatchObject({ success: true })

      expect(await server.exited).toBe(0)
    } finally {
      await server.kill()
    }
  }, 120_000)
})
