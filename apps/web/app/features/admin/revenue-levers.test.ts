import { describe, expect, it } from 'vitest'
import { movementRows, rateText } from './revenue-levers'

describe("the overview's revenue levers", () => {
  it('signs the MRR movements: gains with +, losses with −, and the net by its sign', () => {
    const rows = movementRows(
      { month: '2026-11', new: 100, expansion: 20, contraction: 5, churned: 30, reactivated: 0, net: 85 },
      'USD',
    )
    expect(rows.map((row) => `${row.label}: ${row.value}`)).toEqual([
      'New: +$100.00',
      'Expansion (upgrades): +$20.00',
      'Contraction (downgrades): −$5.00',
      'Churned: −$30.00',
      'Reactivated: $0.00',
      'Net change: +$85.00',
    ])
    const losing = movementRows(
      { month: '2026-11', new: 0, expansion: 0, contraction: 0, churned: 9.99, reactivated: 0, net: -9.99 },
      'USD',
    )
    expect(losing.at(-1)?.value).toBe('−$9.99')
  })

  it('reads the trial conversion as a percentage, or — when no trial ended', () => {
    expect(rateText(0.425)).toBe('42.5%')
    expect(rateText(1)).toBe('100%')
    expect(rateText(null)).toBe('—')
  })
})
