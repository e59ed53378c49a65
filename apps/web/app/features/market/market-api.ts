import { API_BASE, hasEveryCoin, INVALID_PRICE_DATA, type MarketPrices } from '@edgeclub/shared'

/** Prices come from our server's cached copy; the browser never calls the third-party feed. */
export async function fetchMarketPrices(signal: AbortSignal): Promise<MarketPrices> {
  const response = await fetch(`${API_BASE}/market/prices`, {
    signal,
    headers: { accept: 'application/json' },
  })
  // A failed price fetch reads 'API Error: {status}'.
  if (!response.ok) throw new Error(`API Error: ${response.status}`)
  const body = (await response.json().catch(() => undefined)) as { data?: Partial<MarketPrices> } | undefined
  const data = body?.data
  // An answer without bitcoin, ethereum and solana is not a price list.
  if (!data || !Array.isArray(data.prices) || !hasEveryCoin(data.prices)) throw new Error(INVALID_PRICE_DATA)
  return data as MarketPrices
}
