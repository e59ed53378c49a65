import { MarketPricesSchema } from '@edgeclub/shared'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
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
    // The server's copy is the cache; a browser copy would hide a newer one on reload.
    async (_request, reply) =>
      reply
        .header('cache-control', 'no-cache')
        .type('application/json; charset=utf-8')
        .send((await market.getPricesEnvelopeJson()) as never),
  )
}
