import { describe, expect, it } from 'vitest'
import { chartPoints } from '../components/ui/units-chart'
import { describeSignal, formatRate, formatUnits, outcomeOf, statusLabel, winRateSample } from './signal-text'

describe('how signals and record figures read', () => {
  it('signs units and rates, and shows a dash for a rate with nothing to divide by', () => {
    expect([1.905, -2, 0, 0.004].map(formatUnits)).toEqual(['+1.91 u', '−2 u', '0 u', '0 u'])
    expect([0.6667, -0.2727, 0, null].map(formatRate)).toEqual(['66.7%', '−27.3%', '0.0%', '—'])
    expect(winRateSample({ won: 7, lost: 4 })).toBe('7 won of 11 decided')
  })

  it('names each status and outcome: live, won, lost, push, closed, void', () => {
    const base = { profitUnits: null, exitPrice: null, voidReason: null }
    expect(statusLabel({ status: 'open', result: null })).toBe('Live')
    expect(outcomeOf({ ...base, status: 'settled', result: 'won', profitUnits: 0.91 })).toBe('Won · +0.91 u')
    expect(
      outcomeOf({ ...base, status: 'settled', result: 'closed', exitPrice: 3512.5, profitUnits: -0.4 }),
    ).toBe('Closed at 3,512.5 · −0.4 u')
    expect(outcomeOf({ ...base, status: 'void', result: null, voidReason: 'Game postponed' })).toBe(
      'Void: Game postponed',
    )
  })

  it('describes a pick and a trading signal from their content, and nothing without it', () => {
    expect(
      describeSignal({
        kind: 'pick',
        category: 'soccer',
        stake: 1.5,
        content: {
          kind: 'pick',
          sport: 'soccer',
          league: 'Premier League',
          event: 'Arsenal vs Chelsea',
          market: 'moneyline',
          selection: 'Arsenal',
          odds: 2.1,
          stake: 1.5,
        },
      }),
    ).toEqual({
      label: 'Soccer · Premier League',
      title: 'Arsenal vs Chelsea',
      call: 'Arsenal (moneyline) @ 2.1',
      stake: 'Stake 1.5 units',
      analysis: undefined,
    })
    expect(
      describeSignal({
        kind: 'signal',
        category: 'BTC',
        stake: 1,
        content: {
          kind: 'signal',
          instrument: 'BTC',
          direction: 'long',
          entry: 64000,
          target: 67500,
          stop: 62500,
          stake: 1,
        },
      }),
    ).toMatchObject({
      title: 'BTC long',
      call: 'Entry 64,000 · Target 67,500 · Stop 62,500',
      stake: 'Stake 1 unit',
    })
    expect(describeSignal({ kind: 'pick', category: 'NFL', stake: null, content: null })).toBeNull()
  })

  it('draws the cumulative line from 0, with 0 always in view', () => {
    const { line, zeroY } = chartPoints([1, -1, 2])
    expect(line).toHaveLength(4)
    expect(line[0]?.y).toBe(zeroY)
    // Higher units are higher on screen (smaller y); the lowest point touches the bottom.
    expect(line[3]!.y).toBeLessThan(line[1]!.y)
    expect(Math.max(...line.map((point) => point.y))).toBe(line[2]!.y)
  })
})
