import type { PushPayload } from '@edgeclub/shared'
import { describe, expect, it } from 'vitest'
import { PUSH_SENDS_IN_FLIGHT } from '../src/modules/push/push-service'
import { eventually } from './helpers/billing'
import { accessTokenOf, crashHarness, jobsLeft, pushAudience } from './helpers/crash-harness'
import { freePort, startServerProcess } from './helpers/server-process'

/**
 * The process is killed (SIGKILL) while a pick's notifications go out to 1,000 subscribed members,
 * and started again. Every member is notified; the sends cut off mid-flight are sent again under the
 * same topic, which the push service uses to replace the undelivered copy (RFC 8030 §5.4), so each
 * subscription holds exactly one notification of the pick.
 */
const onPostgres = process.env.TEST_DB === 'postgres'
const SUBSCRIBERS = 1000
/** Sends in flight per instance (PUSH_SENDS_IN_FLIGHT): the most a killed process can leave cut off. */
const IN_FLIGHT = PUSH_SENDS_IN_FLIGHT
const ADMIN = { email: 'push-crash-admin@edgeclub.test', password: 'Crash$Admin2026-push' }

describe.skipIf(!onPostgres)('a crash in the middle of a pick’s notifications', () => {
  const h = crashHarness('push-crash', (emulator) => ({
    ADMIN_EMAIL: ADMIN.email,
    ADMIN_PASSWORD: ADMIN.password,
    PUSH_SERVICE_ORIGINS: emulator.url,
  }))

  it('killed mid-delivery and started again: every member holds the pick’s notification once', async () => {
    const { emulator, db, env } = h
    const port = await freePort()
    let server = await startServerProcess(env, { port })
    try {
      // 1,000 members with a month of access, each with notifications on in one browser.
      const { subscriber, devices } = await pushAudience(h, {
        count: SUBSCRIBERS,
        tag: 'fan',
        kinds: ['picks', 'signals', 'results'],
      })

      const token = await accessTokenOf(server.origin, ADMIN)
      // A push service slow enough that the kill lands while sends are in flight.
      emulator.push.setLatency(50)
      const published = await fetch(`${server.origin}/discord/api/signals`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({
          kind: 'pick',
          sport: 'NBA',
          league: 'Regular season',
          event: 'Celtics vs Knicks',
          startsAt: new Date(Date.now() + 3_600_000).toISOString(),
          market: 'moneyline',
          selection: 'Celtics',
          odds: 1.8,
          stake: 1,
        }),
      })
      expect(published.status).toBe(201)
      const pick = ((await published.json()) as { data: { id: string; commitment: string } }).data

      // Killed while the sends go out, a good way in.
      await eventually(
        async () => emulator.push.counts().accepted,
        (accepted) => accepted >= SUBSCRIBERS / 3,
        120_000,
      )
      await server.kill()
      const atKill = emulator.push.counts().accepted
      expect(atKill).toBeLessThan(SUBSCRIBERS)
      emulator.push.setLatency(0)

      server = await startServerProcess(env, { port })
      // Every subscription, and then nothing left in the queue: the jobs the dead process held come
      // back once their time is up (a minute, found within 20 s).
      await eventually(
        async () => ({
          notified: new Set(emulator.push.messages().map((push) => push.subscriptionId)).size,
          pending: await jobsLeft(db, ['push.fanout', 'push.send']),
        }),
        (state) => state.notified === SUBSCRIBERS && state.pending === 0,
        240_000,
      ).catch(async (error: unknown) => {
        // What became of the jobs of the members left without it.
        const notified = new Set(emulator.push.messages().map((push) => push.subscriptionId))
        const missing = devices.filter((device) => !notified.has(device.id)).map((device) => device.endpoint)
        const { rows } = await db.query(
          `select s.id, j.data->>'key' as batch, j.state, j.retry_count, j.output,
             e.key is not null as delivered
           from push_subscriptions s
           left join pgboss.job j on j.name = 'push.send'
             and j.data->'body'->'subscriptionIds' ? s.id::text
           left join job_effects e on e.key = 'push.send:push:' || (j.data->'body'->>'seq') || ':' || s.id
           where s.endpoint = any($1::text[])`,
          [missing],
        )
        console.info(JSON.stringify({ counts: emulator.push.counts(), missing: rows }, null, 1))
        console.info(server.output().slice(-4000))
        throw error
      })
      await new Promise((resolve) => setTimeout(resolve, 2_000))

      const counts = emulator.push.counts()
      const kept = emulator.push.messages()
      console.info(
        `killed after ${atKill} of ${SUBSCRIBERS}: ${counts.accepted} pushes accepted, ${counts.replaced} replaced an undelivered copy (same topic)`,
      )
      // One notification per subscription, and no more sends than the ones cut off by the kill.
      expect(kept).toHaveLength(SUBSCRIBERS)
      expect(new Set(kept.map((push) => push.subscriptionId)).size).toBe(SUBSCRIBERS)
      expect(counts.accepted).toBeLessThanOrEqual(SUBSCRIBERS + IN_FLIGHT)
      expect(counts.replaced).toBe(counts.accepted - SUBSCRIBERS)
      for (const push of kept.slice(0, 25)) {
        const payload = JSON.parse(subscriber.decrypt(Buffer.from(push.body, 'base64'))) as PushPayload
        expect(payload).toMatchObject({ type: 'publish', signalId: pick.id, commitment: pick.commitment })
        expect(push.topic).toBe(`seq${payload.seq}`)
      }
      expect(server.output()).not.toMatch(/"level":(50|60)/)
    } finally {
      await server.kill()
    }
  }, 420_000)
})
