import { randomUUID } from 'node:crypto'
import net from 'node:net'
import { textMessages } from '@edgeclub/shared'
import type { InjectOptions } from 'fastify'
import { type Kysely, sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import type { DB } from '../src/db/types'
import { login, newMember, register, type Session } from './helpers/members'
import { apiOperations, type Operation, stringFields } from './helpers/openapi'
import { parseHead, rawGet } from './helpers/raw-get'
import { createTestApp, type TestApp } from './helpers/test-app'

const ADMIN = { email: 'guard@edgeclub.test', password: 'Guard$ecret123' }
/** What every API answer carries (HSTS too, in production). */
const API_SECURITY_HEADERS = [
  'content-security-policy',
  'cross-origin-resource-policy',
  'x-content-type-options',
  'x-frame-options',
]
/** A page's alone: they protect a document, and an API answer never is one. */
const PAGE_ONLY_HEADERS = [
  'cross-origin-opener-policy',
  'origin-agent-cluster',
  'referrer-policy',
  'x-dns-prefetch-control',
  'x-download-options',
  'x-permitted-cross-domain-policies',
  'x-xss-protection',
]

type Sample = {
  path?: Record<string, string>
  query?: Record<string, string>
  body?: Record<string, unknown>
  /** Other valid requests of the same route, for fields only another variant of its body has. */
  variants?: Sample[]
}

/**
 * Every table's rows, as one digest per table: a refused request changes none of them. The job queue's
 * own bookkeeping (job_effects, mail_deliveries) is left out: it records background work of earlier
 * requests.
 */
async function fingerprint(db: Kysely<DB>): Promise<string[]> {
  const tables = await sql<{ name: string }>`
    select table_name as name from information_schema.tables
    where table_schema = 'public' and table_type = 'BASE TABLE'
      and table_name not like 'kysely%' and table_name not in ('job_effects', 'mail_deliveries')
    order by 1`.execute(db)
  const digests: string[] = []
  for (const { name } of tables.rows) {
    const { rows } = await sql<{ n: number; digest: string }>`
      select count(*)::int as n, md5(coalesce(string_agg(t::text, '|' order by t::text), '')) as digest
      from ${sql.table(name)} t`.execute(db)
    digests.push(`${name}:${rows[0]?.n}:${rows[0]?.digest}`)
  }
  return digests
}

function setAt(target: unknown, path: (string | number)[], value: unknown): void {
  let node = target as Record<string | number, unknown>
  for (const key of path.slice(0, -1)) node = node[key] as Record<string | number, unknown>
  node[path[path.length - 1]!] = value
}

function getAt(source: unknown, path: (string | number)[]): unknown {
  let node = source as Record<string | number, unknown> | undefined
  for (const key of path) node = node?.[key] as Record<string | number, unknown> | undefined
  return node
}

function toRequest(operation: Operation, sample: Sample, token: string | undefined): InjectOptions {
  const url =
    operation.path.replace(/\{(\w+)\}/g, (_, name: string) => encodeURIComponent(sample.path?.[name] ?? '')) +
    (sample.query ? `?${new URLSearchParams(sample.query).toString()}` : '')
  return {
    method: operation.method as InjectOptions['method'],
    url,
    ...(sample.body !== undefined ? { payload: sample.body } : {}),
    headers: token ? { authorization: `Bearer ${token}` } : {},
  }
}

describe('request guards', () => {
  let t: TestApp
  let admin: Session
  let member: Session & { password: string }
  let operations: Operation[]
  let samples: Record<string, Sample>

  beforeAll(async () => {
    t = await createTestApp({
      env: { ADMIN_EMAIL: ADMIN.email, ADMIN_PASSWORD: ADMIN.password },
      configure: (config) => {
        config.limits.contactPerHour = 10_000
      },
    })
    admin = await login(t.app, ADMIN.email, ADMIN.password)
    member = await register(t.app)
    operations = apiOperations(t.app)
    const plan = await t.database.db
      .selectFrom('plans')
      .select('id')
      .where('slug', '=', 'monthly')
      .executeTakeFirstOrThrow()
    const id = { id: randomUUID() }
    const page = { search: 'ann', sortOrder: 'desc' }
    const planBody = {
      name: 'Guarded',
      slug: 'guarded',
      description: 'A plan\nover two lines',
      price: 9.5,
      currency: 'USD',
      interval: 'month',
      intervalCount: 1,
      features: ['Picks'],
      isPopular: false,
      sortOrder: 1,
      isActive: true,
      places: { discordRoles: 'all', telegramChats: 'all', signalCategories: 'all' },
    }
    const chosenPlaces = {
      ...planBody,
      places: { discordRoles: [randomUUID()], telegramChats: [randomUUID()], signalCategories: ['NBA'] },
    }
    const pushSubscription = {
      endpoint: 'https://fcm.googleapis.com/fcm/send/guarded-device',
      keys: { p256dh: `B${'A'.repeat(86)}`, auth: 'A'.repeat(22) },
    }
    // A valid request for every route that takes strings: the test changes one string at a time.
    samples = {
      'POST /discord/api/auth/register': { body: newMember() },
      'POST /discord/api/auth/login': {
        body: { email: member.user.email, password: member.password, rememberMe: false },
      },
      'POST /discord/api/auth/refresh-token': { body: { refreshToken: 'r'.repeat(43) } },
      'PUT /discord/api/auth/profile': {
        body: {
          firstName: 'Ann',
          lastName: 'Punter',
          discordUsername: 'ann_bets',
          tradingInterests: 'sports-betting',
          emailUpdates: true,
          email: 'ann.new@example.com',
          currentPassword: member.password,
        },
      },
      'PUT /discord/api/auth/password': {
        body: { currentPassword: member.password, newPassword: 'Fresh$tart22' },
      },
      'POST /discord/api/auth/forgot-password': { body: { email: member.user.email } },
      'POST /discord/api/auth/reset-password': { body: { token: 't'.repeat(43), password: 'Fresh$tart22' } },
      'POST /discord/api/contact': {
        body: { name: 'Ann', email: 'ann@example.com', subject: 'general', message: 'Hello\nthere' },
      },
      'GET /discord/api/payments/history': {
        query: { ...page, sortBy: 'createdAt', provider: 'stripe' },
      },
      'POST /discord/api/payments/create-intent': {
        body: { planId: plan.id, currency: 'USD', promoCode: 'SPRING' },
      },
      'POST /discord/api/payments/confirm': {
        body: { paymentIntentId: 'pi_123' },
        variants: [{ body: { setupIntentId: 'seti_123' } }],
      },
      'POST /discord/api/payments/retry/{id}': { path: id },
      'POST /discord/api/subscriptions/create': {
        body: { planId: plan.id, currency: 'USD', promoCode: 'SPRING' },
      },
      'GET /discord/api/subscriptions/history': { query: { ...page, sortBy: 'createdAt' } },
      'PUT /discord/api/subscriptions/{id}/cancel': {
        path: id,
        body: { reason: 'other', detail: 'Taking\na break' },
      },
      'GET /discord/api/subscriptions/change-plan/preview': { query: { planId: plan.id } },
      'POST /discord/api/subscriptions/change-plan': {
        body: { planId: plan.id, prorationDate: new Date().toISOString() },
      },
      'POST /discord/api/subscriptions/payment-method/confirm': { body: { setupIntentId: 'seti_123' } },
      'POST /discord/api/subscriptions/retention/accept': {
        body: { offer: 'pause', periods: 1, reason: 'temporary', detail: 'Back\nsoon' },
      },
      'POST /discord/api/admin/users/{id}/pause': { path: { id: member.user.id }, body: { periods: 1 } },
      'POST /discord/api/admin/users/{id}/free-days': { path: { id: member.user.id }, body: { days: 3 } },
      'PUT /discord/api/admin/billing-settings': {
        body: { retentionPromoCodeId: plan.id, retentionOffersPause: true },
      },
      'GET /discord/api/promo-codes/{code}': { path: { code: 'SPRING' }, query: { planId: plan.id } },
      'POST /discord/api/admin/promo-codes': {
        body: {
          code: 'SPRING',
          amountOff: 5,
          currency: 'USD',
          duration: 'repeating',
          durationInMonths: 2,
          audience: 'new',
          planIds: [plan.id],
          expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
          maxRedemptions: 10,
        },
      },
      'POST /discord/api/admin/promo-codes/{id}/deactivate': { path: { id: plan.id } },
      'POST /discord/api/subscriptions/{id}/renew': { path: id },
      'POST /discord/api/tips/create': {
        body: { amount: 5, currency: 'USD', message: 'Thanks!\nGreat pick' },
      },
      'GET /discord/api/tips/status/{id}': { path: id },
      'POST /discord/api/payments/create-crypto': { body: { planId: plan.id, promoCode: 'SPRING' } },
      'POST /discord/api/admin/users/kick': { body: { userId: member.user.id, reason: 'Spam' } },
      'POST /discord/api/admin/users/ban': { body: { userId: member.user.id, reason: 'Spam' } },
      'POST /discord/api/admin/users/unban': { body: { userId: member.user.id, reason: 'Appeal' } },
      'POST /discord/api/admin/broadcast': {
        body: {
          broadcastId: '5f0c6f4e-8a35-4b9c-9d63-1f2e3a4b5c6d',
          message: 'New picks\nare up',
          title: 'Picks',
          alsoEmail: false,
        },
      },
      'GET /discord/api/admin/users': {
        query: { ...page, sortBy: 'createdAt', role: 'member', format: 'csv' },
      },
      'GET /discord/api/admin/users/{id}': { path: { id: member.user.id } },
      'POST /discord/api/admin/users/{id}/grant': {
        path: { id: member.user.id },
        body: { days: 7, planId: plan.id, note: 'Comp' },
      },
      'POST /discord/api/admin/users/{id}/role': { path: { id: member.user.id }, body: { role: 'member' } },
      'POST /discord/api/admin/users/{id}/disable': {
        path: { id: member.user.id },
        body: { disabled: true },
      },
      'GET /discord/api/admin/subscriptions': {
        query: { ...page, sortBy: 'createdAt', status: 'active', format: 'csv' },
      },
      'GET /discord/api/admin/payments': {
        query: { ...page, sortBy: 'createdAt', provider: 'stripe', status: 'completed', format: 'csv' },
      },
      'POST /discord/api/admin/payments/{id}/refund': { path: id, body: { amount: 1, reason: 'Twice' } },
      'GET /discord/api/admin/audit': { query: { ...page, targetId: member.user.id } },
      'GET /discord/api/admin/plans': { query: { ...page, sortBy: 'name', includeArchived: 'true' } },
      'POST /discord/api/admin/plans': { body: planBody, variants: [{ body: chosenPlaces }] },
      'POST /discord/api/admin/places': {
        body: { kind: 'telegram_chat', chat: '@edgeclub_picks', signalCategories: 'all' },
        variants: [
          { body: { kind: 'telegram_chat', chat: '@edgeclub_picks', signalCategories: ['NBA'] } },
          { body: { kind: 'discord_role', roleId: '123456789012345678' } },
        ],
      },
      'PUT /discord/api/admin/places/{id}': {
        path: { id: randomUUID() },
        body: { signalCategories: 'all' },
        variants: [{ path: { id: randomUUID() }, body: { signalCategories: ['NBA'] } }],
      },
      'DELETE /discord/api/admin/places/{id}': { path: { id: randomUUID() } },
      'PUT /discord/api/admin/claims': {
        body: {
          members: '15,000+',
          aiAccuracy: '95%',
          winRate: '78%',
          trackRecord: '3+ years',
          showRecordFigures: false,
        },
      },
      'POST /discord/api/push/subscriptions': {
        body: { subscription: pushSubscription, preferences: { kinds: ['picks'], sports: ['NBA'] } },
      },
      'DELETE /discord/api/push/subscriptions': { body: { endpoint: pushSubscription.endpoint } },
      'PUT /discord/api/push/preferences': { body: { kinds: ['picks'], sports: ['NBA'] } },
      'GET /discord/api/admin/plans/{id}': { path: { id: plan.id } },
      'PUT /discord/api/admin/plans/{id}': {
        path: { id: plan.id },
        body: planBody,
        variants: [{ path: { id: plan.id }, body: chosenPlaces }],
      },
      'DELETE /discord/api/admin/plans/{id}': { path: { id: plan.id } },
      'POST /discord/api/admin/plans/{id}/toggle': { path: { id: plan.id } },
      'POST /discord/api/signals': {
        body: {
          kind: 'pick',
          sport: 'NFL',
          league: 'Week 12',
          event: 'Chiefs vs Bills',
          startsAt: new Date(Date.now() + 3_600_000).toISOString(),
          market: 'spread',
          selection: 'Chiefs -3.5',
          odds: 1.91,
          stake: 1,
          analysis: 'Two lines\nof analysis',
        },
        variants: [
          {
            body: {
              kind: 'signal',
              instrument: 'BTC',
              direction: 'long',
              entry: 100,
              target: 110,
              stop: 95,
              expiresAt: new Date(Date.now() + 86_400_000).toISOString(),
              analysis: 'Breakout',
            },
          },
        ],
      },
      'POST /discord/api/signals/{id}/settle': { path: id, body: { result: 'won' } },
      'POST /discord/api/signals/{id}/void': { path: id, body: { reason: 'Postponed' } },
      'GET /discord/api/signals': { query: { kind: 'pick', category: 'NFL' } },
      'GET /discord/api/record': { query: { since: new Date().toISOString() } },
      'GET /discord/api/record/ledger': { query: { format: 'json' } },
      'GET /discord/api/record/signals/{id}': { path: id },
      'POST /discord/api/discord/connect/callback': {
        body: { code: 'a-code', state: 'a-state', error: 'access_denied', errorDescription: 'Cancelled' },
      },
    }
  })
  afterAll(() => t.close())

  const tokenFor = (operation: Operation) =>
    (operation.path.startsWith('/discord/api/admin/') ||
      (operation.path.startsWith('/discord/api/signals') && operation.method === 'POST')) &&
    operation.secured
      ? admin.accessToken
      : operation.secured
        ? member.accessToken
        : undefined

  it('refuses a NUL (or another control character) in every string of every route with a field error, changing nothing', async () => {
    const before = await fingerprint(t.database.db)
    const problems: string[] = []
    let checked = 0
    for (const operation of operations) {
      const locations = [
        ...Object.entries(operation.pathParams).flatMap(([name, schema]) =>
          stringFields(schema, [name]).map((field) => ({ in: 'path' as const, ...field })),
        ),
        ...Object.entries(operation.query).flatMap(([name, schema]) =>
          stringFields(schema, [name]).map((field) => ({ in: 'query' as const, ...field })),
        ),
        ...(operation.body ? stringFields(operation.body).map((f) => ({ in: 'body' as const, ...f })) : []),
      ]
      if (locations.length === 0) continue
      const sample = samples[operation.key]
      if (!sample) {
        problems.push(`${operation.key}: add a valid sample request to this test`)
        continue
      }
      for (const location of locations) {
        const name = location.path.join('.')
        const base = [sample, ...(sample.variants ?? [])].find(
          (candidate) => typeof getAt(candidate[location.in], location.path) === 'string',
        )
        const original = base ? getAt(base[location.in], location.path) : undefined
        if (!base || typeof original !== 'string') {
          problems.push(`${operation.key}: the sample has no string for ${location.in} ${name}`)
          continue
        }
        for (const bad of [`${original}\u0000`, `${original.slice(0, 1)}\u001b${original.slice(1)}`]) {
          const { variants: _variants, ...changed } = structuredClone(base)
          setAt(changed[location.in], location.path, bad)
          const response = await t.app.inject(toRequest(operation, changed, tokenFor(operation)))
          checked += 1
          const body = response.json()
          const fieldErrors = (body.errors ?? []) as { field: string; message: string }[]
          const named = fieldErrors.filter((error) => error.field === name)
          const ok =
            response.statusCode === 400 &&
            body.error === 'VALIDATION_ERROR' &&
            (location.freeText
              ? named.some((error) => error.message === textMessages.controlCharacter)
              : named.length > 0)
          if (!ok)
            problems.push(
              `${operation.key} ${location.in} ${name} ${JSON.stringify(bad)}: ${response.statusCode} ${response.body.slice(0, 200)}`,
            )
        }
      }
    }
    expect(problems).toEqual([])
    expect(checked).toBeGreaterThan(100)
    expect(await fingerprint(t.database.db)).toEqual(before)
  })

  it('keeps line breaks and tabs in multi-line fields and refuses them in one-line fields', async () => {
    const contact = (body: Record<string, string>) =>
      t.app.inject({
        method: 'POST',
        url: '/discord/api/contact',
        payload: { name: 'Ann', email: 'ann@example.com', subject: 'general', message: 'Hi', ...body },
      })
    expect((await contact({ message: 'Line one\r\nLine two\tend' })).statusCode).toBe(201)
    const oneLine = await contact({ name: 'Ann\nEvil' })
    expect(oneLine.statusCode).toBe(400)
    expect(oneLine.json().errors).toEqual([{ field: 'name', message: textMessages.controlCharacter }])
  })

  it('answers 401 before validating anything on every route that needs a token, and 403 to members on admin routes', async () => {
    const problems: string[] = []
    const secured = operations.filter((operation) => operation.secured)
    expect(secured.length).toBeGreaterThan(30)
    for (const operation of secured) {
      const bad: Sample = {
        path: Object.fromEntries(Object.keys(operation.pathParams).map((name) => [name, 'x\u0000'])),
        query: Object.fromEntries(Object.keys(operation.query).map((name) => [name, '\u0000'])),
        body: operation.method === 'GET' ? undefined : { unexpected: ['not', 'a', 'valid', 'body'] },
      }
      const anonymous = await t.app.inject(toRequest(operation, bad, undefined))
      if (anonymous.statusCode !== 401 || anonymous.json().error !== 'UNAUTHORIZED')
        problems.push(
          `${operation.key} without a token: ${anonymous.statusCode} ${anonymous.body.slice(0, 120)}`,
        )
      if (operation.path.startsWith('/discord/api/admin/')) {
        const asMember = await t.app.inject(toRequest(operation, bad, member.accessToken))
        if (asMember.statusCode !== 403 || asMember.json().error !== 'FORBIDDEN')
          problems.push(`${operation.key} as a member: ${asMember.statusCode} ${asMember.body.slice(0, 120)}`)
      }
    }
    expect(problems).toEqual([])
  })

  it('answers 415 in the envelope to a body that is not JSON, on every route that takes a body', async () => {
    const problems: string[] = []
    const withBody = operations.filter((operation) => operation.method !== 'GET')
    expect(withBody.length).toBeGreaterThan(30)
    for (const operation of withBody) {
      for (const [type, payload] of [
        ['text/plain', '{"email":"ann@example.com"}'],
        ['application/x-www-form-urlencoded', 'email=ann%40example.com'],
        ['application/xml', '<email>ann@example.com</email>'],
      ] as const) {
        const request = toRequest(
          operation,
          samples[operation.key] ?? { path: { id: randomUUID() } },
          tokenFor(operation),
        )
        const response = await t.app.inject({
          ...request,
          payload,
          headers: { ...request.headers, 'content-type': type },
        })
        const body = response.json()
        // Telegram's webhook refuses a caller without its secret before it reads the body.
        if (operation.key === 'POST /discord/api/webhooks/telegram') {
          if (response.statusCode !== 401 || body.success !== false || body.error !== 'UNAUTHORIZED')
            problems.push(`${operation.key} ${type}: ${response.statusCode} ${response.body.slice(0, 120)}`)
          continue
        }
        if (
          response.statusCode !== 415 ||
          body.success !== false ||
          body.error !== 'VALIDATION_ERROR' ||
          body.message !== 'Send the request body as application/json'
        )
          problems.push(`${operation.key} ${type}: ${response.statusCode} ${response.body.slice(0, 120)}`)
      }
    }
    expect(problems).toEqual([])
  })

  describe('malformed URLs', () => {
    const securityHeaders = (headers: Record<string, unknown>) =>
      Object.fromEntries([...API_SECURITY_HEADERS, ...PAGE_ONLY_HEADERS].map((name) => [name, headers[name]]))

    it('get the JSON envelope, a request id and the security headers every other API answer has', async () => {
      const normal = await t.app.inject({ method: 'GET', url: '/discord/api/config' })
      const expected = securityHeaders(normal.headers)
      for (const name of API_SECURITY_HEADERS) expect(expected[name], name).toEqual(expect.any(String))
      for (const url of ['/discord/api/%E0%A4%A', '/discord/api/admin/users/%E0%A4%A', '/%E0%A4%A']) {
        const response = await t.app.inject({ method: 'GET', url })
        expect(response.statusCode, url).toBe(400)
        expect(response.json()).toEqual({
          success: false,
          error: 'VALIDATION_ERROR',
          message: 'The request URL is malformed',
        })
        expect(securityHeaders(response.headers)).toEqual(expected)
        expect(response.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
      }
    })

    it('get the same over a real connection', async () => {
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' })
      const response = await rawGet(address, '/discord/api/%E0%A4%A')
      expect(response.statusCode).toBe(400)
      expect(response.json()).toMatchObject({ success: false, error: 'VALIDATION_ERROR' })
      const normal = await t.app.inject({ method: 'GET', url: '/discord/api/config' })
      expect(securityHeaders(response.headers)).toEqual(securityHeaders(normal.headers))
    })
  })

  describe('requests Node refuses before Fastify sees them', () => {
    const securityHeaderNames = [...API_SECURITY_HEADERS, ...PAGE_ONLY_HEADERS, 'strict-transport-security']
    /** Writes raw bytes on a new connection; resolves with everything the server sent before closing. */
    const rawExchange = async (bytes: string) => {
      const address = await t.app.listen({ port: 0, host: '127.0.0.1' }).catch(() => {
        const bound = t.app.server.address() as net.AddressInfo
        return `http://127.0.0.1:${bound.port}`
      })
      const { port } = new URL(address)
      return new Promise<{ text: string; closed: boolean }>((resolve, reject) => {
        const socket = net.connect(Number(port), '127.0.0.1', () => socket.write(bytes))
        let text = ''
        socket.on('data', (chunk) => {
          text += chunk.toString('utf8')
        })
        socket.on('error', reject)
        socket.on('close', () => resolve({ text, closed: true }))
        setTimeout(() => resolve({ text, closed: false }), 5_000)
      })
    }
    const parse = (text: string) => {
      const [head = '', body = ''] = text.split('\r\n\r\n')
      return { ...parseHead(head), body }
    }

    it.each([
      ['a malformed header line', 'GET /discord/api/config HTTP/1.1\r\nHost: x\r\nNot a header\r\n\r\n', 400],
      [
        'a chunked body that cannot be parsed',
        'POST /discord/api/auth/login HTTP/1.1\r\nHost: x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\nZZ\r\n{}\r\n0\r\n\r\n',
        400,
      ],
      [
        'headers too large',
        `GET /discord/api/config HTTP/1.1\r\nHost: x\r\nX-Big: ${'a'.repeat(20_000)}\r\n\r\n`,
        431,
      ],
    ])(
      '%s: the envelope and the security headers, then the connection closes',
      async (_name, bytes, status) => {
        const normal = await t.app.inject({ method: 'GET', url: '/discord/api/config' })
        const { text, closed } = await rawExchange(bytes)
        const answer = parse(text)
        expect(answer.status).toBe(status)
        expect(JSON.parse(answer.body)).toMatchObject({ success: false, error: 'VALIDATION_ERROR' })
        for (const name of securityHeaderNames)
          expect(answer.headers[name], name).toBe(normal.headers[name] as string | undefined)
        expect(answer.headers.connection).toBe('close')
        expect(closed).toBe(true)
      },
    )

    it('a body that is not JSON gets the envelope and the security headers', async () => {
      const response = await t.app.inject({
        method: 'POST',
        url: '/discord/api/auth/login',
        headers: { 'content-type': 'application/json' },
        payload: '{"email": ',
      })
      expect(response.statusCode).toBe(400)
      expect(response.json()).toEqual({
        success: false,
        error: 'VALIDATION_ERROR',
        message: 'The request body is not valid JSON',
      })
      expect(response.headers['x-frame-options']).toBe('DENY')
      expect(response.headers['content-security-policy']).toContain("frame-ancestors 'none'")
    })
  })

  it("API answers and their errors carry an API answer's security headers, pages a page's", async () => {
    const answers = [
      await t.app.inject({ method: 'GET', url: '/discord/api/config' }),
      await t.app.inject({
        method: 'GET',
        url: '/discord/api/payments/history',
        headers: { authorization: `Bearer ${member.accessToken}` },
      }),
      await t.app.inject({ method: 'GET', url: '/discord/api/payments/history' }),
      await t.app.inject({ method: 'GET', url: '/discord/api/nothing-here' }),
      await t.app.inject({ method: 'GET', url: '/discord/api/%E0%A4%A' }),
    ]
    expect(answers.map((answer) => answer.statusCode)).toEqual([200, 200, 401, 404, 400])
    for (const answer of answers) {
      const where = `${answer.statusCode}`
      expect(answer.headers['content-security-policy'], where).toBe(
        "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
      )
      expect(answer.headers['cross-origin-resource-policy'], where).toBe('same-origin')
      expect(answer.headers['x-content-type-options'], where).toBe('nosniff')
      expect(answer.headers['x-frame-options'], where).toBe('DENY')
      for (const name of PAGE_ONLY_HEADERS) expect(answer.headers[name], `${where} ${name}`).toBeUndefined()
    }
    const page = await t.app.inject({ method: 'GET', url: '/pricing' })
    expect(String(page.headers['content-security-policy'])).toContain("script-src 'self'")
    for (const name of PAGE_ONLY_HEADERS) expect(page.headers[name], name).toEqual(expect.any(String))
  })

  it("sends base-uri 'none' in the Content-Security-Policy of API answers and errors", async () => {
    for (const url of ['/discord/api/config', '/discord/api/nothing-here', '/discord/api/%E0%A4%A']) {
      const response = await t.app.inject({ method: 'GET', url })
      expect(String(response.headers['content-security-policy']), url).toContain("base-uri 'none'")
    }
  })
})
