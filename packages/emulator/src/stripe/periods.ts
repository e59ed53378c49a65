/**
 * Billing period boundaries, counted from the anchor so a month-end anchor stays at month end
 * (31 Jan, 28 Feb, 31 Mar) instead of drifting, which is how Stripe bills.
 */

export type Interval = 'day' | 'week' | 'month' | 'year'

const DAY = 86_400

export function periodBoundary(anchor: number, interval: Interval, count: number, cycles: number): number {
  if (interval === 'day') return anchor + DAY * count * cycles
  if (interval === 'week') return anchor + 7 * DAY * count * cycles
  const months = (interval === 'year' ? 12 : 1) * count * cycles
  const start = new Date(anchor * 1000)
  const targetMonth = start.getUTCMonth() + months
  const year = start.getUTCFullYear() + Math.floor(targetMonth / 12)
  const month = ((targetMonth % 12) + 12) % 12
  const lastDay = new Date(Date.UTC(year, month + 1, 0)).getUTCDate()
  const day = Math.min(start.getUTCDate(), lastDay)
  const at = Date.UTC(year, month, day, start.getUTCHours(), start.getUTCMinutes(), start.getUTCSeconds())
  return Math.floor(at / 1000)
}

export function addMonths(at: number, months: number): number {
  return periodBoundary(at, 'month', 1, months)
}

const MONTHS = ['Jan', 'Feb', 'Mar', 'Apr', 'May', 'Jun', 'Jul', 'Aug', 'Sep', 'Oct', 'Nov', 'Dec']

/** Dates as Stripe writes them in line descriptions: `06 Mar 2026` (UTC). */
export function formatDate(at: number): string {
  const date = new Date(at * 1000)
  const day = String(date.getUTCDate()).padStart(2, '0')
  return `${day} ${MONTHS[date.getUTCMonth()]} ${date.getUTCFullYear()}`
}
