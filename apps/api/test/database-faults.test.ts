import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newMember } from './helpers/members'
import { type ServerProcess, startServerProcess } from './helpers/server-process'
import { startTcpProxy, type TcpProxy } from './helpers/tcp-proxy'
import { createScratchPostgres } from './helpers/test-app'

/**
 * The database going away under traffic, against the real server process on PostgreSQL (the
 * embedded database has no network to lose): the process never dies, requests that need the
 * database answer 503 quickly, and service comes back by itself.
 */
const onPostgres = process.env.TEST_DB === 'postgres'

async function registerVia(origin: string): Promise<string> {
  const response = await fetch(`${origin}/discord/api/auth/register`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify(newMember()),
  })
  expect(response.status).toBe(201)
  return ((await response.json()) as { data: { tokens: { accessToken: string } } }).data.tokens.accessToken
}

const profile = (origin: string, token: string) =>
  fetch(`${origin}/discord/api/auth/profile`, { headers: { authorization: `Bearer ${token}` } })

async function timed<T>(work: () => Promise<T>): Promise<{ value: T; ms: number }> {
  const started = performance.now()
  const value = await work()
  return { value, ms: performance.now() - started }
}

describe.skipIf(!onPostgres)('the database goes away', () => {
  let scratch: { url: string; drop(): Promise<void> }
  let dataDir: string
  beforeAll(async () => {
    scratch = await createScratchPostgres()
    dataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-faults-'))
  })
  afterAll(async () => {
    await scratch?.drop()
    await fs.rm(dataDir, { recursive: true, force: true })
  })

  it('keeps serving when PostgreSQL terminates its connections under concurrent requests', async () => {
    const server: ServerProcess = await startServerProcess({ DATABASE_URL: scratch.url, DATA_DIR: dataDir })
    const admin = new pg.Client({ connectionString: scratch.url })
    await admin.connect()
    try {
      const token = await registerVia(server.origin)
      const statuses: number[] = []
      let running = true
      const reader = async () => {
        while (running) {
          const response = await profile(server.origin, token).catch(() => undefined)
          statuses.push(response?.status ?? 0)
          await new Promise((resolve) => setTimeout(resolve, 100))
        }
      }
      const readers = Array.from({ length: 10 }, reader)
      // Every backend of the app's database, the job queue's included, is killed four times.
      for (let round = 0; round < 4; round++) {
        await new Promise((resolve) => setTimeout(resolve, 600))
        const killed = await admin.query(
          `select pg_terminate_backend(pid) from pg_stat_activity
           where datname = current_database() and pid <> pg_backend_pid()`,
        )
        expect(killed.rowCount).toBeGreaterThan(0)
      }
      running = false
      await Promise.all(readers)

      expect(server.alive(), server.output().slice(-2000)).toBe(true)
      // Some reads met a dead connection: they were told to come back (503), never a 500 or a reset.
      expect(statuses.filter((status) => status !== 200 && status !== 503)).toEqual([])
      expect(statuses.filter((status) => status === 200).length).toBeGreaterThan(0)
      await expect
        .poll(async () => (await profile(server.origin, token)).status, { timeout: 10_000 })
        .toBe(200)
      expect((await fetch(`${server.origin}/readyz`)).status).toBe(200)
    } finally {
      await admin.end()
      await server.kill()
    }
  }, 180_000)

  it('answers 503 within 5 seconds while the network to PostgreSQL is cut, and recovers by itself', async () => {
    const target = new URL(scratch.url)
    const proxy: TcpProxy = await startTcpProxy({ host: target.hostname, port: Number(target.port || 5432) })
    const viaProxy = new URL(scratch.url)
    viaProxy.port = String(proxy.port)
    const server = await startServerProcess({ DATABASE_URL: viaProxy.toString(), DATA_DIR: dataDir })
    try {
      const token = await registerVia(server.origin)
      expect((await profile(server.origin, token)).status).toBe(200)

      proxy.partition()
      const read = await timed(() => profile(server.origin, token))
      expect(read.value.status).toBe(503)
      expect(read.value.headers.get('retry-after')).toBe('5')
      expect(await read.value.json()).toMatchObject({ success: false, error: 'UPSTREAM_ERROR' })
      expect(read.ms).toBeLessThan(5_000)

      const signIn = await timed(() =>
        fetch(`${server.origin}/discord/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ email: 'nobody@example.com', password: 'Whatever$123' }),
        }),
      )
      expect(signIn.value.status).toBe(503)
      expect(signIn.ms).toBeLessThan(5_000)

      const ready = await timed(() => fetch(`${server.origin}/readyz`))
      expect(ready.value.status).toBe(503)
      expect(ready.ms).toBeLessThan(2_000)
      // The process itself is fine, and says so.
      expect((await fetch(`${server.origin}/healthz`)).status).toBe(200)

      proxy.heal()
      const healed = performance.now()
      await expect
        .poll(async () => (await profile(server.origin, token)).status, { timeout: 10_000, interval: 250 })
        .toBe(200)
      expect(performance.now() - healed).toBeLessThan(10_000)
      expect((await fetch(`${server.origin}/readyz`)).status).toBe(200)
      expect(server.alive()).toBe(true)
    } finally {
      await server.kill()
      await proxy.close()
    }
  }, 180_000)
})
