/** Days until endDate, rounded up, never below 0. */
export function daysRemaining(endDate: string | null | undefined, now = Date.now()): number {
  if (!endDate) return 0
  return Math.max(0, Math.ceil((Date.parse(endDate) - now) / 86_400_000))
}
