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

/**
 * The local time of an update as toLocaleTimeString('en-US') writes it ('3:05:09 PM'; the tests
 * compare the two), without Intl: the price card is the only thing on the landing page that formats
 * a time, and a page's first Intl formatter costs the browser 10 to 20 ms of main thread.
 */
export function formatUpdateTime(at: string | number): string {
  const date = new Date(at)
  if (Number.isNaN(date.getTime())) return date.toLocaleTimeString('en-US')
  const hours = date.getHours()
  const two = (value: number) => String(value).padStart(2, '0')
  return `${hours % 12 || 12}:${two(date.getMinutes())}:${two(date.getSeconds())} ${hours < 12 ? 'AM' : 'PM'}`
}
