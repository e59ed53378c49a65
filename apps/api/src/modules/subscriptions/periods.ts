import type { PlanRow } from '../../db/types'

/** The end of one paid period of a plan that starts at `start` (calendar months and years). */
export function periodEndOf(start: Date, plan: Pick<PlanRow, 'interval' | 'interval_count'>): Date | null {
  const end = new Date(start)
  switch (plan.interval) {
    case 'lifetime':
      return null
    case 'week':
      end.setUTCDate(end.getUTCDate() + 7 * plan.interval_count)
      return end
    case 'month':
      end.setUTCMonth(end.getUTCMonth() + plan.interval_count)
      return end
    case 'year':
      end.setUTCFullYear(end.getUTCFullYear() + plan.interval_count)
      return end
  }
}
