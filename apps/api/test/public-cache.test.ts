import net from 'node:net'
import { brotliDecompressSync, gunzipSync } from 'node:zlib'
import { type Emulator, startEmulator } from '@edgeclub/emulator'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { HOT_LOG_SAMPLE } from '../src/lib/hot-route'
import { login } from './helpers/members'
import { rawAnswers, rawGet } from './helpers/raw-get'
import { createTestApp, type TestApp } from './helpers/test-app'

const API = '/discord/api'
const ADMIN = { email: 'cache.admin@edgeclub.test', password: 'Adm1n$ecure-cache' }

/** An answer as the tests read it, from Fastify's inject or from a real connection. */
type Answer = Pick<
  Awaited<ReturnType<TestApp['app']['inject']>>,
  'statusCode' | 'headers' | 'rawPayload' | 'body' | 'json'
>

/**
 * The public answers served from memory (plans, prices, the record): browsers and CDNs can keep them
 * and revalidate with a 304; compressed copies are the same JSON; a change is a new ETag. Over a real
 * connection the hot lane answers them before Fastify (lib/hot-lane.ts): the same answers.
 */
describe('cached public JSON', () => {
  let emulator: Emulator
  let t: TestApp
  let origin: string
  beforeAll(async () => {
    emulator = await startEmulator()
    t = await createTestApp({
      env: {
        PRICE_FEED_URL: emulator.priceFeedUrl,
        ADMIN_EMAIL: ADMIN.email,
        ADMIN_PASSWORD: ADMIN.password,
      },
    })
    origin = await t.app.listen({ port: 0, host: '127.0.0.1' })
  })
  afterAll(async () => {
    await t.close()
    await emulator.close()
  })

  type Get = (url: string, headers?: Record<string, string>) => Promise<Answer>
  const throughFastify: Get = (url, headers = {}) =>
    t.app.inject({ method: 'GET', url: `${API}${url}`, headers }) as Promise<Answer>
  const overTheLane: Get = (url, headers = {}) => rawGet(origin, `${API}${url}`, headers)
  const get = throughFastify
  const transports: [string, Get][] = [
    ['through Fastify', throughFastify],
    ['over a connection (the hot lane)', overTheLane],
  ]

  describe.each(transports)('%s', (_transport, get) => {
    for (const url of ['/admin/plans/public/active', '/subscriptions/plans', '/market/prices', '/record']) {
      it(`${url}: a strong ETag and a public, short Cache-Control; If-None-Match answers 304 without a body`, async () => {
        const first = await get(url)
        expect(first.statusCode).toBe(200)
        const etag = String(first.headers.etag)
        expect(etag).toMatch(/^"[A-Za-z0-9_-]+"$/)
        expect(first.headers['cache-control']).toMatch(/^public, max-age=\d+, stale-while-revalidate=\d+$/)

        const again = await get(url, { 'if-none-match': etag })
        // Prices carry their age in seconds: a second may have passed between the two requests.
        if (url === '/market/prices' && again.statusCode === 200) {
          expect(again.headers.etag).not.toBe(etag)
          return
        }
        expect(again.statusCode).toBe(304)
        expect(again.body).toBe('')
        expect(again.headers.etag).toBe(etag)
        // A list of tags, and the weak form a proxy may pass on, match too.
        expect((await get(url, { 'if-none-match': `"other", W/${etag}` })).statusCode).toBe(304)
        expect((await get(url, { 'if-none-match': '"other"' })).statusCode).toBe(200)
      })
    }

    it("carries a request id and the JSON answer's security headers (never sniffed, never framed), not the pages' ones", async () => {
      for (const url of ['/admin/plans/public/active', '/record']) {
        for (const headers of [{}, { 'accept-encoding': 'br' }] as Record<string, string>[]) {
          const answer = await get(url, headers)
          expect(answer.statusCode).toBe(200)
          expect(answer.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
          expect(answer.headers['content-security-policy']).toBe(
            "default-src 'none'; base-uri 'none'; frame-ancestors 'none'",
          )
          expect(answer.headers['x-content-type-options']).toBe('nosniff')
          expect(answer.headers['x-frame-options']).toBe('DENY')
          expect(answer.headers['content-type']).toBe('application/json; charset=utf-8')
          for (const pageOnly of ['cross-origin-opener-policy', 'origin-agent-cluster', 'x-xss-protection'])
            expect(answer.headers[pageOnly], pageOnly).toBeUndefined()
          const current = await get(url, { ...headers, 'if-none-match': String(answer.headers.etag) })
          expect(current.statusCode).toBe(304)
          expect(current.headers['x-content-type-options']).toBe('nosniff')
          expect(current.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
        }
      }
      // The same bytes with a HEAD: the headers and length, no body.
      const head = await t.app.inject({ method: 'HEAD', url: `${API}/admin/plans/public/active` })
      expect(head.statusCode).toBe(200)
      expect(head.body).toBe('')
      expect(Number(head.headers['content-length'])).toBe(
        (await get('/admin/plans/public/active')).rawPayload.length,
      )
    })

    it('sends the precompressed brotli or gzip copy the client accepts: the same JSON, its own ETag', async () => {
      const plain = await get('/admin/plans/public/active')
      const br = await get('/admin/plans/public/active', { 'accept-encoding': 'gzip, deflate, br' })
      const gzip = await get('/admin/plans/public/active', { 'accept-encoding': 'gzip' })
      const none = await get('/admin/plans/public/active', { 'accept-encoding': 'br;q=0, identity' })
      expect(br.headers['content-encoding']).toBe('br')
      expect(gzip.headers['content-encoding']).toBe('gzip')
      expect(none.headers['content-encoding']).toBeUndefined()
      expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(plain.json())
      expect(JSON.parse(gunzipSync(gzip.rawPayload).toString())).toEqual(plain.json())
      expect(new Set([plain.headers.etag, br.headers.etag, gzip.headers.etag]).size).toBe(3)
      expect(br.headers.vary).toContain('accept-encoding')
      // Any of the copies' tags says the client is current.
      const revalidated = await get('/admin/plans/public/active', {
        'accept-encoding': 'br',
        'if-none-match': String(br.headers.etag),
      })
      expect(revalidated.statusCode).toBe(304)
    })
  })

  it('the hot lane answers a connection exactly as Fastify would: the same status, headers and bytes', async () => {
    // What a connection adds (its date, keep-alive) and the request's own id differ by nature.
    const own = new Set(['date', 'connection', 'keep-alive', 'x-request-id'])
    const comparable = (answer: Answer) =>
      Object.fromEntries(Object.entries(answer.headers).filter(([name]) => !own.has(name)))
    for (const url of ['/admin/plans/public/active', '/subscriptions/plans', '/record', '/record/']) {
      const plain = await throughFastify(url)
      for (const headers of [
        {},
        { 'accept-encoding': 'gzip, deflate, br' },
        { 'accept-encoding': 'gzip' },
        { 'if-none-match': String(plain.headers.etag) },
        { 'if-none-match': '"other"', 'accept-encoding': 'br' },
      ] as Record<string, string>[]) {
        const fastify = await throughFastify(url, headers)
        const lane = await overTheLane(url, headers)
        expect(lane.statusCode, `${url} ${JSON.stringify(headers)}`).toBe(fastify.statusCode)
        expect(comparable(lane), `${url} ${JSON.stringify(headers)}`).toEqual(comparable(fastify))
        expect(lane.rawPayload.equals(fastify.rawPayload)).toBe(true)
      }
    }
    // A proxy's request id carries on; a malformed one is replaced, never echoed.
    const carried = await overTheLane('/record', { 'x-request-id': 'edge-proxy-1234abcd' })
    expect(carried.headers['x-request-id']).toBe('edge-proxy-1234abcd')
    const replaced = await overTheLane('/record', { 'x-request-id': 'bad id<script>' })
    expect(replaced.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    // A query narrows the record: Fastify answers it (the lane only holds the shared copy).
    const narrowed = await overTheLane('/record?since=2000-01-01T00:00:00.000Z')
    expect(narrowed.statusCode).toBe(200)
    const fastify = await throughFastify('/record?since=2000-01-01T00:00:00.000Z')
    expect(narrowed.json()).toEqual(fastify.json())
  })

  it('compresses answers made per request too (brotli or gzip, as accepted), the same JSON', async () => {
    const plain = await get('/openapi.json')
    const br = await get('/openapi.json', { 'accept-encoding': 'br' })
    const gzip = await get('/openapi.json', { 'accept-encoding': 'gzip' })
    expect(br.headers['content-encoding']).toBe('br')
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(JSON.parse(brotliDecompressSync(br.rawPayload).toString())).toEqual(plain.json())
    expect(JSON.parse(gunzipSync(gzip.rawPayload).toString())).toEqual(plain.json())
    expect(br.rawPayload.length).toBeLessThan(plain.rawPayload.length / 3)
  })

  it('a plan edited by an admin is a new answer with a new ETag at once; the old ETag gets the new body', async () => {
    const before = await get('/admin/plans/public/active')
    const admin = await login(t.app, ADMIN.email, ADMIN.password)
    const plan = before.json().data[0] as { id: string; description: string }
    const updated = await t.app.inject({
      method: 'PUT',
      url: `${API}/admin/plans/${plan.id}`,
      headers: { authorization: `Bearer ${admin.accessToken}` },
      payload: { description: `${plan.description} Now with weekly reviews.` },
    })
    expect(updated.statusCode).toBe(200)
    const after = await get('/admin/plans/public/active', { 'if-none-match': String(before.headers.etag) })
    expect(after.statusCode).toBe(200)
    expect(after.headers.etag).not.toBe(before.headers.etag)
    expect(after.json().data[0].description).toContain('Now with weekly reviews.')
  })

  describe.each(transports)('%s', (_transport, get) => {
    it('logs one successful answer of a hot route in a hundred, and every other outcome', async () => {
      const lines = () =>
        t
          .logLines<{ msg?: string; req?: { url?: string }; sampled?: number }>()
          .filter((line) => line.req?.url === `${API}/record`)
      const before = lines().length
      for (let i = 0; i < 2 * HOT_LOG_SAMPLE; i++) expect((await get('/record')).statusCode).toBe(200)
      const logged = lines().slice(before)
      // Two hundred answers of this route: its own two sampled lines, whatever other routes answered.
      expect(logged).toHaveLength(2)
      expect(
        logged.every((line) => line.msg === 'request completed' && line.sampled === HOT_LOG_SAMPLE),
      ).toBe(true)
      // A refused request is always logged.
      const refused = () =>
        t
          .logLines<{ req?: { url?: string }; res?: { statusCode?: number } }>()
          .filter(
            (line) => line.req?.url === `${API}/record?since=not-a-date` && line.res?.statusCode === 400,
          )
      const refusedBefore = refused().length
      const bad = await get('/record?since=not-a-date')
      expect(bad.statusCode).toBe(400)
      expect(refused().length - refusedBefore).toBe(1)
    })
  })
})

describe('the hot lane while the server closes', () => {
  it('a request arriving on a kept-alive connection during a close is answered, with Connection: close', async () => {
    const t = await createTestApp()
    let closing: Promise<void> | undefined
    try {
      const { port } = new URL(await t.app.listen({ port: 0, host: '127.0.0.1' }))
      const socket = net.connect(Number(port), '127.0.0.1')
      const answers = rawAnswers(socket)
      const request = `GET ${API}/subscriptions/plans HTTP/1.1\r\nHost: edgeclub.test\r\n`
      // One write: a whole request, then half the headers of the next. The lane answers the first and
      // keeps the connection; the second has begun, so the connection is busy, not idle, when the close
      // begins, and is kept open for it.
      socket.write(`${request}\r\n${request}`)
      const first = await answers.next()
      expect(first.status).toBe(200)
      expect(first.headers.connection).toBe('keep-alive')
      closing = t.close()
      await expect.poll(() => t.app.server.listening).toBe(false)
      socket.write('\r\n')
      // Answered in full, and told to go elsewhere next time; then the connection ends.
      const second = await answers.next()
      expect(second.status).toBe(200)
      expect(JSON.parse(second.body)).toEqual(JSON.parse(first.body))
      expect(second.headers.connection).toBe('close')
      await answers.closed()
    } finally {
      await (closing ?? t.close())
    }
  })
})
