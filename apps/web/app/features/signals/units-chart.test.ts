import { describe, expect, it } from 'vitest'
import { chartPoints } from './units-chart'

describe('the cumulative units chart', () => {
  it('draws the cumulative line from 0, with 0 always in view', () => {
    const { line, zeroY } = chartPoints([1, -1, 2])
    expect(line).toHaveLength(4)
    expect(line[0]?.y).toBe(zeroY)
    // Higher units are higher on screen (smaller y); the lowest point touches the bottom.
    expect(line[3]!.y).toBeLessThan(line[1]!.y)
    expect(Math.max(...line.map((point) => point.y))).toBe(line[2]!.y)
  })
})
