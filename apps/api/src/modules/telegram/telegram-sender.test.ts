import { describe, expect, it } from 'vitest'
import { bucketFor } from './telegram-sender'

/** When a sender that sends the moment the bucket holds a token would send `count` messages (ms). */
function greedySends(bucket: { capacity: number; perSecond: number }, count: number): number[] {
  const times: number[] = []
  let tokens = bucket.capacity
  let now = 0
  while (times.length < count) {
    if (tokens >= 1) {
      tokens -= 1
      times.push(now)
      continue
    }
    const waitMs = ((1 - tokens) / bucket.perSecond) * 1000
    now += waitMs
    tokens = Math.min(bucket.capacity, tokens + (waitMs / 1000) * bucket.perSecond)
  }
  return times
}

function busiestWindow(times: number[], windowMs: number): number {
  let most = 0
  let start = 0
  for (let end = 0; end < times.length; end++) {
    // A hair under the window, so floating-point ties do not count a message twice.
    while (times[end]! - times[start]! >= windowMs - 1e-6) start += 1
    most = Math.max(most, end - start + 1)
  }
  return most
}

describe('the send buckets', () => {
  for (const limit of [
    { messages: 30, seconds: 1 },
    { messages: 20, seconds: 60 },
    { messages: 6, seconds: 3 },
    { messages: 150, seconds: 1 },
  ])
    it(`never put more than ${limit.messages} messages in any ${limit.seconds} s, and come close to it`, () => {
      const times = greedySends(bucketFor('test', limit), limit.messages * 20)
      expect(busiestWindow(times, limit.seconds * 1000)).toBeLessThanOrEqual(limit.messages)
      // Sustained pace: at least 70% of the limit.
      const perWindow = (times.length / (times.at(-1)! / 1000)) * limit.seconds
      expect(perWindow).toBeGreaterThan(limit.messages * 0.7)
    })

  it("keeps a private chat's short burst, then about one a second", () => {
    const times = greedySends(bucketFor('chat:1', { messages: 1, seconds: 1, burst: 3 }), 10)
    expect(times.slice(0, 3)).toEqual([0, 0, 0])
    expect(times[9]! - times[3]!).toBeCloseTo(6_000, 0)
  })
})
