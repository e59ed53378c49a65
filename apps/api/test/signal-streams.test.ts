import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { type EventStreamReader, openEventStream } from './helpers/event-stream'
import { as, login, register, type Session } from './helpers/members'
import { createTestApp, type TestApp } from './helpers/test-app'

const API = '/discord/api'
const ADMIN = { email: 'streams.ops@edgeclub.test', password: 'Streams$Ops-2026' }
const DAY = 86_400_000

/**
 * Live signal streams are bounded per member and end as soon as the member may no longer have them:
 * at most five per member (a sixth closes the oldest), and a sign-out, a disabling or an end of access
 * closes them at once, not at the next signal.
 */
describe('live signal streams', () => {
  let t: TestApp
  let origin: string
  let admin: Session

  beforeAll(async () => {
    t = await createTestApp({ env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } })
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' })
    admin = await login(t.app, ADMIN.email, ADMIN.password)
  })
  afterAll(async () => {
    await t.close()
  })

  const open = (member: Session) => openEventStream(`${origin}${API}/signals/stream`, member.accessToken)
  const memberWithAccess = async () => {
    const member = await register(t.app)
    const granted = await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${member.user.id}/grant`,
      payload: { days: 30 },
    })
    expect(granted.statusCode).toBe(200)
    return member
  }
  /** Resolves true when the server ended the stream within `ms`. */
  const endsWithin = (stream: EventStreamReader, ms: number) =>
    Promise.race([
      stream.closed.then(() => true),
      new Promise<boolean>((r) => setTimeout(() => r(false), ms)),
    ])
  const closeAll = (streams: EventStreamReader[]) => {
    for (const stream of streams) stream.close()
  }

  it('keeps at most five streams per member: a sixth closes the oldest', async () => {
    const member = await memberWithAccess()
    const streams: EventStreamReader[] = []
    try {
      for (let i = 0; i < 6; i++) streams.push(await open(member))
      expect(await endsWithin(streams[0]!, 2_000)).toBe(true)
      for (const stream of streams.slice(1)) expect(await endsWithin(stream, 200)).toBe(false)
    } finally {
      closeAll(streams)
    }
  })

  it('400 streams opened at once by one member: five stay open', async () => {
    const member = await memberWithAccess()
    const before = t.app.services.signalStream.size()
    const streams = await Promise.all(Array.from({ length: 400 }, () => open(member)))
    try {
      const stillOpen = await eventually(
        async () => {
          const ended = await Promise.all(streams.map((stream) => endsWithin(stream, 10)))
          return ended.filter((done) => !done).length
        },
        (open) => open === 5,
        10_000,
      )
      expect(stillOpen).toBe(5)
      expect(t.app.services.signalStream.size() - before).toBe(5)
      console.info(`400 opened at once: ${stillOpen} left open`)
    } finally {
      closeAll(streams)
    }
  }, 60_000)

  it('signing out closes the stream at once', async () => {
    const member = await memberWithAccess()
    const stream = await open(member)
    try {
      expect(await endsWithin(stream, 300)).toBe(false)
      expect(
        (await as(t.app, member.accessToken, { method: 'POST', url: `${API}/auth/logout` })).statusCode,
      ).toBe(200)
      expect(await endsWithin(stream, 2_000)).toBe(true)
    } finally {
      stream.close()
    }
  })

  it('disabling a member closes their streams at once', async () => {
    const member = await memberWithAccess()
    const streams = [await open(member), await open(member)]
    try {
      const disabled = await as(t.app, admin.accessToken, {
        method: 'POST',
        url: `${API}/admin/users/${member.user.id}/disable`,
        payload: { disabled: true },
      })
      expect(disabled.statusCode).toBe(200)
      for (const stream of streams) expect(await endsWithin(stream, 2_000)).toBe(true)
    } finally {
      closeAll(streams)
    }
  })

  it('an end of access closes the stream at once; the member reconnects to the public view', async () => {
    const member = await memberWithAccess()
    const stream = await open(member)
    try {
      // The period ran out; the expiry sweep ends it through the access service.
      await new Promise((resolve) => setTimeout(resolve, 300))
      await t.database.db
        .updateTable('subscriptions')
        .set({ end_date: new Date(Date.now() - DAY) })
        .where('user_id', '=', member.user.id)
        .execute()
      expect(await t.app.services.access.expireEnded()).toBeGreaterThanOrEqual(1)
      expect(await endsWithin(stream, 2_000)).toBe(true)
      const again = await open(member)
      expect(await endsWithin(again, 500)).toBe(false)
      again.close()
    } finally {
      stream.close()
    }
  })

  it('a member without access keeps their (public) stream when something else about them changes', async () => {
    const member = await register(t.app)
    const stream = await open(member)
    try {
      await new Promise((resolve) => setTimeout(resolve, 300))
      const updated = await as(t.app, member.accessToken, {
        method: 'PUT',
        url: `${API}/auth/profile`,
        payload: { firstName: 'Renamed' },
      })
      expect(updated.statusCode, updated.body).toBe(200)
      expect(await endsWithin(stream, 1_000)).toBe(false)
    } finally {
      stream.close()
    }
  })
})

describe.skipIf(process.env.TEST_DB !== 'postgres')('live signal streams on two instances', () => {
  it('the limit of five holds across instances, and signing out on one closes streams on the other', async () => {
    const { createTestDatabase } = await import('./helpers/test-app')
    const database = await createTestDatabase()
    // Instances behind one load balancer share the token key.
    const env = {
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      JWT_SECRET: 'a-shared-secret-of-two-instances-0123456789',
    }
    const first = await createTestApp({ database, env })
    const second = await createTestApp({ database, env })
    const streams: EventStreamReader[] = []
    try {
      const origins = [
        await first.app.listen({ port: 0, host: '127.0.0.1' }),
        await second.app.listen({ port: 0, host: '127.0.0.1' }),
      ]
      const member = await register(first.app)
      const endsWithin = (stream: EventStreamReader, ms: number) =>
        Promise.race([
          stream.closed.then(() => true),
          new Promise<boolean>((r) => setTimeout(() => r(false), ms)),
        ])
      // Three on each, one after another: the first one (on the first instance) is the one that goes.
      for (let i = 0; i < 6; i++) {
        streams.push(await openEventStream(`${origins[i % 2]}${API}/signals/stream`, member.accessToken))
        await new Promise((resolve) => setTimeout(resolve, 150))
      }
      expect(await endsWithin(streams[0]!, 3_000)).toBe(true)
      for (const stream of streams.slice(1)) expect(await endsWithin(stream, 200)).toBe(false)
      expect(first.app.services.signalStream.size() + second.app.services.signalStream.size()).toBe(5)

      expect(
        (await as(first.app, member.accessToken, { method: 'POST', url: `${API}/auth/logout` })).statusCode,
      ).toBe(200)
      for (const stream of streams.slice(1)) expect(await endsWithin(stream, 3_000)).toBe(true)
    } finally {
      for (const stream of streams) stream.close()
      await second.close()
      await first.close()
      await database.drop()
    }
  }, 120_000)
})
