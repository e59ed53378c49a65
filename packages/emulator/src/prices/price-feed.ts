import { parseJson, type Router, sendJson } from '../http'

/**
 * CoinGecko's /api/v3/coins/markets for bitcoin, ethereum and solana. Prices drift a little on
 * every request so a watching person sees the card move; a control route makes the feed fail.
 */

interface Coin {
  id: string
  symbol: string
  name: string
  price: number
  change: number
}

export interface PriceFeedControl {
  fail(status?: number): void
  recover(): void
  set(id: string, price: number, change: number): void
  /** How many times the feed was asked (tests check the app's caching with it). */
  readonly requests: number
}

export function mountPriceFeed(router: Router, base = '/coingecko'): PriceFeedControl {
  const coins: Coin[] = [
    { id: 'bitcoin', symbol: 'btc', name: 'Bitcoin', price: 67_432.18, change: 2.41 },
    { id: 'ethereum', symbol: 'eth', name: 'Ethereum', price: 3_521.07, change: -1.27 },
    { id: 'solana', symbol: 'sol', name: 'Solana', price: 148.62, change: 5.83 },
  ]
  let failStatus: number | undefined
  let requests = 0
  let drift = true

  router.on('GET', `${base}/api/v3/coins/markets`, ({ res, url }) => {
    requests += 1
    if (failStatus) return sendJson(res, failStatus, { error: 'emulated price feed failure' })
    const wanted = (url.searchParams.get('ids') ?? '').split(',').filter(Boolean)
    const now = new Date().toISOString()
    const items = coins
      .filter((coin) => wanted.length === 0 || wanted.includes(coin.id))
      .map((coin) => {
        if (drift) coin.price = Math.round(coin.price * (1 + (Math.random() - 0.5) * 0.002) * 100) / 100
        return {
          id: coin.id,
          symbol: coin.symbol,
          name: coin.name,
          image: '',
          current_price: coin.price,
          price_change_percentage_24h: coin.change,
          last_updated: now,
        }
      })
    sendJson(res, 200, items)
  })

  const control: PriceFeedControl = {
    fail: (status = 503) => {
      failStatus = status
    },
    recover: () => {
      failStatus = undefined
    },
    set: (id, price, change) => {
      const coin = coins.find((entry) => entry.id === id)
      if (!coin) throw new Error(`unknown coin ${id}`)
      coin.price = price
      coin.change = change
      drift = false
    },
    get requests() {
      return requests
    },
  }

  router.on('POST', '/_control/prices/fail', ({ res, url }) => {
    control.fail(Number(url.searchParams.get('status') ?? 503))
    sendJson(res, 200, { ok: true })
  })
  router.on('POST', '/_control/prices/recover', ({ res }) => {
    control.recover()
    sendJson(res, 200, { ok: true })
  })
  router.on('POST', '/_control/prices/set', ({ res, rawBody }) => {
    const body = parseJson(rawBody) as { id: string; price: number; change: number }
    control.set(body.id, body.price, body.change)
    sendJson(res, 200, { ok: true })
  })
  router.on('GET', '/_control/prices', ({ res }) =>
    sendJson(res, 200, { requests, failing: failStatus ?? null }),
  )
  return control
}
