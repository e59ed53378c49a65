import { groupThousands, numberFormat, roundedDigits } from './intl'

/** Money is stored in integer minor units; the API speaks major units (29.99), like a plan's price. */

const ZERO_DECIMAL = new Set(['JPY', 'KRW', 'VND', 'CLP', 'ISK', 'HUF', 'TWD', 'UGX'])

export function minorUnitDigits(currency: string): number {
  return ZERO_DECIMAL.has(currency.toUpperCase()) ? 0 : 2
}

export function toMinorUnits(amount: number, currency: string): number {
  return Math.round(amount * 10 ** minorUnitDigits(currency))
}

export function fromMinorUnits(minor: number, currency: string): number {
  return minor / 10 ** minorUnitDigits(currency)
}

/**
 * A dollar amount with the given number of decimals, exactly as Intl.NumberFormat('en-US',
 * { style: 'currency', currency: 'USD' }) writes it (the tests compare the two over tens of
 * thousands of amounts), without making a formatter: a page's first Intl formatter costs the
 * browser 10 to 20 ms of main thread (it loads locale data), and the public pages show dollars only.
 */
export function formatUsd(amount: number, decimals: number): string {
  const size = Math.abs(amount)
  // Below 1e-6 the amount shows as zero; amounts whose cents a double cannot count exactly (and NaN
  // and Infinity) Intl writes.
  if (!(size * 10 ** decimals < Number.MAX_SAFE_INTEGER)) return intlFormat('USD', decimals).format(amount)
  const { whole, fraction } = size < 1e-6 ? roundedDigits(0, decimals) : roundedDigits(size, decimals)
  const sign = amount < 0 || Object.is(amount, -0) ? '-' : ''
  return `${sign}$${groupThousands(whole)}${fraction ? `.${fraction}` : ''}`
}

function intlFormat(currency: string, decimals?: number): Intl.NumberFormat {
  return numberFormat({
    style: 'currency',
    currency,
    ...(decimals === undefined ? {} : { minimumFractionDigits: decimals, maximumFractionDigits: decimals }),
  })
}

/** '$29.99', '€5.00': the amount with its currency symbol, as every price and total is shown. */
export function formatMoney(amount: number, currency: string): string {
  const code = currency.toUpperCase()
  return code === 'USD' ? formatUsd(amount, 2) : intlFormat(code).format(amount)
}
