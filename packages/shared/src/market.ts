import { z } from 'zod'

/** One crypto price as the API serves it. */
export const CryptoPriceSchema = z.object({
  id: z.string(),
  symbol: z.string(),
  name: z.string(),
  current_price: z.number(),
  price_change_percentage_24h: z.number(),
})
export type CryptoPrice = z.infer<typeof CryptoPriceSchema>

/** GET /market/prices data: the cached copy and how old it is. */
export const MarketPricesSchema = z.object({
  prices: z.array(CryptoPriceSchema),
  updatedAt: z.string(),
  ageSeconds: z.number().int(),
  stale: z.boolean(),
})
export type MarketPrices = z.infer<typeof MarketPricesSchema>
