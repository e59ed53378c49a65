import { spawnSync } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { newMember } from './helpers/members'
import { type ServerProcess, startServerProcess } from './helpers/server-process'
import { createScratchPostgres } from './helpers/test-app'

/**
 * `npm run backup -- <file>` and `npm run restore -- <file>` as an operator types them, around the
 * real server: a populated database is backed up while the server runs, changed afterwards, and
 * restored; the members, the payments and the signal ledger's head are those of the backup. On the
 * embedded database (the default) the running server takes the backup itself; on PostgreSQL
 * (TEST_DB=postgres) pg_dump does, and the backup goes into a new, empty database.
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')
const onPostgres = process.env.TEST_DB === 'postgres'
const API = '/discord/api'
const ADMIN = { email: 'backup-admin@example.com', password: 'Backup$Admin2026' }

/** An operator command through npm, with the server's settings; resolves with its exit code and output. */
function operator(command: 'backup' | 'restore', args: string[], env: Record<string, string>) {
  const childEnv: NodeJS.ProcessEnv = { ...process.env, ...env }
  if (!env.DATABASE_URL) delete childEnv.DATABASE_URL
  const result = spawnSync('npm', ['run', '--silent', command, '--', ...args], {
    cwd: root,
    env: childEnv,
    encoding: 'utf8',
    timeout: 120_000,
  })
  return { status: result.status, output: `${result.stdout}${result.stderr}` }
}

describe(`backup and restore (${onPostgres ? 'PostgreSQL' : 'embedded database'})`, () => {
  let work: string
  let server: ServerProcess | undefined
  const drops: (() => Promise<void>)[] = []
  let env: Record<string, string>
  let restoredEnv: Record<string, string>

  beforeAll(async () => {
    work = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-backup-'))
    const base = {
      DATA_DIR: path.join(work, 'data'),
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      JWT_SECRET: 'backup-test-secret-'.padEnd(48, 'x'),
    }
    if (onPostgres) {
      const original = await createScratchPostgres()
      const target = await createScratchPostgres()
      drops.push(original.drop, target.drop)
      env = { ...base, DATABASE_URL: original.url }
      restoredEnv = { ...base, DATABASE_URL: target.url }
    } else {
      env = base
      restoredEnv = base
    }
  })
  afterAll(async () => {
    await server?.kill()
    for (const drop of drops) await drop()
    await fs.rm(work, { recursive: true, force: true })
  })

  async function call(method: 'GET' | 'POST', url: string, token?: string, body?: unknown) {
    const response = await fetch(`${server!.origin}${API}${url}`, {
      method,
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    // biome-ignore lint/suspicious/noExplicitAny: the test reads several response shapes, each checked by its assertions
    const json = (await response.json()) as { data: any }
    if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${JSON.stringify(json)}`)
    return json.data
  }

  const adminToken = async () =>
    (await call('POST', '/auth/login', undefined, { ...ADMIN, rememberMe: false })).tokens
      .accessToken as string

  /** Members with access granted (a payment each) and published signals (ledger entries). */
  async function populate(token: string, members: number) {
    for (let index = 0; index < members; index++) {
      const { user } = await call('POST', '/auth/register', undefined, newMember())
      await call('POST', `/admin/users/${user.id}/grant`, token, { days: 30, note: `backup test ${index}` })
    }
    const soon = new Date(Date.now() + 60 * 60_000).toISOString()
    const signal = await call('POST', '/signals', token, {
      kind: 'pick',
      sport: 'NFL',
      league: 'Week 12',
      event: `Chiefs vs Bills ${members}`,
      startsAt: soon,
      market: 'spread',
      selection: 'Chiefs -3.5',
      odds: 1.91,
      stake: 1,
      analysis: 'Chiefs cover at home.',
    })
    await call('POST', `/signals/${signal.id}/void`, token, { reason: 'Line moved before the start' })
  }

  /** What must survive: every member, every payment, the ledger's head (and its entries' hashes). */
  async function state(token: string) {
    const users = await call('GET', '/admin/users?limit=100', token)
    const payments = await call('GET', '/admin/payments?limit=100', token)
    const record = await call('GET', '/record')
    const ledger = await call('GET', '/record/ledger?limit=500')
    return {
      members: (users.items as { id: string; email: string; role: string }[])
        .map(({ id, email, role }) => ({ id, email, role }))
        .sort((a, b) => a.id.localeCompare(b.id)),
      payments: (payments.items as { id: string; amount: number; status: string; kind?: string }[])
        .map(({ id, amount, status }) => ({ id, amount, status }))
        .sort((a, b) => a.id.localeCompare(b.id)),
      head: record.head,
      hashes: (ledger.entries as { seq: number; hash: string }[]).map(({ seq, hash }) => `${seq}:${hash}`),
    }
  }

  it('round-trips a populated database: members, payments and the ledger head are those of the backup', async () => {
    server = await startServerProcess(env)
    let token = await adminToken()
    await populate(token, 3)
    const before = await state(token)
    expect(before.members.length).toBe(4)
    expect(before.payments.length).toBe(3)
    expect(before.head).toMatchObject({
      seq: expect.any(Number),
      hash: expect.stringMatching(/^[0-9a-f]{64}$/),
    })

    // While the server runs and serves.
    const file = path.join(work, 'edgeclub.backup')
    const backup = operator('backup', [file], env)
    expect(backup.status, backup.output).toBe(0)
    expect(backup.output).toContain(onPostgres ? 'pg_dump' : 'taken by the running server')

    // Changes after the backup are what the restore takes away.
    await populate(token, 1)
    const after = await state(token)
    expect(after.members.length).toBe(5)
    expect(after.head.hash).not.toBe(before.head.hash)

    if (!onPostgres) {
      // The embedded database is not replaced under a running server; nothing changes.
      const refused = operator('restore', [file], env)
      expect(refused.status).toBe(1)
      expect(refused.output).toContain('stop the server')
      expect((await state(token)).head).toEqual(after.head)
    }

    server.child.kill('SIGTERM')
    expect(await server.exited).toBe(0)
    server = undefined

    const restore = operator('restore', [file], restoredEnv)
    expect(restore.status, restore.output).toBe(0)
    server = await startServerProcess(restoredEnv)
    token = await adminToken()
    expect(await state(token)).toEqual(before)
  }, 240_000)

  it('refuses what is not a backup, or a restore over data, and changes nothing', async () => {
    const junk = path.join(work, 'junk.backup')
    await fs.writeFile(junk, 'not a backup at all')
    const refused = operator('restore', [junk], restoredEnv)
    expect(refused.status).toBe(1)
    expect(refused.output).toContain('is not an EdgeClub backup')
    const usage = operator('restore', [], restoredEnv)
    expect(usage.status).toBe(2)

    if (onPostgres) {
      // The restored database holds EdgeClub now: a second restore must be asked for with --replace.
      const again = operator('restore', [path.join(work, 'edgeclub.backup')], restoredEnv)
      expect(again.status).toBe(1)
      expect(again.output).toContain('--replace')
    }
    const token = await adminToken()
    expect((await call('GET', '/admin/users?limit=100', token)).items.length).toBe(4)
  }, 120_000)
})
