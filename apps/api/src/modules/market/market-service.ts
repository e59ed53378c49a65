import type { CryptoPrice, MarketPrices } from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import { upstreamError } from '../../lib/errors'

/**
 * Live prices through one cached copy: the feed is asked at most once per cacheMs whatever the
 * number of visitors (concurrent callers share one request), the last good copy keeps being served
 * with its age while the feed fails, and only a server that never had prices answers an error.
 */
export function createMarketService(deps: {
  fetchPrices: () => Promise<CryptoPrice[]>
  cacheMs: number
  log: FastifyBaseLogger
  now?: () => number
}) {
  const now = deps.now ?? Date.now
  let good: { prices: CryptoPrice[]; at: number } | undefined
  let lastAttemptAt = Number.NEGATIVE_INFINITY
  let lastFailure: string | undefined
  let inFlight: Promise<void> | undefined

  const snapshot = (): MarketPrices => {
    if (!good) throw upstreamError('Live prices are unavailable right now. Please try again shortly.')
    const ageMs = now() - good.at
    return {
      prices: good.prices,
      updatedAt: new Date(good.at).toISOString(),
      ageSeconds: Math.max(0, Math.floor(ageMs / 1000)),
      stale: ageMs >= deps.cacheMs,
    }
  }

  const refresh = async () => {
    lastAttemptAt = now()
    try {
      good = { prices: await deps.fetchPrices(), at: now() }
      lastFailure = undefined
    } catch (error) {
      const message = error instanceof Error ? error.message : String(error)
      if (message !== lastFailure)
        deps.log.warn({ reason: message }, 'price feed failed; serving the last good copy')
      lastFailure = message
    }
  }

  const getPrices = async (): Promise<MarketPrices> => {
    if (now() - lastAttemptAt >= deps.cacheMs) {
      inFlight ??= refresh().finally(() => {
        inFlight = undefined
      })
    }
    if (inFlight) await inFlight
    return snapshot()
  }

  return {
    getPrices,
  }
}
export type MarketService = ReturnType<typeof createMarketService>
