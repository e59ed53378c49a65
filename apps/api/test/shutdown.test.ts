import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import http from 'node:http'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createScratchPostgres } from './helpers/test-app'

/**
 * The real server process (`npm start`'s entry point) and what an operator's SIGTERM does to it:
 * requests already in flight are answered, new connections are refused, the process exits 0.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

async function waitUntilReady(origin: string, server: ChildProcess, output: () => string) {
  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    if (server.exitCode !== null) throw new Error(`the server exited early:\n${output()}`)
    const ready = await fetch(`${origin}/readyz`).then(
      (response) => response.ok,
      () => false,
    )
    if (ready) return
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  throw new Error(`the server never became ready:\n${output()}`)
}

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
    const port = await freePort()
    const origin = `http://127.0.0.1:${port}`
    const server = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/server.ts'], {
      cwd: root,
      env: {
        PATH: process.env.PATH,
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: dataDir,
        PRICE_FEED_URL: 'http://127.0.0.1:9/unreachable',
        LOG_LEVEL: 'info',
        ...(databaseUrl ? { DATABASE_URL: databaseUrl } : {}),
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    })
    let output = ''
    server.stdout?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    server.stderr?.on('data', (chunk: Buffer) => {
      output += chunk.toString()
    })
    const exited = new Promise<number | null>((resolve) => server.once('exit', (code) => resolve(code)))

    try {
      await waitUntilReady(origin, server, () => output)

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
      // Let the server receive the headers before it is told to stop.
      await new Promise((resolve) => setTimeout(resolve, 300))
      server.kill('SIGTERM')
      await expect.poll(() => output, { timeout: 10_000 }).toContain('shutting down')

      // A new visitor is turned away while the old request is still open.
      await expect(fetch(`${origin}/healthz`)).rejects.toThrow()

      inFlight.finish()
      const answered = await inFlight.response
      expect(answered.status).toBe(201)
      expect(JSON.parse(answered.body)).toMatchObject({ success: true })

      expect(await exited).toBe(0)
    } finally {
      if (server.exitCode === null) server.kill('SIGKILL')
    }
  }, 120_000)
})
