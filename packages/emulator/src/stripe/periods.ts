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
