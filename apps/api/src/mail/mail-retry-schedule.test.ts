import { describe, expect, it } from 'vitest'
import { retryDelaySeconds } from '../queue/job-runner'
import { BULK_MAIL_POLICY, TRANSACTIONAL_MAIL_POLICY } from './mail-queue'

const HOUR = 3600

/**
 * The times of every try of one message whose sends all fail, from its first try at 0 s: what the job
 * runner schedules from the policy (each try itself is taken as instant).
 */
function tryTimes(random: () => number): number[] {
  const times = [0]
  for (let retry = 0; retry < TRANSACTIONAL_MAIL_POLICY.retryLimit; retry++) {
    const now = times[times.length - 1]!
    times.push(now + retryDelaySeconds(TRANSACTIONAL_MAIL_POLICY, retry, now, random))
  }
  return times
}

/** After an outage of `outage` seconds, how long until the next try (which then succeeds). */
const waitAfterReturn = (times: number[], outage: number) => {
  const next = times.find((time) => time >= outage)
  return next === undefined ? Number.POSITIVE_INFINITY : next - outage
}

describe('transactional mail retry schedule', () => {
  const longest = tryTimes(() => 1)
  const shortest = tryTimes(() => 0)
  const typical = tryTimes(() => 0.5)

  it('waits 10–20 s, then 20–40 s, then never more than a minute during the first hour', () => {
    expect(retryDelaySeconds(TRANSACTIONAL_MAIL_POLICY, 0, 0, () => 0)).toBe(10)
    expect(retryDelaySeconds(TRANSACTIONAL_MAIL_POLICY, 0, 0, () => 1)).toBe(20)
    expect(retryDelaySeconds(TRANSACTIONAL_MAIL_POLICY, 1, 15, () => 1)).toBe(40)
    for (const times of [longest, shortest, typical])
      for (let i = 1; i < times.length && times[i - 1]! < HOUR; i++)
        expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(60)
  })

  it('after an outage of up to an hour, the next try comes within a minute of the server’s return', () => {
    for (let outage = 1; outage <= HOUR; outage += 7) {
      expect(waitAfterReturn(longest, outage)).toBeLessThanOrEqual(60)
      expect(waitAfterReturn(shortest, outage)).toBeLessThanOrEqual(60)
    }
    // The case the re-audit measured: SMTP down 240 s (it waited over 240 s before).
    expect(waitAfterReturn(longest, 240)).toBeLessThanOrEqual(60)
  })

  it('then waits longer (7½–15 minutes) and gives up after about half a day', () => {
    for (const times of [longest, typical])
      for (let i = 1; i < times.length; i++)
        if (times[i - 1]! >= HOUR) {
          expect(times[i]! - times[i - 1]!).toBeGreaterThan(60)
          expect(times[i]! - times[i - 1]!).toBeLessThanOrEqual(900)
        }
    const span = (times: number[]) => times[times.length - 1]! / HOUR
    expect(span(typical)).toBeGreaterThan(10)
    expect(span(typical)).toBeLessThan(18)
    expect(span(longest)).toBeLessThan(26)
    expect(span(shortest)).toBeGreaterThan(4)
  })

  it('scales every duration alike (tests run the same schedule faster)', () => {
    expect(retryDelaySeconds(TRANSACTIONAL_MAIL_POLICY, 30, 600, () => 1, 0.2)).toBeCloseTo(12)
    // The first hour is a fifth as long too: at 0.2, 12 minutes in, the later ceiling applies.
    expect(retryDelaySeconds(TRANSACTIONAL_MAIL_POLICY, 30, 721, () => 1, 0.2)).toBeCloseTo(180)
  })

  it('bulk mail keeps the plain doubling (no ceiling): a broadcast is not urgent', () => {
    expect(retryDelaySeconds(BULK_MAIL_POLICY, 5, 10_000, () => 1)).toBe(10 * 2 ** 6)
    expect(retryDelaySeconds(BULK_MAIL_POLICY, 9, 10_000, () => 0)).toBe(10 * 2 ** 9)
  })
})
