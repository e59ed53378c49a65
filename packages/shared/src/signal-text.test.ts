import { describe, expect, it } from 'vitest'
import {
  describeSignal,
  formatRate,
  formatUnits,
  outcomeOf,
  signalAnnouncement,
  statusLabel,
  winRateSample,
} from './signal-text'

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
          startsAt: '2026-12-01T20:00:00.000Z',
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
          expiresAt: '2026-12-02T00:00:00.000Z',
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

  it('announces a publication and its result to Discord and email in the words the screens use', () => {
    const pick = {
      kind: 'pick' as const,
      category: 'NBA',
      stake: 1,
      status: 'open' as const,
      result: null,
      profitUnits: null,
      exitPrice: null,
      voidReason: null,
      startsAt: '2026-12-01T20:00:00.000Z',
      expiresAt: null,
      content: {
        kind: 'pick' as const,
        sport: 'NBA' as const,
        event: 'Celtics vs Knicks',
        startsAt: '2026-12-01T20:00:00.000Z',
        market: 'moneyline' as const,
        selection: 'Celtics',
        odds: 1.65,
        stake: 1,
        analysis: 'Rest edge.',
      },
    }
    expect(signalAnnouncement('publish', pick, 'discord')).toEqual({
      subject: 'NBA · Celtics vs Knicks',
      headline: 'New sports pick · NBA · Celtics vs Knicks',
      details: 'Celtics (moneyline) @ 1.65 · Stake 1 unit · Starts <t:1796155200:f>',
      analysis: 'Rest edge.',
    })
    expect(signalAnnouncement('publish', pick, 'email').details).toBe(
      'Celtics (moneyline) @ 1.65 · Stake 1 unit · Starts Tue, 01 Dec 2026 20:00:00 GMT',
    )
    const won = { ...pick, status: 'settled' as const, result: 'won' as const, profitUnits: 0.65 }
    expect(signalAnnouncement('settle', won, 'discord')).toEqual({
      subject: 'NBA · Celtics vs Knicks',
      headline: 'NBA · Celtics vs Knicks: Won · +0.65 u',
      details: '',
      analysis: undefined,
    })
  })
})
