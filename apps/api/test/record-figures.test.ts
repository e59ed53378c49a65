import { execFile } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { promisify } from 'node:util'
import { DEFAULT_CLAIMS, type LedgerEntry } from '@edgeclub/shared'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { applyClaims } from '../src/plugins/web'
import { as, login, register, type Session } from './helpers/members'
import { createTestApp, type TestApp, testClock } from './helpers/test-app'

const API = '/discord/api'
const ADMIN = { email: 'figures.ops@edgeclub.test', password: 'Ops$ecret123' }
const MINUTE = 60_000
const HOUR = 60 * MINUTE
const root = path.resolve(import.meta.dirname, '../../..')

describe('the record is computed from the ledger alone', () => {
  let t: TestApp
  let origin: string
  const clock = testClock()
  let admin: Session

  beforeAll(async () => {
    t = await createTestApp({ clock, env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password } })
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' })
    admin = await login(t.app, ADMIN.email, ADMIN.password)
  })
  afterAll(async () => {
    await t.close()
  })

  const call = (method: 'GET' | 'POST' | 'PUT', url: string, payload?: object, token?: string) =>
    token
      ? as(t.app, token, { method, url: `${API}${url}`, payload })
      : t.app.inject({ method, url: `${API}${url}`, payload })
  const pick = (overrides: Record<string, unknown> = {}) => ({
    kind: 'pick',
    sport: 'NBA',
    event: 'Lakers vs Suns',
    startsAt: new Date(clock.now().getTime() + 2 * MINUTE).toISOString(),
    market: 'moneyline',
    selection: 'Lakers',
    odds: 2.1,
    stake: 1,
    ...overrides,
  })
  const publish = async (body: object) => {
    const response = await call('POST', '/signals', body, admin.accessToken)
    expect(response.statusCode, response.body).toBe(201)
    return response.json().data as { id: string; commitment: string }
  }
  const ledger = async () =>
    (await call('GET', '/record/ledger?limit=1000')).json().data.entries as LedgerEntry[]
  const cli = (target: string) =>
    promisify(execFile)(process.execPath, ['--import', 'tsx', 'scripts/verify-record.ts', target], {
      cwd: root,
    }).then(
      (result) => ({ code: 0, out: result.stdout }),
      (error: { code: number; stdout: string }) => ({ code: error.code, out: error.stdout }),
    )

  it('a signal row rewritten in its table (triggers off) moves neither /record nor the signal’s public page, and verify-record still agrees', async () => {
    const since = clock.now().toISOString()
    clock.advance(1_000)
    const won = await publish(pick({ odds: 2.1 }))
    const voided = await publish(pick({ selection: 'Suns', odds: 1.8 }))
    const voidBefore = await call(
      'POST',
      `/signals/${voided.id}/void`,
      { reason: 'Line moved' },
      admin.accessToken,
    )
    expect(voidBefore.statusCode, voidBefore.body).toBe(200)
    clock.advance(5 * MINUTE)
    try {
      const settled = await call(
        'POST',
        `/signals/${won.id}/settle`,
        { result: 'won', closingOdds: 1.95 },
        admin.accessToken,
      )
      expect(settled.statusCode, settled.body).toBe(200)
    } finally {
      clock.reset()
    }
    // The settle entry carries the closing odds entered at settlement.
    const entry = (await ledger()).find((item) => item.signalId === won.id && item.type === 'settle')
    expect(entry?.data).toEqual({ result: 'won', profitUnits: 1.1, closingOdds: 1.95 })

    const own = async () => (await call('GET', `/record?since=${encodeURIComponent(since)}`)).json().data
    const before = await own()
    expect(before.overall).toMatchObject({ settled: 1, won: 1, void: 1, profitUnits: 1.1, roi: 1.1 })
    expect(before.picks).toMatchObject({ settled: 1, void: 1, lateVoid: 0, profitUnits: 1.1 })
    expect(before.picks.closingLine.picks).toBe(1)

    // A table owner bypasses the triggers and rewrites the void as "won, +50 u".
    const db = t.database.db
    await sql`alter table signals disable trigger user`.execute(db)
    try {
      await sql`update signals set status = 'settled', result = 'won', profit_units = 50, void_reason = null
        where id = ${voided.id}`.execute(db)
    } finally {
      await sql`alter table signals enable trigger user`.execute(db)
    }
    // A new entry makes every instance recompute the shared /record.
    await publish(pick({ selection: 'Over 220.5', market: 'total' }))

    const after = await own()
    const { asOf: _a, live: _l, head: _h, commitments: _c, picks: picksAfter, ...restAfter } = after
    const { asOf: _b, live: _m, head: _i, commitments: _d, picks: picksBefore, ...restBefore } = before
    expect(restAfter).toEqual(restBefore)
    expect({ ...picksAfter, pending: 0 }).toEqual({ ...picksBefore, pending: 0 })
    const page = (await call('GET', `/record/signals/${voided.id}`)).json().data
    expect(page).toMatchObject({ status: 'void', result: null, profitUnits: null, voidReason: 'Line moved' })
    const shared = (await call('GET', '/record')).json().data
    expect(shared.overall.profitUnits).toBeLessThan(50)

    const verified = await cli(origin)
    expect(verified.out).toMatch(/^OK: \d+ entries chain correctly/)
    expect(verified.out).toContain('Figures: the published figures')
    expect(verified.code).toBe(0)

    // A record whose figures were doctored on their way out is caught against its own ledger.
    const dir = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-figures-'))
    try {
      const entries = await ledger()
      const signals = await Promise.all(
        [...new Set(entries.filter((item) => item.type !== 'publish').map((item) => item.signalId))].map(
          async (id) => (await call('GET', `/record/signals/${id}`)).json().data,
        ),
      )
      const doctored = structuredClone(shared)
      doctored.overall.profitUnits += 50
      await fs.writeFile(
        path.join(dir, 'record.json'),
        JSON.stringify({ entries, signals, record: doctored }),
      )
      const caught = await cli(path.join(dir, 'record.json'))
      expect(caught.out).toContain(
        'MISMATCH in the figures: the published record differs from its ledger at overall.profitUnits',
      )
      expect(caught.code).toBe(1)
    } finally {
      await fs.rm(dir, { recursive: true, force: true })
    }
  }, 180_000)

  it('counts commitments that fell due unrevealed as overdue after 24 hours, and a void after the start only with its mark, apart', async () => {
    // After every publication so far: the test before published a second ahead of the clock it then
    // reset, so when it ran in under a second its picks fell after a `since` taken from the clock.
    const published = (await ledger())
      .filter((item) => item.type === 'publish')
      .map((item) => Date.parse(item.at))
    clock.advance(Math.max(0, Math.max(...published) + 1 - clock.now().getTime()))
    const since = clock.now().toISOString()
    clock.advance(1_000)
    const sealed = await publish(pick({ sport: 'NHL', event: 'Rangers vs Bruins', selection: 'Rangers' }))
    const late = await publish(pick({ sport: 'NHL', event: 'Kings vs Ducks', selection: 'Kings' }))
    clock.advance(5 * MINUTE)
    try {
      const unmarked = await call(
        'POST',
        `/signals/${late.id}/void`,
        { reason: 'Goalie scratched' },
        admin.accessToken,
      )
      expect(unmarked.statusCode).toBe(400)
      expect(unmarked.json().message).toMatch(/late void/)
      const marked = await call(
        'POST',
        `/signals/${late.id}/void`,
        { reason: 'Goalie scratched', afterStart: true },
        admin.accessToken,
      )
      expect(marked.statusCode, marked.body).toBe(200)
      const entry = (await ledger()).find((item) => item.signalId === late.id && item.type === 'void')
      expect(entry?.data).toEqual({ reason: 'Goalie scratched', afterStart: true })

      const own = async () => (await call('GET', `/record?since=${encodeURIComponent(since)}`)).json().data
      const soon = await own()
      expect(soon.commitments).toMatchObject({
        made: 2,
        due: 2,
        revealed: 1,
        overdue: 0,
        voided: 1,
        lateVoided: 1,
      })
      expect(soon.lateVoids).toEqual([
        expect.objectContaining({
          signalId: late.id,
          reason: 'Goalie scratched',
          kind: 'pick',
          category: 'NHL',
        }),
      ])

      clock.advance(25 * HOUR)
      const dayLater = await own()
      expect(dayLater.commitments).toMatchObject({ made: 2, due: 2, revealed: 1, overdue: 1, lateVoided: 1 })
      expect(dayLater.overdueCommitments).toEqual([
        expect.objectContaining({ signalId: sealed.id, commitment: sealed.commitment, category: 'NHL' }),
      ])
      expect(dayLater.picks).toMatchObject({
        pending: 1,
        void: 1,
        lateVoid: 1,
        enoughSettled: false,
        yield: null,
      })
    } finally {
      clock.reset()
    }
  })

  it('the claims default to the pages’ texts; the console warns where a typed claim contradicts the record and refuses the record’s own figures below the minimum sample', async () => {
    const shown = await call('GET', '/claims')
    expect(shown.statusCode).toBe(200)
    expect(shown.json().data).toEqual({
      members: '15,000+',
      aiAccuracy: '95%',
      winRate: '78%',
      trackRecord: '3+ years',
      fromRecord: false,
    })
    const member = await register(t.app)
    expect((await call('GET', '/admin/claims', undefined, member.accessToken)).statusCode).toBe(403)
    expect((await call('GET', '/admin/claims')).statusCode).toBe(401)

    const settings = (await call('GET', '/admin/claims', undefined, admin.accessToken)).json().data
    expect(settings).toMatchObject({ ...DEFAULT_CLAIMS, showRecordFigures: false })
    // The record so far: one pick won of one decided (earlier tests), published this month.
    expect(settings.record).toMatchObject({
      settledPicks: 1,
      decidedPicks: 1,
      winRate: 1,
      canShowRecord: false,
    })
    expect(settings.warnings).toEqual(
      expect.arrayContaining([
        'The pages claim a 78% win rate; the verified record says 100.0% over 1 decided picks.',
        expect.stringMatching(/^The pages claim a track record of 3\+ years; the verified record starts in /),
        expect.stringMatching(/AI 95% accuracy" is not measured by the verified record/),
      ]),
    )

    const early = await call(
      'PUT',
      '/admin/claims',
      { ...DEFAULT_CLAIMS, showRecordFigures: true },
      admin.accessToken,
    )
    expect(early.statusCode).toBe(400)
    expect(early.json().message).toBe(
      "The record's own figures can be shown once 25 picks have settled (1 so far)",
    )

    const saved = await call(
      'PUT',
      '/admin/claims',
      { ...DEFAULT_CLAIMS, winRate: '100%', trackRecord: 'one week', showRecordFigures: false },
      admin.accessToken,
    )
    expect(saved.statusCode, saved.body).toBe(200)
    expect(saved.json().data.warnings).toEqual([expect.stringMatching(/AI 95% accuracy/)])
    expect((await call('GET', '/claims')).json().data).toMatchObject({
      winRate: '100%',
      trackRecord: 'one week',
    })
    const blank = await call(
      'PUT',
      '/admin/claims',
      { ...DEFAULT_CLAIMS, winRate: ' ', showRecordFigures: false },
      admin.accessToken,
    )
    expect(blank.statusCode).toBe(400)
  })

  it('/record keeps its ETag while time passes and nothing falls due, and moves on when a commitment falls due', async () => {
    await publish(pick({ startsAt: new Date(clock.now().getTime() + 4 * HOUR).toISOString() }))
    // Past the start of every pick published before this one: what follows falls due only here.
    clock.advance(3 * HOUR)
    const recomputed = async (headers: Record<string, string> = {}) => {
      // What the cache does every few seconds (or on NOTIFY): compute the record afresh.
      t.app.services.signals.recordChanged.invalidate()
      return t.app.inject({ method: 'GET', url: `${API}/record`, headers })
    }
    const first = await recomputed()
    const etag = String(first.headers.etag)
    clock.advance(30 * MINUTE)
    const later = await recomputed({ 'if-none-match': etag })
    expect(later.statusCode).toBe(304)
    clock.advance(HOUR)
    const due = await recomputed({ 'if-none-match': etag })
    expect(due.statusCode).toBe(200)
    expect(due.json().data.commitments.due).toBe(first.json().data.commitments.due + 1)
  })

  it('the server writes the owner’s claims into a prerendered page, its description and island props included, and leaves other text alone', () => {
    const html =
      '<meta name="description" content="15,000+ members, a 78% win rate over 3+ years."/>' +
      '<p>Join <span data-claim="members">15,000+</span> members, a <span data-claim="winRate">78%</span> win rate over <span data-claim="trackRecord">3+ years</span>. Tip: 78%</p>' +
      '<div data-island="price-card" data-island-props="{&quot;aiAccuracy&quot;:&quot;95%&quot;}"><p>AI <span data-claim="aiAccuracy">95%</span> Accuracy</p></div>'
    const out = applyClaims(html, {
      members: '15,000+',
      aiAccuracy: '90% <b>',
      winRate: '69.2%',
      trackRecord: '120 decided picks since Mar 2026 on the verified record',
      fromRecord: true,
    })
    expect(out).toBe(
      '<meta name="description" content="15,000+ members, a 69.2% win rate over 120 decided picks since Mar 2026 on the verified record."/>' +
        '<p>Join <span data-claim="members">15,000+</span> members, a <span data-claim="winRate">69.2%</span> win rate over <span data-claim="trackRecord">120 decided picks since Mar 2026 on the verified record</span>. Tip: 78%</p>' +
        '<div data-island="price-card" data-island-props="{&quot;aiAccuracy&quot;:&quot;90% &lt;b&gt;&quot;}"><p>AI <span data-claim="aiAccuracy">90% &lt;b&gt;</span> Accuracy</p></div>',
    )
  })
})
