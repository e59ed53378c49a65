import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from './helpers/test-app'

describe('the API foundation', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({
      // A route that fails the way a bug would: with internals in its message.
      routes: (app) =>
        app.get('/discord/api/__boom', async () => {
          throw new Error('select password_hash from users where email = $1')
        }),
    })
  })
  afterAll(() => t.close())

  it('API-01 answers unknown API routes with the NOT_FOUND envelope', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/discord/api/nothing-here' })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toEqual({
      success: false,
      error: 'NOT_FOUND',
      message: expect.stringContaining('/discord/api/nothing-here'),
    })
  })

  it('answers a POST to an unknown path with the JSON envelope too', async () => {
    const response = await t.app.inject({ method: 'POST', url: '/nowhere', payload: {} })
    expect(response.statusCode).toBe(404)
    expect(response.json()).toMatchObject({ success: false, error: 'NOT_FOUND' })
  })

  it('rejects malformed JSON with a 400 VALIDATION_ERROR', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/discord/api/contact',
      headers: { 'content-type': 'application/json' },
      payload: '{"name": "Ann",',
    })
    expect(response.statusCode).toBe(400)
    expect(response.json()).toEqual({
      success: false,
      error: 'VALIDATION_ERROR',
      message: 'The request body is not valid JSON',
    })
  })

  it('rejects a body over 1 MB with 413', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/discord/api/contact',
      headers: { 'content-type': 'application/json' },
      payload: JSON.stringify({ message: 'x'.repeat(1024 * 1024 + 10) }),
    })
    expect(response.statusCode).toBe(413)
    expect(response.json()).toMatchObject({
      success: false,
      error: 'VALIDATION_ERROR',
      message: expect.stringContaining('1 MB'),
    })
  })

  it('turns an unexpected error into a 500 with a request id and no internals', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/discord/api/__boom' })
    expect(response.statusCode).toBe(500)
    const body = response.json()
    expect(body).toMatchObject({
      success: false,
      error: 'INTERNAL',
      requestId: response.headers['x-request-id'],
    })
    expect(body.message).toContain(String(response.headers['x-request-id']))
    expect(response.body).not.toMatch(/select|password_hash|at .*\.ts/i)
  })

  it('gives every response a request id, keeping a well-formed one the caller sent', async () => {
    const mine = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': 'trace-1234567' },
    })
    expect(mine.headers['x-request-id']).toBe('trace-1234567')
    const bad = await t.app.inject({
      method: 'GET',
      url: '/healthz',
      headers: { 'x-request-id': '<script>' },
    })
    expect(bad.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
  })

  it('reports liveness and database readiness', async () => {
    const live = await t.app.inject({ method: 'GET', url: '/healthz' })
    expect(live.json()).toEqual({ success: true, data: { status: 'ok' } })
    const ready = await t.app.inject({ method: 'GET', url: '/readyz' })
    expect(ready.statusCode).toBe(200)
    expect(ready.json()).toEqual({ success: true, data: { status: 'ready', database: 'ok' } })
  })

  it('sends pages a strict Content-Security-Policy that allows only itself and Stripe', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/pricing' })
    const csp = String(response.headers['content-security-policy'])
    expect(csp).toContain("default-src 'self'")
    expect(csp).toContain("script-src 'self' https://js.stripe.com")
    expect(csp).toContain('frame-src https://js.stripe.com https://hooks.stripe.com')
    expect(csp).not.toContain('unsafe-inline')
    expect(response.headers['x-content-type-options']).toBe('nosniff')
  })

  it('compresses large JSON answers for clients that accept it', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/discord/api/openapi.json',
      headers: { 'accept-encoding': 'gzip' },
    })
    expect(response.headers['content-encoding']).toBe('gzip')
  })

  it('publishes the OpenAPI document and its docs page', async () => {
    const spec = await t.app.inject({ method: 'GET', url: '/discord/api/openapi.json' })
    expect(spec.statusCode).toBe(200)
    const document = spec.json()
    expect(document.openapi).toMatch(/^3\./)
    expect(Object.keys(document.paths)).toEqual(
      expect.arrayContaining([
        '/discord/api/admin/plans/public/active',
        '/discord/api/market/prices',
        '/discord/api/contact',
      ]),
    )
    const docs = await t.app.inject({ method: 'GET', url: '/discord/api/docs/' })
    expect(docs.statusCode).toBe(200)
    expect(docs.headers['content-type']).toContain('text/html')
    // A page: it may run its own scripts and styles, and carries a page's other headers.
    expect(String(docs.headers['content-security-policy'])).toContain("script-src 'self'")
    expect(docs.headers['cross-origin-opener-policy']).toBe('same-origin')
  })

  it('serves the public client configuration without secrets', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/discord/api/config' })
    expect(response.json()).toEqual({
      success: true,
      data: {
        stripePublishableKey: null,
        stripeJsUrl: null,
        cryptoEnabled: false,
        discordEnabled: false,
        pushStandInUrl: null,
      },
    })
  })
})

describe('per-IP rate limiting', () => {
  let t: TestApp
  beforeAll(async () => {
    t = await createTestApp({
      configure: (config) => {
        config.limits.globalPerMinute = 3
      },
    })
  })
  afterAll(() => t.close())

  it('answers RATE_LIMITED with Retry-After once an IP exceeds its budget', async () => {
    const statuses: number[] = []
    let last: Awaited<ReturnType<typeof t.app.inject>> | undefined
    for (let i = 0; i < 4; i++) {
      last = await t.app.inject({ method: 'GET', url: '/discord/api/config', remoteAddress: '10.0.0.7' })
      statuses.push(last.statusCode)
    }
    expect(statuses).toEqual([200, 200, 200, 429])
    expect(last?.json()).toMatchObject({ success: false, error: 'RATE_LIMITED' })
    expect(Number(last?.headers['retry-after'])).toBeGreaterThan(0)
    const otherIp = await t.app.inject({
      method: 'GET',
      url: '/discord/api/config',
      remoteAddress: '10.0.0.8',
    })
    expect(otherIp.statusCode).toBe(200)
  })

  it('the shared public record is never limited; a record computed per request (since a date) spends the address budget', async () => {
    const record = (query: string) =>
      t.app.inject({ method: 'GET', url: `/discord/api/record${query}`, remoteAddress: '10.0.0.9' })
    for (let i = 0; i < 6; i++) expect((await record('')).statusCode).toBe(200)
    const since = `?since=${encodeURIComponent('2026-01-01T00:00:00.000Z')}`
    const statuses: number[] = []
    for (let i = 0; i < 3; i++) statuses.push((await record(since)).statusCode)
    // The budget is the address's one API budget: the per-request record took what was left of it.
    const other = await t.app.inject({ method: 'GET', url: '/discord/api/config', remoteAddress: '10.0.0.9' })
    expect(statuses).toEqual([200, 200, 200])
    expect(other.statusCode).toBe(429)
    const limited = await record(since)
    expect(limited.statusCode).toBe(429)
    expect(limited.json()).toMatchObject({ success: false, error: 'RATE_LIMITED' })
    expect((await record('')).statusCode).toBe(200)
  })
})
