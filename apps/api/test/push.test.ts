import { type Emulator, startEmulator } from '@edgeclub/emulator'
import { type PushPayload, signalPath } from '@edgeclub/shared'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { as, login, register, type Session } from './helpers/members'
import { createTestApp, type TestApp } from './helpers/test-app'
import { newSubscriber, type Subscriber } from './helpers/web-push'

const API = '/discord/api'
const ADMIN = { email: 'push.ops@edgeclub.test', password: 'Ops$ecret-push-2026' }
const MINUTE = 60_000

interface Device {
  member: Session
  subscriber: Subscriber
  /** The emulator's id of the subscription (its endpoint's last part). */
  id: string
  endpoint: string
}

describe('web push notifications', () => {
  let t: TestApp
  let emulator: Emulator
  let admin: Session

  beforeAll(async () => {
    emulator = await startEmulator()
    t = await createTestApp({
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password, PUSH_SERVICE_ORIGINS: emulator.url },
    })
    admin = await login(t.app, ADMIN.email, ADMIN.password)
  })
  afterAll(async () => {
    await t?.close()
    await emulator?.close()
  })

  const call = (token: string, method: 'GET' | 'POST' | 'PUT' | 'DELETE', url: string, payload?: object) =>
    as(t.app, token, { method, url: `${API}${url}`, payload })

  /** A member with a year of access (or none), notifications on in one browser. */
  async function memberWithDevice(options: { access?: boolean; preferences?: object } = {}): Promise<Device> {
    const member = await register(t.app)
    if (options.access !== false) {
      const granted = await call(admin.accessToken, 'POST', `/admin/users/${member.user.id}/grant`, {
        days: 365,
      })
      expect(granted.statusCode, granted.body).toBe(200)
    }
    const subscriber = newSubscriber()
    const record = emulator.push.subscribe({ keys: { p256dh: subscriber.p256dh, auth: subscriber.auth } })
    const subscribed = await call(member.accessToken, 'POST', '/push/subscriptions', {
      subscription: { endpoint: record.endpoint, keys: record.keys },
      ...(options.preferences ? { preferences: options.preferences } : {}),
    })
    expect(subscribed.statusCode, subscribed.body).toBe(200)
    return { member, subscriber, id: record.id, endpoint: record.endpoint }
  }

  const pick = (overrides: Record<string, unknown> = {}) => ({
    kind: 'pick',
    sport: 'NFL',
    league: 'Week 12',
    event: 'Chiefs vs Bills',
    startsAt: new Date(Date.now() + 30 * MINUTE).toISOString(),
    market: 'spread',
    selection: 'Chiefs -3.5',
    odds: 1.91,
    stake: 1,
    ...overrides,
  })
  const publish = async (body: object = pick()) => {
    const response = await call(admin.accessToken, 'POST', '/signals', body)
    expect(response.statusCode, response.body).toBe(201)
    return response.json().data as { id: string; commitment: string }
  }
  const pushesTo = (device: Device) => emulator.push.messages(device.id)
  const opened = (device: Device, index = 0) =>
    JSON.parse(device.subscriber.decrypt(Buffer.from(pushesTo(device)[index]!.body, 'base64'))) as PushPayload
  /** Until the device holds this many notifications. */
  const untilPushes = (device: Device, count: number) =>
    eventually(
      async () => pushesTo(device).length,
      (held) => held === count,
      20_000,
    )
  /** Until the queues are empty (every fan-out and send done). */
  const drained = () =>
    eventually(
      async () =>
        (await t.app.services.jobs.pending('push.fanout')) + (await t.app.services.jobs.pending('push.send')),
      (pending) => pending === 0,
      20_000,
    )

  // Each test starts with no subscriptions and an empty push service.
  beforeEach(async () => {
    await drained()
    await t.database.db.deleteFrom('push_subscriptions').execute()
    emulator.push.clear()
  })

  it('a new pick reaches each subscribed member once, encrypted for their keys, with its commitment and a link to it', async () => {
    const first = await memberWithDevice()
    const second = await memberWithDevice()
    const key = (await call(first.member.accessToken, 'GET', '/push/key')).json().data.publicKey as string

    const published = await publish()
    await eventually(
      async () => [pushesTo(first).length, pushesTo(second).length],
      (counts) => counts.every((count) => count === 1),
      20_000,
    )
    await drained()
    expect(emulator.push.counts().accepted).toBe(2)
    for (const device of [first, second]) {
      const [push] = pushesTo(device)
      expect(push!.vapidKey).toBe(key)
      const payload = opened(device)
      expect(payload).toMatchObject({
        type: 'publish',
        signalId: published.id,
        commitment: published.commitment,
        url: `${t.config.appOrigin}${signalPath(published.id)}`,
      })
      expect(payload.title).toContain('NFL')
      expect(payload.body).toContain('Chiefs -3.5')
      expect(payload.body).toContain(published.commitment.slice(0, 16))
      expect(push!.urgency).toBe('high')
    }
  })

  it('members without access get nothing, and a push endpoint of an unknown service is refused', async () => {
    const outsider = await memberWithDevice({ access: false })
    const member = await memberWithDevice()
    const refused = await call(member.member.accessToken, 'POST', '/push/subscriptions', {
      subscription: {
        endpoint: 'https://push.attacker.example/send/1',
        keys: { p256dh: member.subscriber.p256dh, auth: member.subscriber.auth },
      },
    })
    expect(refused.statusCode).toBe(400)
    expect(refused.json()).toMatchObject({
      success: false,
      error: 'VALIDATION_ERROR',
      message: 'This browser push service is not one EdgeClub sends to.',
    })
    expect((await call(member.member.accessToken, 'GET', '/push/preferences')).json().data.devices).toBe(1)

    await publish()
    await untilPushes(member, 1)
    await drained()
    expect(pushesTo(outsider)).toHaveLength(0)
  })

  it('a member notified only of NBA picks hears nothing of an NFL pick, and results only when asked for', async () => {
    const nbaOnly = await memberWithDevice({ preferences: { kinds: ['picks'], sports: ['NBA'] } })
    const everything = await memberWithDevice()
    const saved = await call(nbaOnly.member.accessToken, 'GET', '/push/preferences')
    expect(saved.json().data).toEqual({ kinds: ['picks'], sports: ['NBA'], devices: 1 })

    const nfl = await publish()
    await untilPushes(everything, 1)
    await drained()
    expect(pushesTo(nbaOnly)).toHaveLength(0)

    // The result of the NFL pick: to the member who asked for results.
    const voided = await call(admin.accessToken, 'POST', `/signals/${nfl.id}/void`, {
      reason: 'Posted twice',
    })
    expect(voided.statusCode, voided.body).toBe(200)
    await untilPushes(everything, 2)
    await drained()
    const result = opened(everything, 1)
    expect(result).toMatchObject({
      type: 'void',
      signalId: nfl.id,
      title: 'Result',
      commitment: nfl.commitment,
    })
    expect(pushesTo(nbaOnly)).toHaveLength(0)

    // Choices are the member's: turning results on (and all sports) applies to their device.
    const changed = await call(nbaOnly.member.accessToken, 'PUT', '/push/preferences', {
      kinds: ['picks', 'results'],
      sports: [],
    })
    expect(changed.json().data).toEqual({ kinds: ['picks', 'results'], sports: [], devices: 1 })
    const invalid = await call(nbaOnly.member.accessToken, 'PUT', '/push/preferences', {
      kinds: [],
      sports: [],
    })
    expect(invalid.statusCode).toBe(400)
    expect(invalid.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR' })
    await publish()
    await untilPushes(nbaOnly, 1)
  })

  it('a subscription the push service reports gone (410) is removed and not sent to again', async () => {
    const leaving = await memberWithDevice()
    const staying = await memberWithDevice()
    emulator.push.markGone(leaving.id)

    await publish()
    await untilPushes(staying, 1)
    await drained()
    await eventually(
      async () => (await call(leaving.member.accessToken, 'GET', '/push/preferences')).json().data.devices,
      (devices) => devices === 0,
      10_000,
    )
    const rows = await t.database.db
      .selectFrom('push_subscriptions')
      .select('id')
      .where('endpoint', '=', leaving.endpoint)
      .execute()
    expect(rows).toHaveLength(0)
    expect(emulator.push.counts().rejected).toBe(1)

    await publish()
    await untilPushes(staying, 2)
    await drained()
    // Nothing more was tried on the gone subscription.
    expect(emulator.push.counts().rejected).toBe(1)
  })

  it('a member whose access ended gets no more notifications', async () => {
    const ending = await memberWithDevice()
    const staying = await memberWithDevice()
    await publish()
    await untilPushes(ending, 1)
    await drained()

    // Access ends (the period is over), notifications still on in the browser.
    await t.database.db
      .updateTable('subscriptions')
      .set({ end_date: new Date(Date.now() - MINUTE), status: 'expired' })
      .where('user_id', '=', ending.member.user.id)
      .execute()
    await publish()
    await untilPushes(staying, 2)
    await drained()
    expect(pushesTo(ending)).toHaveLength(1)
  })

  it('a busy or failing push service (429, 503) is tried again and the member is notified once', async () => {
    const device = await memberWithDevice()
    emulator.push.fail(429, 1, 1)
    emulator.push.fail(503, 1)
    await publish()
    await eventually(
      async () => pushesTo(device).length,
      (count) => count === 1,
      30_000,
    )
    await drained()
    expect(pushesTo(device)).toHaveLength(1)
    expect(emulator.push.counts().accepted).toBe(1)
    expect(opened(device).type).toBe('publish')
  })

  it('a push service that answers 429 with Retry-After is not asked again before that wait', async () => {
    const device = await memberWithDevice()
    emulator.push.fail(429, 1, 3)
    const published = Date.now()
    await publish()
    await eventually(
      async () => pushesTo(device).length,
      (count) => count === 1,
      30_000,
    )
    // The queue's own backoff here is under a second; the service asked for three.
    expect(Date.now() - published).toBeGreaterThanOrEqual(3_000)
    await drained()
    expect(pushesTo(device)).toHaveLength(1)
    expect(emulator.push.counts().accepted).toBe(1)
  })

  it('a push service refusing some of a pick’s batch (503) gets only those again; the others are not sent twice', async () => {
    const devices = [await memberWithDevice(), await memberWithDevice(), await memberWithDevice()]
    // The first two pushes of the batch are refused, the third accepted; the retry sends two.
    emulator.push.fail(503, 2)
    await publish()
    await eventually(
      async () => devices.map((device) => pushesTo(device).length),
      (counts) => counts.every((count) => count === 1),
      30_000,
    )
    await drained()
    // Three accepted in all: none of them a repeat that replaced a delivered copy.
    expect(emulator.push.counts()).toMatchObject({ accepted: 3, replaced: 0 })
    for (const device of devices) expect(opened(device).type).toBe('publish')
  })

  it('turning notifications off for a browser stops them; another member cannot turn off mine', async () => {
    const device = await memberWithDevice()
    const other = await register(t.app)
    const foreign = await call(other.accessToken, 'DELETE', '/push/subscriptions', {
      endpoint: device.endpoint,
    })
    expect(foreign.statusCode).toBe(404)
    const off = await call(device.member.accessToken, 'DELETE', '/push/subscriptions', {
      endpoint: device.endpoint,
    })
    expect(off.statusCode, off.body).toBe(200)
    expect(off.json().data.devices).toBe(0)
    const witness = await memberWithDevice()
    await publish()
    await untilPushes(witness, 1)
    await drained()
    expect(pushesTo(device)).toHaveLength(0)
  })
})
