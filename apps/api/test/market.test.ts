import { type Emulator, startEmulator } from '@edgeclub/emulator'
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from './helpers/test-app'

describe('live prices', () => {
  let emulator: Emulator
  beforeAll(async () => {
    emulator = await startEmulator()
  })
  afterAll(() => emulator.close())

  let t: TestApp | undefined
  afterEach(async () => {
    await t?.close()
    emulator.prices.recover()
  })

  const appWithCache = async (cacheMs: number) => {
    t = await createTestApp({
      env: { PRICE_FEED_URL: emulator.priceFeedUrl },
      configure: (config) => {
        config.limits.priceCacheMs = cacheMs
      },
    })
    return t
  }

  it('PRICES-09 PRICES-14 returns BTC, ETH and SOL as price items (symbol, name, price, 24h change)', async () => {
    emulator.prices.set('bitcoin', 67432.18, 2.41)
    const { app } = await appWithCache(30_000)
    const response = await app.inject({ method: 'GET', url: '/discord/api/market/prices' })
    expect(response.statusCode).toBe(200)
    const { data } = response.json()
    expect(data.prices.map((item: { id: string }) => item.id)).toEqual(['bitcoin', 'ethereum', 'solana'])
    expect(data.prices[0]).toEqual({
      id: 'bitcoin',
      symbol: 'btc',
      name: 'Bitcoin',
      current_price: 67432.18,
      price_change_percentage_24h: 2.41,
    })
    expect(data.stale).toBe(false)
    expect(Date.parse(data.updatedAt)).toBeGreaterThan(Date.now() - 60_000)
  })

  it('asks the feed at most once per cache window, however many visitors ask at once', async () => {
    const { app } = await appWithCache(30_000)
    const before = emulator.prices.requests
    const responses = await Promise.all(
      Array.from({ length: 25 }, () => app.inject({ method: 'GET', url: '/discord/api/market/prices' })),
    )
    expect(responses.every((response) => response.statusCode === 200)).toBe(true)
    await app.inject({ method: 'GET', url: '/discord/api/market/prices' })
    expect(emulator.prices.requests - before).toBe(1)
  })

  it('keeps serving the last good copy, marked stale with its age, while the feed fails', async () => {
    const { app } = await appWithCache(150)
    const first = (await app.inject({ method: 'GET', url: '/discord/api/market/prices' })).json()
    emulator.prices.fail(500)
    await new Promise((resolve) => setTimeout(resolve, 1_100))
    const response = await app.inject({ method: 'GET', url: '/discord/api/market/prices' })
    expect(response.statusCode).toBe(200)
    const { data } = response.json()
    expect(data.prices).toEqual(first.data.prices)
    expect(data.stale).toBe(true)
    expect(data.ageSeconds).toBeGreaterThanOrEqual(1)
    expect(data.updatedAt).toBe(first.data.updatedAt)
  })

  it('answers UPSTREAM_ERROR only when it never had prices', async () => {
    emulator.prices.fail(503)
    const { app } = await appWithCache(30_000)
    const response = await app.inject({ method: 'GET', url: '/discord/api/market/prices' })
    expect(response.statusCode).toBe(502)
    expect(response.json()).toMatchObject({ success: false, error: 'UPSTREAM_ERROR' })
  })
})
