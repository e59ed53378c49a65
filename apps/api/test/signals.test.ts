import { execFile } from 'node:child_process'
import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { type Emulator, startEmulator } from '@edgeclub/emulator'
import { type LedgerEntry, type RevealedSignal, verifyLedger } from '@edgeclub/shared'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { openEventStream } from './helpers/event-stream'
import { as, login, register, type Session } from './helpers/members'
import { createTestApp, type TestApp, testClock } from './helpers/test-app'

const API = '/discord/api'
const ADMIN = { email: 'signals.ops@edgeclub.test', password: 'Ops$ecret123' }
const MINUTE = 60_000
const DAY = 24 * 60 * MINUTE
const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')
const root = path.resolve(import.meta.dirname, '../../..')

describe('the signal room', () => {
  let t: TestApp
  let emulator: Emulator
  let origin: string
  const clock = testClock()
  let admin: Session
  let analyst: Session
  let paying: Session
  let neverPaid: Session
  let lapsed: Session

  beforeAll(async () => {
    emulator = await startEmulator()
    t = await createTestApp({
      clock,
      env: {
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        PRICE_FEED_URL: emulator.priceFeedUrl,
        PRICE_CACHE_SECONDS: '1',
      },
    })
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' })
    admin = await login(t.app, ADMIN.email, ADMIN.password)
    analyst = await register(t.app)
    const promoted = await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${analyst.user.id}/role`,
      payload: { role: 'analyst' },
    })
    expect(promoted.statusCode, promoted.body).toBe(200)
    paying = await register(t.app)
    const granted = await as(t.app, admin.accessToken, {
      method: 'POST',
      url: `${API}/admin/users/${paying.user.id}/grant`,
      payload: { days: 365 },
    })
    expect(granted.statusCode).toBe(200)
    neverPaid = await register(t.app)
    lapsed = await register(t.app)
    const plan = await t.database.db
      .selectFrom('plans')
      .select('id')
      .where('slug', '=', 'monthly')
      .executeTakeFirstOrThrow()
    await t.database.db
      .insertInto('subscriptions')
      .values({
        user_id: lapsed.user.id,
        plan_id: plan.id,
        provider: 'stripe',
        status: 'expired',
        start_date: new Date(Date.now() - 40 * DAY),
        end_date: new Date(Date.now() - 10 * DAY),
      })
      .execute()
  })
  afterAll(async () => {
    await t.close()
    await emulator.close()
  })

  const call = (token: string | undefined, method: 'GET' | 'POST', url: string, payload?: object) =>
    token
      ? as(t.app, token, { method, url: `${API}${url}`, payload })
      : t.app.inject({ method, url: `${API}${url}`, payload })
  /** Picks start a few minutes ahead, so a test can move past the start without outliving its tokens. */
  const soon = () => new Date(clock.now().getTime() + 2 * MINUTE).toISOString()
  const pick = (overrides: Record<string, unknown> = {}) => ({
    kind: 'pick',
    sport: 'NFL',
    league: 'Week 12',
    event: 'Chiefs vs Bills',
    startsAt: soon(),
    market: 'spread',
    selection: 'Chiefs -3.5',
    odds: 1.91,
    stake: 1,
    analysis: 'Chiefs cover at home against a tired defence.',
    ...overrides,
  })
  const trade = (overrides: Record<string, unknown> = {}) => ({
    kind: 'signal',
    instrument: 'AAPL',
    direction: 'long',
    entry: 100,
    target: 110,
    stop: 95,
    expiresAt: new Date(clock.now().getTime() + DAY).toISOString(),
    stake: 1,
    ...overrides,
  })
  const publish = async (body: object, token = analyst.accessToken) => {
    const response = await call(token, 'POST', '/signals', body)
    expect(response.statusCode, response.body).toBe(201)
    return response.json().data as { id: string; commitment: string; status: string }
  }
  const settle = async (id: string, body: object, token = analyst.accessToken) => {
    const response = await call(token, 'POST', `/signals/${id}/settle`, body)
    expect(response.statusCode, response.body).toBe(200)
    return response.json().data
  }
  const ledger = async () =>
    (await call(undefined, 'GET', '/record/ledger?limit=1000')).json().data.entries as LedgerEntry[]
  const revealed = async (entries: LedgerEntry[]) => {
    const ids = [
      ...new Set(entries.filter((entry) => entry.type !== 'publish').map((entry) => entry.signalId)),
    ]
    return Promise.all(
      ids.map(
        async (id) => (await call(undefined, 'GET', `/record/signals/${id}`)).json().data as RevealedSignal,
      ),
    )
  }

  it('only admins and analysts publish and settle; an analyst has no other admin power', async () => {
    expect((await call(undefined, 'POST', '/signals', pick())).statusCode).toBe(401)
    const byMember = await call(paying.accessToken, 'POST', '/signals', pick())
    expect(byMember.statusCode).toBe(403)
    expect(byMember.json()).toMatchObject({
      error: 'FORBIDDEN',
      message: 'Only admins and analysts can publish and settle signals',
    })
    expect((await call(analyst.accessToken, 'GET', '/admin/users')).statusCode).toBe(403)
    const byAdmin = await publish(pick(), admin.accessToken)
    expect(
      (await call(paying.accessToken, 'POST', `/signals/${byAdmin.id}/void`, { reason: 'mine' })).statusCode,
    ).toBe(403)
    const audit = (await call(admin.accessToken, 'GET', `/admin/audit?targetId=${analyst.user.id}`)).json()
      .data
    expect(audit.items).toContainEqual(
      expect.objectContaining({ action: 'user.role', details: { role: 'analyst' }, outcome: 'success' }),
    )
  })

  it('refuses a pick starting in the past, odds or stake out of range and inconsistent trading levels, publishing nothing', async () => {
    const before = (await ledger()).length
    const cases: [object, string, string][] = [
      [
        pick({ startsAt: new Date(clock.now().getTime() - MINUTE).toISOString() }),
        'startsAt',
        'The event must start in the future',
      ],
      [pick({ odds: 1 }), 'odds', 'Decimal odds must be between 1.01 and 1000'],
      [pick({ odds: 1000.5 }), 'odds', 'Decimal odds must be between 1.01 and 1000'],
      [pick({ stake: 11 }), 'stake', 'Stake must be between 0.1 and 10 units'],
      [trade({ target: 90 }), 'stop', 'For a long, the stop must be below the entry and the target above it'],
      [
        trade({ direction: 'short' }),
        'stop',
        'For a short, the target must be below the entry and the stop above it',
      ],
      [pick({ analysis: 'x'.repeat(5001) }), 'analysis', 'At most 5000 characters'],
    ]
    for (const [body, field, message] of cases) {
      const response = await call(analyst.accessToken, 'POST', '/signals', body)
      expect(response.statusCode, JSON.stringify(body)).toBe(400)
      expect(response.json().errors).toContainEqual({ field, message })
    }
    expect(await ledger()).toHaveLength(before)
  })

  it('the ledger refuses edits and deletions, and a published signal cannot be rewritten', async () => {
    const signal = await publish(pick())
    const db = t.database.db
    await expect(
      sql`update signal_ledger set data = '{}' where signal_id = ${signal.id}`.execute(db),
    ).rejects.toThrow(/append-only/)
    await expect(sql`delete from signal_ledger where signal_id = ${signal.id}`.execute(db)).rejects.toThrow(
      /append-only/,
    )
    await expect(sql`truncate signal_ledger cascade`.execute(db)).rejects.toThrow(/append-only/)
    await expect(
      sql`update signals set content = '{"kind":"pick","selection":"Bills +3.5"}' where id = ${signal.id}`.execute(
        db,
      ),
    ).rejects.toThrow(/cannot be changed/)
    await expect(sql`delete from signals where id = ${signal.id}`.execute(db)).rejects.toThrow(
      /kept for the record/,
    )
    const entry = (await ledger()).find((item) => item.signalId === signal.id)
    expect(entry?.data).toMatchObject({ commitment: signal.commitment, kind: 'pick', category: 'NFL' })
  })

  it('members with access read the content; lapsed, never-paid and signed-out readers do not', async () => {
    const signal = await publish(pick({ selection: 'Secret Chiefs -2.5' }))
    const readAs = async (session: Session) => {
      const page = (await call(session.accessToken, 'GET', '/signals?limit=50')).json().data
      return page.items.find((item: { id: string }) => item.id === signal.id)
    }
    expect((await readAs(paying)).content).toMatchObject({ selection: 'Secret Chiefs -2.5', odds: 1.91 })
    expect((await readAs(analyst)).content).toMatchObject({ selection: 'Secret Chiefs -2.5' })
    for (const reader of [lapsed, neverPaid]) {
      const seen = await readAs(reader)
      expect(seen).toMatchObject({
        id: signal.id,
        commitment: signal.commitment,
        status: 'open',
        content: null,
        salt: null,
      })
      expect(JSON.stringify(seen)).not.toContain('Secret')
    }
    expect((await call(undefined, 'GET', '/signals')).statusCode).toBe(401)
    const publicView = (await call(undefined, 'GET', `/record/signals/${signal.id}`)).json().data
    expect(publicView).toMatchObject({ commitment: signal.commitment, content: null, salt: null })
  })

  it('computes the record from settlements: counts, win rate, units, ROI per kind, category and month', async () => {
    // A fresh ledger view: only this test's signals count, through `since`.
    const since = clock.now().toISOString()
    clock.advance(1_000)
    const a = await publish(pick({ sport: 'NFL', odds: 2, stake: 1 }))
    const b = await publish(pick({ sport: 'NBA', odds: 1.5, stake: 2 }))
    const c = await publish(pick({ sport: 'NFL', odds: 1.91, stake: 1 }))
    const d = await publish(pick({ sport: 'soccer', odds: 3, stake: 0.5 }))
    const e = await publish(pick({ sport: 'NFL' }))
    const f = await publish(trade({ instrument: 'MSFT', entry: 100, target: 110, stop: 95, stake: 1 }))
    const g = await publish(
      trade({ instrument: 'AAPL', direction: 'short', entry: 200, target: 180, stop: 210, stake: 2 }),
    )

    // A pick cannot be settled before its event starts.
    const early = await call(analyst.accessToken, 'POST', `/signals/${a.id}/settle`, { result: 'won' })
    expect(early.statusCode).toBe(400)
    expect(early.json().message).toBe('A pick can be settled only after its event has started')
    clock.advance(5 * MINUTE)
    try {
      // A pick settles by its result, a trading signal by its exit price: not the other way round.
      const pickByPrice = await call(analyst.accessToken, 'POST', `/signals/${a.id}/settle`, { exitPrice: 2 })
      expect(pickByPrice.statusCode).toBe(400)
      expect(pickByPrice.json().message).toBe('Settle a pick with won, lost or push')
      const tradeByResult = await call(analyst.accessToken, 'POST', `/signals/${f.id}/settle`, {
        result: 'won',
      })
      expect(tradeByResult.statusCode).toBe(400)
      expect(tradeByResult.json().message).toBe('Settle a trading signal with its exit price')
      const both = await call(analyst.accessToken, 'POST', `/signals/${f.id}/settle`, {
        result: 'won',
        exitPrice: 2,
      })
      expect(both.statusCode).toBe(400)
      expect(await settle(a.id, { result: 'won' })).toMatchObject({ result: 'won', profitUnits: 1 })
      expect(await settle(b.id, { result: 'lost' })).toMatchObject({ result: 'lost', profitUnits: -2 })
      expect(await settle(c.id, { result: 'push' })).toMatchObject({ result: 'push', profitUnits: 0 })
      expect(await settle(d.id, { result: 'won' })).toMatchObject({ profitUnits: 1 })
      expect(
        (
          await call(analyst.accessToken, 'POST', `/signals/${e.id}/void`, {
            reason: 'Game postponed',
            afterStart: true,
          })
        ).statusCode,
      ).toBe(200)
      expect(await settle(f.id, { exitPrice: 110 })).toMatchObject({ result: 'won', profitUnits: 2 })
      expect(await settle(g.id, { exitPrice: 205 })).toMatchObject({ result: 'closed', profitUnits: -1 })
      // Settled is final.
      expect(
        (await call(analyst.accessToken, 'POST', `/signals/${a.id}/settle`, { result: 'lost' })).statusCode,
      ).toBe(409)
      // A pick is settled by result, a trading signal by exit price.
      expect(
        (await call(analyst.accessToken, 'POST', `/signals/${f.id}/settle`, { result: 'won' })).statusCode,
      ).toBe(409)
    } finally {
      clock.reset()
    }

    const record = (await call(undefined, 'GET', `/record?since=${encodeURIComponent(since)}`)).json().data
    expect(record.overall).toEqual({
      settled: 6,
      won: 3,
      lost: 1,
      push: 1,
      closed: 1,
      void: 1,
      winRate: 0.75,
      unitsStaked: 7.5,
      profitUnits: 1,
      roi: 0.1333,
    })
    expect(record.byKind).toEqual(
      expect.arrayContaining([
        {
          kind: 'pick',
          settled: 4,
          won: 2,
          lost: 1,
          push: 1,
          closed: 0,
          void: 1,
          winRate: 0.6667,
          unitsStaked: 4.5,
          profitUnits: 0,
          roi: 0,
        },
        {
          kind: 'signal',
          settled: 2,
          won: 1,
          lost: 0,
          push: 0,
          closed: 1,
          void: 0,
          winRate: 1,
          unitsStaked: 3,
          profitUnits: 1,
          roi: 0.3333,
        },
      ]),
    )
    const category = (name: string) =>
      record.byCategory.find((row: { category: string }) => row.category === name)
    expect(category('NFL')).toMatchObject({
      settled: 2,
      won: 1,
      push: 1,
      void: 1,
      winRate: 1,
      unitsStaked: 2,
      profitUnits: 1,
      roi: 0.5,
    })
    expect(category('NBA')).toMatchObject({
      settled: 1,
      lost: 1,
      winRate: 0,
      unitsStaked: 2,
      profitUnits: -2,
      roi: -1,
    })
    expect(category('soccer')).toMatchObject({ winRate: 1, unitsStaked: 0.5, profitUnits: 1, roi: 2 })
    expect(category('MSFT')).toMatchObject({ won: 1, unitsStaked: 1, profitUnits: 2, roi: 2 })
    expect(category('AAPL')).toMatchObject({
      closed: 1,
      winRate: null,
      unitsStaked: 2,
      profitUnits: -1,
      roi: -0.5,
    })
    expect(record.byMonth).toHaveLength(1)
    expect(record.byMonth[0]).toMatchObject({ settled: 6, profitUnits: 1 })
    expect(record.cumulative.map((point: { units: number }) => point.units)).toEqual([1, -1, -1, 0, 2, 1])
    expect(record.head).toEqual({ seq: expect.any(Number), hash: expect.stringMatching(/^[0-9a-f]{64}$/) })
    // Settled signals are revealed, with their salt, in the public record.
    expect(record.latestSettled[0]).toMatchObject({
      id: g.id,
      content: { instrument: 'AAPL' },
      salt: expect.stringMatching(/^[0-9a-f]{32}$/),
    })
  })

  it('the chain and every revealed commitment verify, from the API and with npm run verify-record; tampering is caught', async () => {
    const entries = await ledger()
    const signals = await revealed(entries)
    expect(entries.length).toBeGreaterThan(10)
    expect(entries[0]?.prevHash).toBe('0'.repeat(64))
    expect(verifyLedger(entries, signals, sha256)).toMatchObject({ ok: true, entries: entries.length })

    const run = promisify(execFile)
    const cli = (target: string) =>
      run(process.execPath, ['--import', 'tsx', 'scripts/verify-record.ts', target], { cwd: root }).then(
        (result) => ({ code: 0, out: result.stdout }),
        (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
      )
    const fromSite = await cli(origin)
    expect(fromSite.out).toMatch(
      /^OK: \d+ entries chain correctly and \d+ revealed signals match their commitments/,
    )
    expect(fromSite.code).toBe(0)

    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-ledger-'))
    try {
      // One profit rewritten in a downloaded copy: its entry no longer hashes to what the chain says.
      const tampered = structuredClone(entries)
      const settled = tampered.find((entry) => entry.type === 'settle')!
      ;(settled.data as { profitUnits: number }).profitUnits += 1
      await fs.writeFile(path.join(dir, 'entries.json'), JSON.stringify({ entries: tampered, signals }))
      const caught = await cli(path.join(dir, 'entries.json'))
      expect(caught.code).toBe(1)
      expect(caught.out).toContain(`MISMATCH at entry #${settled.seq}: hash does not match its content`)

      // A revealed pick whose selection was changed after the fact: its commitment gives it away.
      const changed = structuredClone(signals)
      const pickSignal = changed.find((signal) => signal.content?.kind === 'pick')!
      pickSignal.content = { ...pickSignal.content, selection: 'Somebody else' }
      await fs.writeFile(path.join(dir, 'signals.json'), JSON.stringify({ entries, signals: changed }))
      const lied = await cli(path.join(dir, 'signals.json'))
      expect(lied.code).toBe(1)
      expect(lied.out).toContain(`MISMATCH at signal ${pickSignal.id}`)
    } finally {
      await fs.rm(dir, { recursive: true, force: true })
    }
  }, 60_000)

  it('a BTC signal settles by itself when the price crosses its target', async () => {
    emulator.prices.set('bitcoin', 60_000, 0)
    const signal = await publish(
      trade({ instrument: 'BTC', direction: 'long', entry: 60_000, target: 63_000, stop: 58_500, stake: 1 }),
    )
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    await t.app.services.signals.settleFromPrices()
    expect((await call(undefined, 'GET', `/record/signals/${signal.id}`)).json().data.status).toBe('open')

    emulator.prices.set('bitcoin', 63_500, 5.8)
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    expect(await t.app.services.signals.settleFromPrices()).toBeGreaterThanOrEqual(1)
    const settled = (await call(undefined, 'GET', `/record/signals/${signal.id}`)).json().data
    expect(settled).toMatchObject({ status: 'settled', result: 'won', exitPrice: 63_000, profitUnits: 2 })
    const audit = (await call(admin.accessToken, 'GET', `/admin/audit?targetId=${signal.id}`)).json().data
    expect(audit.items).toContainEqual(expect.objectContaining({ action: 'signal.settle', actor: null }))
  })

  it('streams new signals live: content to members with access, the public view to others, until access ends', async () => {
    // The member's period ends in a minute, as their stream first looks at it.
    await t.database.db
      .updateTable('subscriptions')
      .set({ end_date: new Date(clock.now().getTime() + MINUTE) })
      .where('user_id', '=', paying.user.id)
      .execute()
    const member = await openEventStream(`${origin}${API}/signals/stream`, paying.accessToken)
    const outsider = await openEventStream(`${origin}${API}/signals/stream`, neverPaid.accessToken)
    try {
      const published = await publish(pick({ selection: 'Live Chiefs -1.5' }))
      const seen = (await member.next(
        (event) => (event.data as { signal: { id: string } }).signal.id === published.id,
      )) as {
        type: string
        signal: { content: { selection: string } }
      }
      expect(seen).toMatchObject({
        type: 'published',
        signal: { content: { selection: 'Live Chiefs -1.5' } },
      })
      const outside = (await outsider.next(
        (event) => (event.data as { signal: { id: string } }).signal.id === published.id,
      )) as {
        seq: number
        signal: { content: unknown; commitment: string }
        head: unknown
      }
      expect(outside.signal).toMatchObject({ content: null, commitment: published.commitment })
      // Every event carries the signed head its entry was appended under: the reader's witness.
      const signedHead = (await call(undefined, 'GET', `/record/head?size=${outside.seq}`)).json().data
      expect(outside.head).toEqual(signedHead)
      expect(signedHead).toMatchObject({
        size: outside.seq,
        rootHash: expect.stringMatching(/^[0-9a-f]{64}$/),
      })

      // The period runs out while connected (before any sweep): the next signal arrives without its
      // content. An end of access that is written (a refund, a revocation, the sweep) closes the
      // stream at once instead (signal-streams.test.ts).
      clock.advance(2 * MINUTE)
      const next = await publish(pick({ selection: 'After the lapse' }))
      const afterLapse = (await member.next(
        (event) => (event.data as { signal: { id: string } }).signal.id === next.id,
      )) as {
        signal: { content: unknown }
      }
      expect(afterLapse.signal.content).toBeNull()

      // Signing out ends the stream (at once: see signal-streams.test.ts).
      expect((await call(neverPaid.accessToken, 'POST', '/auth/logout')).statusCode).toBe(200)
      await publish(pick())
      await outsider.closed
    } finally {
      member.close()
      outsider.close()
    }
  })

  it('a reader reconnecting with Last-Event-ID first receives every entry it missed, in order', async () => {
    const first = await openEventStream(`${origin}${API}/signals/stream`, analyst.accessToken)
    let seen: { seq: number }
    try {
      const before = await publish(pick({ selection: 'Before the drop' }))
      seen = (await first.next(
        (event) => (event.data as { signal: { id: string } }).signal.id === before.id,
      )) as { seq: number }
    } finally {
      first.close()
    }
    // While the reader is away: one publication and one void.
    const missed = await publish(pick({ selection: 'Missed while away' }))
    expect(
      (await call(analyst.accessToken, 'POST', `/signals/${missed.id}/void`, { reason: 'Line moved' }))
        .statusCode,
    ).toBe(200)
    const again = await openEventStream(`${origin}${API}/signals/stream`, analyst.accessToken, {
      'last-event-id': String(seen.seq),
    })
    try {
      const voided = (await again.next(
        (event) =>
          (event.data as { type: string; signal: { id: string } }).signal.id === missed.id &&
          (event.data as { type: string }).type === 'voided',
      )) as { seq: number }
      const replayed = again.events.map((event) => JSON.parse(event.data) as { seq: number; type: string })
      expect(replayed.map((event) => event.seq)).toEqual(
        Array.from({ length: voided.seq - seen.seq }, (_, index) => seen.seq + 1 + index),
      )
      expect(replayed.slice(-2).map((event) => event.type)).toEqual(['published', 'voided'])
      // A first connection (no Last-Event-ID) gets only what happens from now on.
      const fresh = await openEventStream(`${origin}${API}/signals/stream`, analyst.accessToken)
      try {
        const next = await publish(pick({ selection: 'After reconnecting' }))
        await fresh.next((event) => (event.data as { signal: { id: string } }).signal.id === next.id)
        expect(
          fresh.events.map((event) => (JSON.parse(event.data) as { signal: { id: string } }).signal.id),
        ).toEqual([next.id])
        await again.next((event) => (event.data as { signal: { id: string } }).signal.id === next.id)
      } finally {
        fresh.close()
      }
    } finally {
      again.close()
    }
  })

  it('never puts the access token in a URL: the stream refuses a token in the query string', async () => {
    const response = await fetch(`${origin}${API}/signals/stream?token=${paying.accessToken}`)
    expect(response.status).toBe(401)
  })
})

describe.skipIf(process.env.TEST_DB !== 'postgres')('two app instances on one PostgreSQL', () => {
  it('a signal published on one instance reaches members streaming from the other', async () => {
    const { createTestDatabase } = await import('./helpers/test-app')
    const database = await createTestDatabase()
    const env = { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password }
    const first = await createTestApp({ database, env })
    const second = await createTestApp({ database, env })
    try {
      const secondOrigin = await second.app.listen({ port: 0, host: '127.0.0.1' })
      const adminOnFirst = await login(first.app, ADMIN.email, ADMIN.password)
      const member = await register(second.app)
      await as(first.app, adminOnFirst.accessToken, {
        method: 'POST',
        url: `${API}/admin/users/${member.user.id}/grant`,
        payload: { days: 30 },
      })
      const stream = await openEventStream(`${secondOrigin}${API}/signals/stream`, member.accessToken)
      try {
        const published = await as(first.app, adminOnFirst.accessToken, {
          method: 'POST',
          url: `${API}/signals`,
          payload: {
            kind: 'signal',
            instrument: 'ETH',
            direction: 'short',
            entry: 3500,
            target: 3300,
            stop: 3600,
            expiresAt: new Date(Date.now() + DAY).toISOString(),
          },
        })
        expect(published.statusCode, published.body).toBe(201)
        const id = published.json().data.id
        const event = (await stream.next(
          (item) => (item.data as { signal: { id: string } }).signal.id === id,
        )) as {
          signal: { content: { instrument: string } }
        }
        expect(event.signal.content.instrument).toBe('ETH')
        await eventually(
          async () =>
            (await second.app.inject({ method: 'GET', url: `${API}/record` })).json().data.live.length,
          (live) => live >= 1,
        )
      } finally {
        stream.close()
      }
    } finally {
      await second.close()
      await first.close()
      await database.drop()
    }
  }, 120_000)
})

describe('delivering a published signal', () => {
  it('posts it in full to the members-only channel and emails, once, the members with access who opted in', async () => {
    const { startSmtpSink } = await import('./helpers/smtp-sink')
    const emulator = await startEmulator()
    const smtp = await startSmtpSink()
    const d = emulator.discord.config
    const t = await createTestApp({
      env: {
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
        SMTP_URL: smtp.url,
        DISCORD_BOT_TOKEN: d.botToken,
        DISCORD_GUILD_ID: d.guildId,
        DISCORD_MEMBER_ROLE_ID: d.memberRoleId,
        DISCORD_SIGNALS_CHANNEL_ID: d.signalsChannelId,
        DISCORD_API_BASE: `${emulator.url}/discord/api`,
      },
    })
    try {
      const admin = await login(t.app, ADMIN.email, ADMIN.password)
      const grant = (member: Session) =>
        as(t.app, admin.accessToken, {
          method: 'POST',
          url: `${API}/admin/users/${member.user.id}/grant`,
          payload: { days: 30 },
        })
      const subscriber = await register(t.app, { emailUpdates: true })
      const optedOut = await register(t.app, { emailUpdates: false })
      const noAccess = await register(t.app, { emailUpdates: true })
      await grant(subscriber)
      await grant(optedOut)
      const published = await as(t.app, admin.accessToken, {
        method: 'POST',
        url: `${API}/signals`,
        payload: {
          kind: 'pick',
          sport: 'NBA',
          event: 'Celtics vs Knicks',
          startsAt: new Date(Date.now() + DAY).toISOString(),
          market: 'moneyline',
          selection: 'Celtics',
          odds: 1.65,
          stake: 2,
        },
      })
      expect(published.statusCode, published.body).toBe(201)

      const posts = () => emulator.discord.state().messages[d.signalsChannelId] ?? []
      await eventually(
        async () => posts().length,
        (count) => count >= 1,
      )
      expect(posts()[0]?.content).toContain('Celtics vs Knicks')
      expect(posts()[0]?.content).toContain('Celtics (moneyline) @ 1.65')
      // Members hold a witness of the record: the commitment and the signed head the pick was appended under.
      const { commitment } = published.json().data as { commitment: string }
      const head = (await t.app.inject({ method: 'GET', url: `${API}/record/head?size=1` })).json().data
      expect(posts()[0]?.content).toContain(
        `\nSealed: commitment ${commitment.slice(0, 16)}… · record head #1, root ${head.rootHash.slice(0, 16)}…, signature ${head.signature}`,
      )
      const mail = await smtp.waitFor(
        (message) =>
          JSON.stringify(message.to).includes(subscriber.user.email) &&
          /new pick/.test(message.subject ?? ''),
      )
      expect(mail.subject).toContain('new pick')
      expect(mail.text).toContain('Celtics (moneyline) @ 1.65')
      expect(mail.text).toContain(`Sealed in the public record: commitment ${commitment}.`)
      expect(mail.text).toContain(`Signed record head #1: root ${head.rootHash}, timestamp ${head.timestamp}`)
      expect(mail.text).toContain(head.signature)
      // Nothing more is coming: the others get nothing, and nothing is sent twice.
      await eventually(
        () => t.app.services.jobs.pending('email.bulk'),
        (pending) => pending === 0,
      )
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      const to = (session: Session) =>
        smtp.messages.filter(
          (message) =>
            JSON.stringify(message.to).includes(session.user.email) && /new pick/.test(message.subject ?? ''),
        )
      expect(to(subscriber)).toHaveLength(1)
      expect(to(optedOut)).toHaveLength(0)
      expect(to(noAccess)).toHaveLength(0)
      expect(posts()).toHaveLength(1)
    } finally {
      await t.close()
      await smtp.close()
      await emulator.close()
    }
  }, 60_000)
})
