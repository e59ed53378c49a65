import type { CryptoPrice } from './market'
import { formatUsd } from './money'

/** The coins the price card shows, in display order, with the feed's ids. */
export const MARKET_COINS = [
  { id: 'bitcoin', symbol: 'btc', name: 'Bitcoin' },
  { id: 'ethereum', symbol: 'eth', name: 'Ethereum' },
  { id: 'solana', symbol: 'sol', name: 'Solana' },
] as const

/** The price card refreshes every 30 seconds. */
export const PRICE_REFRESH_MS = 30_000

export const INVALID_PRICE_DATA = 'Invalid data received from API'

/** A price response must contain bitcoin, ethereum and solana. */
export function hasEveryCoin(prices: readonly Pick<CryptoPrice, 'id'>[]): boolean {
  return MARKET_COINS.every((coin) => prices.some((price) => price.id === coin.id))
}

/** With no data at all, the card shows these. */
export function placeholderPrices(): CryptoPrice[] {
  return MARKET_COINS.map((coin) => ({ ...coin, current_price: 0, price_change_percentage_24h: 0 }))
}

/** 1000 or more with no decimals and thousands separators, below that 2 decimals. */
export function formatUsdPrice(price: number): string {
  return formatUsd(price, Math.abs(price) >= 1000 ? 0 : 2)
}

/** One decimal and an explicit plus sign when non-negative. */
export function formatPercentChange(change: number): string {
  return `${change >= 0 ? '+' : ''}${change.toFixed(1)}%`
}
