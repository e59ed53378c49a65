/** Time as the services see it; tests move it instead of waiting. */
export interface Clock {
  now(): Date
}

export const systemClock: Clock = { now: () => new Date() }

export const addMs = (date: Date, ms: number) => new Date(date.getTime() + ms)
export const MINUTE = 60_000
export const HOUR = 60 * MINUTE
export const DAY = 24 * HOUR
