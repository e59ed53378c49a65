import { afterEach, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from './helpers/test-app'

/**
 * Per-IP limits count the client the server can vouch for: X-Forwarded-For is read only as far as
 * TRUST_PROXY allows, so a client cannot get a fresh budget by writing a new address in the header.
 */
describe('TRUST_PROXY and the client address', () => {
  let t: TestApp | undefined
  afterEach(async () => {
    await t?.close()
    t = undefined
  })

  const start = async (trustProxy?: string) => {
    t = await createTestApp({
      env: trustProxy === undefined ? {} : { TRUST_PROXY: trustProxy },
      configure: (config) => {
        config.limits.globalPerMinute = 3
      },
    })
    return t
  }

  /** Four calls, each claiming another address in X-Forwarded-For ahead of `via`. */
  const fourCalls = async (app: TestApp, remoteAddress: string, via?: string) => {
    const statuses: number[] = []
    for (let i = 1; i <= 4; i++) {
      const forwarded = [`198.51.100.${i}`, ...(via ? [via] : [])].join(', ')
      const response = await app.app.inject({
        method: 'GET',
        url: '/discord/api/config',
        remoteAddress,
        headers: { 'x-forwarded-for': forwarded },
      })
      statuses.push(response.statusCode)
    }
    return statuses
  }

  const loggedAddresses = (app: TestApp) =>
    app
      .logLines<{ req?: { ip?: string; url?: string } }>()
      .filter((line) => line.req?.url === '/discord/api/config')
      .map((line) => line.req?.ip)

  it('without TRUST_PROXY, X-Forwarded-For is ignored: the connection is the client', async () => {
    const app = await start()
    expect(await fourCalls(app, '203.0.113.9')).toEqual([200, 200, 200, 429])
    expect(new Set(loggedAddresses(app))).toEqual(new Set(['203.0.113.9']))
  })

  it('with one proxy (TRUST_PROXY=1), the address the proxy adds is the client; what the client wrote is not', async () => {
    const app = await start('1')
    // The load balancer (10.0.0.2) appends the address it saw; the client wrote the rest itself.
    expect(await fourCalls(app, '10.0.0.2', '192.0.2.44')).toEqual([200, 200, 200, 429])
    expect(new Set(loggedAddresses(app))).toEqual(new Set(['192.0.2.44']))
    const other = await app.app.inject({
      method: 'GET',
      url: '/discord/api/config',
      remoteAddress: '10.0.0.2',
      headers: { 'x-forwarded-for': '192.0.2.45' },
    })
    expect(other.statusCode).toBe(200)
  })

  it('with a count, a client reaching the server directly from the Internet is not believed', async () => {
    const app = await start('1')
    expect(await fourCalls(app, '203.0.113.9')).toEqual([200, 200, 200, 429])
    expect(new Set(loggedAddresses(app))).toEqual(new Set(['203.0.113.9']))
  })

  it('with proxy addresses (TRUST_PROXY=10.0.0.0/8), only those proxies are believed', async () => {
    const app = await start('10.0.0.0/8')
    expect(await fourCalls(app, '10.1.2.3', '192.0.2.50')).toEqual([200, 200, 200, 429])
    expect(await fourCalls(app, '203.0.113.10')).toEqual([200, 200, 200, 429])
    expect(new Set(loggedAddresses(app))).toEqual(new Set(['192.0.2.50', '203.0.113.10']))
  })

  it('refuses to start with TRUST_PROXY=true', async () => {
    await expect(start('true')).rejects.toThrow(/TRUST_PROXY must not be true/)
  })
})
