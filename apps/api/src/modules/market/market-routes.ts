import { MarketPricesSchema } from '@edgeclub/shared'
import type { FastifyPluginAsync } from 'fastify'
import { cachedJsonRoute } from '../../lib/cached-route'
import type { MarketService } from './market-service'

export const marketRoutes: FastifyPluginAsync<{ market: MarketService }> = async (app, { market }) => {
  // The server refreshes its copy every PRICE_CACHE_SECONDS; a browser or CDN may keep one for a few
  // seconds (the body says how old it is, in seconds: hence a copy of at most one second here) and
  // revalidates it cheaply by ETag.
  cachedJsonRoute(app, {
    url: '/market/prices',
    tags: ['market'],
    summary: 'BTC, ETH and SOL in USD with the 24h change, from the server-side cache',
    data: MarketPricesSchema,
    load: () => market.getPrices(),
    ttlMs: 1_000,
    cacheControl: 'public, max-age=5, stale-while-revalidate=25',
  })
}
