import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { accessTokenOf, crashHarness, jobsLeft, pushAudience } from './helpers/crash-harness'
import { type ServerProcess, startServerProcess } from './helpers/server-process'

/**
 * Two server processes on one PostgreSQL database share a pick's notifications: its batches are
 * keyed jobs, each taken by one instance, and every subscription is notified once.
 */
const onPostgres = process.env.TEST_DB === 'postgres'
const SUBSCRIBERS = 3000
const METRICS_TOKEN = 'push-instances-metrics-token'
const ADMIN = { email: 'push-instances-admin@edgeclub.test', password: 'Instances$Admin2026-push' }

/** push.send batches this instance finished (its Prometheus counter). */
async function batchesDone(server: ServerProcess): Promise<number> {
  const response = await fetch(`${server.origin}/metrics`, {
    headers: { authorization: `Bearer ${METRICS_TOKEN}` },
  })
  const text = await response.text()
  const line = text
    .split('\n')
    .find(
      (row) =>
        row.startsWith('edgeclub_job_attempts_total{') &&
        row.includes('queue="push.send"') &&
        row.includes('outcome="completed"'),
    )
  return line ? Number(line.split(' ').at(-1)) : 0
}

describe.skipIf(!onPostgres)('two instances sending one pick’s notifications', () => {
  const h = crashHarness('push-instances', (emulator) => ({
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    PUSH_SERVICE_ORIGINS: emulator.url,
    METRICS_TOKEN,
  }))

  it('share its batches, and every member holds the notification once', async () => {
    const { emulator, db, env } = h
    const secondDataDir = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-push-instances-b-'))
    const servers: ServerProcess[] = []
    try {
      servers.push(await startServerProcess(env))
      servers.push(await startServerProcess({ ...env, DATA_DIR: secondDataDir }))
      await pushAudience(h, {
        count: SUBSCRIBERS,
        tag: 'pair',
        kinds: ['picks'],
      })
      // A push service slow enough that neither instance is done before the other starts.
      emulator.push.setLatency(20)
      const token = await accessTokenOf(servers[0]!.origin, ADMIN)
      const published = await fetch(`${servers[0]!.origin}/discord/api/signals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          kind: 'pick',
          sport: 'NHL',
          league: 'Regular season',
          event: 'Bruins vs Rangers',
          startsAt: new Date(Date.now() + 3_600_000).toISOString(),
          market: 'moneyline',
          selection: 'Bruins',
          odds: 2.05,
          stake: 1,
        }),
      })
      expect(published.status).toBe(201)

      await eventually(
        async () => ({
          notified: new Set(emulator.push.messages().map((push) => push.subscriptionId)).size,
          pending: await jobsLeft(db, ['push.fanout', 'push.send']),
        }),
        (state) => state.notified === SUBSCRIBERS && state.pending === 0,
        120_000,
      )
      const perInstance = await Promise.all(servers.map(batchesDone))
      console.info(`push.send batches finished per instance: ${perInstance.join(' and ')}`)
      // One notification per subscription, none sent twice.
      expect(emulator.push.counts()).toMatchObject({ accepted: SUBSCRIBERS, replaced: 0 })
      expect(emulator.push.messages()).toHaveLength(SUBSCRIBERS)
      // 250 subscriptions a batch: both instances took some.
      expect(perInstance.reduce((sum, count) => sum + count, 0)).toBe(SUBSCRIBERS / 250)
      expect(Math.min(...perInstance)).toBeGreaterThan(0)
      for (const server of servers) expect(server.output()).not.toMatch(/"level":(50|60)/)
    } finally {
      emulator.push.setLatency(0)
      for (const server of servers) await server.kill()
      await fs.rm(secondDataDir, { recursive: true, force: true })
    }
  }, 300_000)
})
