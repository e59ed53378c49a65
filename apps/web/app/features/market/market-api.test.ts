import { describe, expect, it } from 'vitest'
import { formatUpdateTime } from './market-api'

describe('the update time on the price card', () => {
  it("reads as toLocaleTimeString('en-US') at every second of a day", () => {
    const start = new Date(2026, 0, 15, 0, 0, 0).getTime()
    for (let second = 0; second < 24 * 60 * 60; second += 7) {
      const at = new Date(start + second * 1000)
      expect(formatUpdateTime(at.toISOString())).toBe(at.toLocaleTimeString('en-US'))
    }
    expect(formatUpdateTime('not a date')).toBe(new Date('not a date').toLocaleTimeString('en-US'))
  })
})
