/**
 * How numbers and dates read everywhere (en-US). Two costs shape this file, measured in Chromium and
 * Node alike:
 * - `toLocaleString` with a locale or options makes a new Intl formatter on every call, and making
 *   one costs far more than using it. A Signals tab of twenty cards spent ~40 ms of a phone's main
 *   thread (150 ms at Lighthouse's 4× CPU slowdown) on formatters for "Stake 1 unit" and its dates,
 *   again on every render. Formatters are made once here, keyed by their options.
 * - A page's first Intl formatter costs ~20 ms more (the locale's data), and its first of each kind
 *   ~7 ms. The numbers, days and moments a signal card or a list shows are written here without Intl,
 *   exactly as Intl writes them (the tests compare the two over thousands of values); anything else
 *   goes to a cached formatter.
 */

const numberFormats = new Map<string, Intl.NumberFormat>()
const dateFormats = new Map<string, Intl.DateTimeFormat>()

/** The formatter made for these options, made now if it is the first time they are asked for. */
function cached<Format>(formats: Map<string, Format>, options: object, make: () => Format): Format {
  const key = JSON.stringify(options)
  let format = formats.get(key)
  if (!format) {
    format = make()
    formats.set(key, format)
  }
  return format
}

export function numberFormat(options: Intl.NumberFormatOptions = {}): Intl.NumberFormat {
  return cached(numberFormats, options, () => new Intl.NumberFormat('en-US', options))
}

/** Dates in the reader's own time zone unless the options name one, as `toLocaleString` writes them. */
export function dateFormat(options: Intl.DateTimeFormatOptions): Intl.DateTimeFormat {
  return cached(dateFormats, options, () => new Intl.DateTimeFormat('en-US', options))
}

/** "1234567" as "1,234,567". */
export function groupThousands(digits: string): string {
  return digits.replace(/\B(?=(\d{3})+$)/g, ',')
}

/**
 * A non-negative number's digits rounded to `decimals` places as Intl rounds them: halves away from
 * zero on the number's shortest decimal form (1.005 → "1.01", not the double's 1.00499…), worked on
 * that decimal text itself, so no digit is lost however large the number. For numbers whose shortest
 * form has no exponent: 1e-6 and up, below 1e21.
 */
export function roundedDigits(size: number, decimals: number): { whole: string; fraction: string } {
  const [integer = '0', decimal = ''] = String(size).split('.')
  let digits = integer + decimal.slice(0, decimals).padEnd(decimals, '0')
  if (decimal.charCodeAt(decimals) >= 53 /* '5' */) {
    // Add one to the last kept digit, carrying.
    let at = digits.length - 1
    while (at >= 0 && digits[at] === '9') at--
    digits =
      at < 0
        ? `1${'0'.repeat(digits.length)}`
        : digits.slice(0, at) + String(Number(digits[at]) + 1) + '0'.repeat(digits.length - at - 1)
  }
  const whole = digits.slice(0, digits.length - decimals).replace(/^0+(?=\d)/, '') || '0'
  return { whole, fraction: digits.slice(digits.length - decimals) }
}

/**
 * 1234.5 as "1,234.5": at most `maximumFractionDigits` decimals (3, as Intl's default), trailing
 * zeros dropped, halves rounded away from zero on the number's shortest decimal form (1.005 → "1.01"),
 * as Intl.NumberFormat('en-US') does.
 */
export function formatNumber(value: number, options: { maximumFractionDigits?: number } = {}): string {
  const decimals = options.maximumFractionDigits ?? 3
  const size = Math.abs(value)
  // Below 1e-6 and from 1e21 a number's shortest form has an exponent (and NaN and Infinity have no
  // digits): Intl writes those.
  if (!(size >= 1e-6 && size < 1e21)) {
    if (size === 0) return Object.is(value, -0) ? '-0' : '0'
    return numberFormat(options).format(value)
  }
  const { whole, fraction } = roundedDigits(size, decimals)
  const shown = fraction.replace(/0+$/, '')
  return `${value < 0 ? '-' : ''}${groupThousands(whole)}${shown ? `.${shown}` : ''}`
}

/** An instant as ISO text, epoch milliseconds or a Date. */
type Instant = string | number | Date

const toDate = (value: Instant): Date => (typeof value === 'object' ? value : new Date(value))

/** An instant in the given date style; "Invalid Date" for none, as `toLocaleString`. */
export function formatDate(value: Instant, options: Intl.DateTimeFormatOptions): string {
  const date = toDate(value)
  return Number.isNaN(date.getTime()) ? 'Invalid Date' : dateFormat(options).format(date)
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** "Nov 28, 2026" in the reader's time zone: Intl's `{ dateStyle: 'medium' }`. */
export function mediumDay(value: Instant): string {
  const date = toDate(value)
  const year = date.getFullYear()
  // Years Intl writes differently (before 1 AD) or not at all (an invalid date) are left to it.
  if (!(year >= 1 && year <= 9999)) return formatDate(date, { dateStyle: 'medium' })
  return `${MONTHS[date.getMonth()]} ${date.getDate()}, ${year}`
}

/**
 * "Nov 28, 2026, 3:05 AM" in the reader's time zone: Intl's `{ dateStyle: 'medium', timeStyle:
 * 'short' }`.
 */
export function mediumMoment(value: Instant): string {
  const date = toDate(value)
  const year = date.getFullYear()
  if (!(year >= 1 && year <= 9999)) return formatDate(date, { dateStyle: 'medium', timeStyle: 'short' })
  const hours = date.getHours()
  const minutes = String(date.getMinutes()).padStart(2, '0')
  return `${mediumDay(date)}, ${hours % 12 || 12}:${minutes} ${hours < 12 ? 'AM' : 'PM'}`
}
