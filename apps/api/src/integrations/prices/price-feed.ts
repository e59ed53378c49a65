import { type CryptoPrice, hasEveryCoin, MARKET_COINS } from '@edgeclub/shared'
import { z } from 'zod'

/** The part of CoinGecko's /coins/markets answer we read. */
const FeedItemSchema = z.object({
  id: z.string(),
  symbol: z.string(),
  name: z.string(),
  current_price: z.number(),
  price_change_percentage_24h: z.number().nullable().optional(),
})

class PriceFeedError extends Error {
  override name = 'PriceFeedError'
}

export type FetchLike = (
  url: string,
  init: { signal: AbortSignal; headers: Record<string, string> },
) => Promise<Response>

/** Fetches BTC, ETH and SOL from the feed, in the card's order, or throws PriceFeedError. */
export async function fetchPrices(
  url: string,
  options: { timeoutMs: number; fetch?: FetchLike },
): Promise<CryptoPrice[]> {
  const doFetch = options.fetch ?? (globalThis.fetch as FetchLike)
  let response: Response
  try {
    response = await doFetch(url, {
      signal: AbortSignal.timeout(options.timeoutMs),
      headers: { accept: 'application/json' },
    })
  } catch (error) {
    throw new PriceFeedError(
      `price feed unreachable: ${error instanceof Error ? error.message : String(error)}`,
    )
  }
  if (!response.ok) throw new PriceFeedError(`price feed answered ${response.status}`)
  const parsed = z.array(FeedItemSchema).safeParse(await response.json().catch(() => null))
  if (!parsed.success || !hasEveryCoin(parsed.data))
    throw new PriceFeedError('price feed sent data without bitcoin, ethereum and solana')

  return MARKET_COINS.map((coin) => {
    const item = parsed.data.find((entry) => entry.id === coin.id)!
    return {
      id: coin.id,
      symbol: item.symbol,
      name: item.name,
      current_price: item.current_price,
      price_change_percentage_24h: item.price_change_percentage_24h ?? 0,
    }
  })
}
