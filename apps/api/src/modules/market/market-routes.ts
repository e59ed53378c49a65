import { MarketPricesSchema } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { sendCachedJson } from '../../lib/cached-json'
import { envelope } from '../../lib/envelope'
import { HOT_ROUTE } from '../../lib/hot-route'
import type { MarketService } from './market-service'

export const marketRoutes: FastifyPluginAsyncZod<{ market: MarketService }> = async (app, { market }) => {
  app.get(
    '/market/prices',
    {
      ...HOT_ROUTE,
      schema: {
        tags: ['market'],
        summary: 'BTC, ETH and SOL in USD with the 24h change, from the server-side cache',
        response: { 200: envelope(MarketPricesSchema) },
      },
    },
    // The server refreshes its copy every PRICE_CACHE_SECONDS; a browser or CDN may keep one for a few
    // seconds (the body says how old it is) and revalidates it cheaply by ETag.
    async (request, reply) =>
      sendCachedJson(
        request,
        reply,
        await market.getPricesCached(),
        'public, max-age=5, stale-while-revalidate=25',
      ),
  )
}
