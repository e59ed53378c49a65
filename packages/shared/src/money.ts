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

// One formatter per currency, made once: making a formatter costs far more than formatting with it.
const moneyFormats = new Map<string, Intl.NumberFormat>()

/** '$29.99', '€5.00': the amount with its currency symbol, as every price and total is shown. */
export function formatMoney(amount: number, currency: string): string {
  const code = currency.toUpperCase()
  let format = moneyFormats.get(code)
  if (!format) {
    format = new Intl.NumberFormat('en-US', { style: 'currency', currency: code })
    moneyFormats.set(code, format)
  }
  return format.format(amount)
}
