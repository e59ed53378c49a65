import type { CryptoPrice } from './market'

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

/**
 * 1000 or more with no decimals and thousands separators, below that 2 decimals: exactly what
 * Intl.NumberFormat('en-US', { style: 'currency', currency: 'USD' }) writes with those decimals
 * (the tests compare the two), without making a formatter. The landing page's price card is the
 * only thing on it that formats numbers, and a page's first Intl formatter costs the browser 10 to
 * 20 ms of main thread (it loads locale data).
 */
export function formatUsdPrice(price: number): string {
  const size = Math.abs(price)
  const decimals = size >= 1000 ? 0 : 2
  // Below 1e-6 the price shows as zero; from 1e21 (and for NaN and Infinity) Intl writes it.
  if (!(size < 1e21)) {
    return new Intl.NumberFormat('en-US', {
      style: 'currency',
      currency: 'USD',
      minimumFractionDigits: decimals,
      maximumFractionDigits: decimals,
    }).format(price)
  }
  // Like Intl: round the shortest decimal form of the number (0.015, not 0.01499…), halves up.
  const units = size < 1e-6 ? 0 : Math.round(Number(`${size}e${decimals}`))
  const digits = String(units).padStart(decimals + 1, '0')
  const whole = decimals ? digits.slice(0, -decimals) : digits
  const fraction = decimals ? `.${digits.slice(-decimals)}` : ''
  const sign = price < 0 || Object.is(price, -0) ? '-' : ''
  return `${sign}$${whole.replace(/\B(?=(\d{3})+$)/g, ',')}${fraction}`
}

/** One decimal and an explicit plus sign when non-negative. */
export function formatPercentChange(change: number): string {
  return `${change >= 0 ? '+' : ''}${change.toFixed(1)}%`
}
