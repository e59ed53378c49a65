import { describe, expect, it } from 'vitest'
import { daysRemaining } from './days-remaining'

const now = Date.parse('2026-11-22T12:00:00Z')

describe('days remaining', () => {
  it('SUB-02 counts days until the end date, rounded up, minimum 0', () => {
    expect(daysRemaining('2026-11-29T12:00:00Z', now)).toBe(7)
    expect(daysRemaining('2026-11-22T12:00:01Z', now)).toBe(1)
    expect(daysRemaining('2026-11-23T11:00:00Z', now)).toBe(1)
    expect(daysRemaining('2026-11-20T12:00:00Z', now)).toBe(0)
    expect(daysRemaining(null, now)).toBe(0)
  })
})
