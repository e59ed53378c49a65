import { createHash } from 'node:crypto'
import { describe, expect, it } from 'vitest'
import { commitmentPreimage, type LedgerEntry, type RevealedSignal } from './ledger'
import { computeRecordFigures, firstDifference } from './record-figures'
import {
  binomialUpperTail,
  breakEvenRate,
  drawdowns,
  expectedLongestLosingRun,
  longestRun,
  meanInterval,
  sharpeRatio,
  wilsonInterval,
} from './record-statistics'

const sha256 = (text: string) => createHash('sha256').update(text, 'utf8').digest('hex')

describe('the statistics behind the record, against examples worked by hand', () => {
  it('the break-even win rate is 1 ÷ decimal odds: 52.36% at 1.91, 50% at 2.00, 40% at 2.50', () => {
    expect(breakEvenRate(1.91)).toBeCloseTo(0.523_56, 5)
    expect(breakEvenRate(2)).toBe(0.5)
    expect(breakEvenRate(2.5)).toBe(0.4)
  })

  it('a 95% Wilson interval: 8 wins of 10 decided gives 49.0%–94.3%', () => {
    // p = 0.8, z² = 3.8415, centre = (0.8 + z²/20) ÷ (1 + z²/10) = 0.71674,
    // half = z·√(0.016 + z²/400) ÷ (1 + z²/10) = 0.22658.
    const interval = wilsonInterval(8, 10)
    expect(interval?.low).toBeCloseTo(0.490_16, 4)
    expect(interval?.high).toBeCloseTo(0.943_32, 4)
    expect(wilsonInterval(0, 0)).toBeNull()
  })

  it('the chance of the result by luck is the binomial tail at the break-even rate', () => {
    // Three wins of three at 50%: 1/8. Two or more of three: (3 + 1)/8.
    expect(binomialUpperTail(3, 3, 0.5)).toBeCloseTo(0.125, 10)
    expect(binomialUpperTail(2, 3, 0.5)).toBeCloseTo(0.5, 10)
    // 60 of 100 at 50%: 2.84% (the normal approximation says 2.3%, the exact tail a little more).
    expect(binomialUpperTail(60, 100, 0.5)).toBeCloseTo(0.028_44, 4)
  })

  it('drawdowns: +1 +1 −1 −1 −1 +2 −0.5 peaks at 2, falls to −1 (maximum 3) and ends 1.5 below the peak', () => {
    expect(drawdowns([1, 1, -1, -1, -1, 2, -0.5])).toEqual({ current: 1.5, maximum: 3 })
    expect(drawdowns([-2, 1])).toEqual({ current: 1, maximum: 2 })
  })

  it('the longest losing run, and the one to expect: log₂ 50 ≈ 5.64 in 100 bets at 50%', () => {
    expect(longestRun([true, false, true, true, true, false, true, true])).toBe(3)
    expect(expectedLongestLosingRun(100, 0.5)).toBeCloseTo(Math.log2(50), 10)
    // At a 60% win rate: ln(60) ÷ ln(2.5) = 4.468.
    expect(expectedLongestLosingRun(100, 0.6)).toBeCloseTo(4.468, 3)
  })

  it('a Sharpe ratio of returns 1, −1, 2, 0: mean 0.5 ÷ sample deviation √(5/3) = 0.387', () => {
    expect(sharpeRatio([1, -1, 2, 0])).toBeCloseTo(0.5 / Math.sqrt(5 / 3), 10)
    // The mean's interval: 0.5 ± 1.96 × 1.291 ÷ 2.
    const interval = meanInterval([1, -1, 2, 0])
    expect(interval?.low).toBeCloseTo(0.5 - (1.959_964 * Math.sqrt(5 / 3)) / 2, 5)
  })
})

/** A small ledger built by hand (hashes are not what these figures check). */
function ledgerOf(
  steps: {
    id: string
    kind?: 'pick' | 'signal'
    content: Record<string, unknown>
    at: string
    due: string
    close?: { type: 'settle' | 'void'; at: string; data: Record<string, unknown> }
  }[],
) {
  const entries: LedgerEntry[] = []
  const revealed: RevealedSignal[] = []
  const closes: { id: string; at: string; data: Record<string, unknown>; type: 'settle' | 'void' }[] = []
  for (const step of steps) {
    const salt = `${step.id.padEnd(32, '0')}`
    const commitment = sha256(commitmentPreimage(step.content, salt))
    const kind = step.kind ?? 'pick'
    entries.push({
      seq: entries.length + 1,
      type: 'publish',
      signalId: step.id,
      at: step.at,
      prevHash: '',
      hash: '',
      data: {
        commitment,
        kind,
        category: String(step.content.sport ?? step.content.instrument),
        ...(kind === 'pick' ? { startsAt: step.due } : { expiresAt: step.due }),
      },
    })
    revealed.push({ id: step.id, commitment, content: step.content, salt })
    if (step.close) closes.push({ id: step.id, ...step.close })
  }
  for (const close of closes.sort((a, b) => a.at.localeCompare(b.at)))
    entries.push({
      seq: entries.length + 1,
      type: close.type,
      signalId: close.id,
      at: close.at,
      prevHash: '',
      hash: '',
      data: close.data as LedgerEntry['data'],
    })
  return { entries, revealed }
}

describe('the record computed from ledger entries alone', () => {
  const pick = (odds: number, stake = 1, market = 'moneyline', sport = 'NFL') => ({
    kind: 'pick',
    sport,
    event: 'A vs B',
    startsAt: '2026-11-01T18:00:00.000Z',
    market,
    selection: 'A',
    odds,
    stake,
  })
  const asOf = '2026-11-10T12:00:00.000Z'

  it('counts commitments made, due, revealed and overdue, and voids after the start apart', () => {
    const { entries, revealed } = ledgerOf([
      // Settled: revealed.
      {
        id: 'a',
        content: pick(2),
        at: '2026-11-01T10:00:00.000Z',
        due: '2026-11-01T18:00:00.000Z',
        close: { type: 'settle', at: '2026-11-01T21:00:00.000Z', data: { result: 'won', profitUnits: 1 } },
      },
      // Due nine days ago and never revealed: overdue.
      { id: 'b', content: pick(1.9), at: '2026-11-01T10:00:00.000Z', due: '2026-11-01T18:00:00.000Z' },
      // Due 12 hours ago, still sealed: due, not yet overdue.
      { id: 'c', content: pick(1.8), at: '2026-11-09T10:00:00.000Z', due: '2026-11-10T00:00:00.000Z' },
      // Not due yet.
      { id: 'd', content: pick(1.7), at: '2026-11-10T10:00:00.000Z', due: '2026-11-12T00:00:00.000Z' },
      // Voided before the start: an ordinary void.
      {
        id: 'e',
        content: pick(2.2),
        at: '2026-11-02T10:00:00.000Z',
        due: '2026-11-02T18:00:00.000Z',
        close: { type: 'void', at: '2026-11-02T12:00:00.000Z', data: { reason: 'Line moved' } },
      },
      // Voided after the start: a late void.
      {
        id: 'f',
        content: pick(2.4),
        at: '2026-11-03T10:00:00.000Z',
        due: '2026-11-03T18:00:00.000Z',
        close: {
          type: 'void',
          at: '2026-11-03T19:00:00.000Z',
          data: { reason: 'Injury', afterStart: true },
        },
      },
    ])
    const record = computeRecordFigures({ entries, revealed, sha256, asOf })
    expect(record.commitments).toEqual({
      made: 6,
      due: 5,
      revealed: 3,
      overdue: 1,
      voided: 2,
      lateVoided: 1,
      overdueAfterHours: 24,
    })
    expect(record.overdueCommitments).toEqual([
      expect.objectContaining({ signalId: 'b', seq: 2, dueAt: '2026-11-01T18:00:00.000Z', kind: 'pick' }),
    ])
    expect(record.lateVoids).toEqual([
      expect.objectContaining({ signalId: 'f', reason: 'Injury', voidedAt: '2026-11-03T19:00:00.000Z' }),
    ])
    expect(record.picks).toMatchObject({ settled: 1, pending: 3, void: 2, lateVoid: 1 })
    // A settled pick whose revealed content does not match its commitment is not revealed: it is
    // left out of the figures and shows as overdue once due for a day.
    const forged = revealed.map((signal) =>
      signal.id === 'a' ? { ...signal, content: { ...signal.content, odds: 5 } } : signal,
    )
    const withForgery = computeRecordFigures({ entries, revealed: forged, sha256, asOf })
    expect(withForgery.commitments).toMatchObject({ revealed: 2, overdue: 2 })
    expect(withForgery.picks.settled).toBe(0)
    expect(firstDifference(record, withForgery)).toMatch(/^overall\.settled: published 1, recomputed 0/)
    expect(firstDifference(record, computeRecordFigures({ entries, revealed, sha256, asOf }))).toBeNull()
  })

  it('names the last moment the figures changed, so the answer stays the same until the next one', () => {
    const { entries, revealed } = ledgerOf([
      { id: 'a', content: pick(2), at: '2026-11-09T10:00:00.000Z', due: '2026-11-10T00:00:00.000Z' },
      { id: 'b', content: pick(1.9), at: '2026-11-10T10:00:00.000Z', due: '2026-11-12T00:00:00.000Z' },
    ])
    const at = (now: string) => computeRecordFigures({ entries, revealed, sha256, asOf: now })
    // The last change before noon: b's publication at 10:00 ('a' fell due at midnight, before it).
    const noon = at('2026-11-10T12:00:00.000Z')
    expect(noon.asOf).toBe('2026-11-10T10:00:00.000Z')
    expect(JSON.stringify(at('2026-11-10T23:59:00.000Z'))).toBe(JSON.stringify(noon))
    // Recomputed at the moment it names, the record is the same (what verify-record does).
    expect(firstDifference(noon, at(noon.asOf))).toBeNull()
    // A day after 'a' fell due it turns overdue: the figures and their moment move on.
    const nextDay = at('2026-11-11T00:01:00.000Z')
    expect(nextDay.commitments.overdue).toBe(1)
    expect(nextDay.asOf).toBe('2026-11-11T00:00:00.001Z')
    expect(firstDifference(nextDay, at(nextDay.asOf))).toBeNull()
  })

  it("an empty ledger names one fixed moment, so a fresh club's record keeps its ETag across reloads", () => {
    const at = (now: string) => computeRecordFigures({ entries: [], revealed: [], sha256, asOf: now })
    const morning = at('2026-11-10T08:00:00.000Z')
    expect(morning.asOf).toBe('1970-01-01T00:00:00.000Z')
    expect(JSON.stringify(at('2026-11-12T20:00:00.000Z'))).toBe(JSON.stringify(morning))
    expect(firstDifference(morning, at(morning.asOf))).toBeNull()
  })

  it('bettor figures for picks: yield at stated and level stakes, break-even, Wilson, drawdown, runs, closing line', () => {
    // Four picks in settlement order: won at 2.00 staking 2 (+2), lost at 1.50 staking 1 (−1),
    // lost at 2.50 staking 1 (−1), won at 2.00 staking 1 (+1), then a push at 1.80.
    const steps = [
      { odds: 2, stake: 2, result: 'won', profit: 2, closing: 1.9 },
      { odds: 1.5, stake: 1, result: 'lost', profit: -1, closing: 1.6 },
      { odds: 2.5, stake: 1, result: 'lost', profit: -1 },
      { odds: 2, stake: 1, result: 'won', profit: 1, closing: 1.8 },
      { odds: 1.8, stake: 1, result: 'push', profit: 0 },
    ].map((step, index) => ({
      id: `p${index}`,
      content: pick(step.odds, step.stake, index % 2 ? 'spread' : 'moneyline'),
      at: '2026-10-01T10:00:00.000Z',
      due: '2026-10-01T18:00:00.000Z',
      close: {
        type: 'settle' as const,
        at: `2026-10-0${index + 2}T10:00:00.000Z`,
        data: {
          result: step.result,
          profitUnits: step.profit,
          ...(step.closing ? { closingOdds: step.closing } : {}),
        },
      },
    }))
    const { entries, revealed } = ledgerOf(steps)
    const record = computeRecordFigures({ entries, revealed, sha256, asOf, minimumSample: 3 })
    const picks = record.picks
    expect(picks).toMatchObject({
      enoughSettled: true,
      settled: 5,
      won: 2,
      lost: 2,
      push: 1,
      unitsStaked: 6,
      profitUnits: 1,
      // 1 ÷ 6
      yield: 0.1667,
      // Level stakes: +1 −1 −1 +1 0 = 0 over 5 picks.
      levelStakeProfitUnits: 0,
      levelStakeYield: 0,
      // Mean odds of the four decided picks: (2 + 1.5 + 2.5 + 2) ÷ 4 = 2, so break-even is 50%.
      averageOdds: 2,
      breakEvenWinRate: 0.5,
      winRate: 0.5,
      // Two or more wins of four at 50%: 11/16.
      luckChance: 0.6875,
      // +2 −1 −1 +1 0: peak 2, low 0 → maximum 2, ends 1 below the peak.
      drawdownUnits: { current: 1, maximum: 2 },
      longestLosingRun: 2,
      closingLine: {
        picks: 3,
        // 2/1.9 − 1 = 0.05263, 1.5/1.6 − 1 = −0.0625, 2/1.8 − 1 = 0.11111 → mean 0.03375
        averageClv: 0.0337,
        beatCloseShare: 0.6667,
      },
    })
    const wilson = wilsonInterval(2, 4)
    expect(picks.winRateInterval).toEqual({
      low: Math.round((wilson?.low ?? 0) * 10_000) / 10_000,
      high: Math.round((wilson?.high ?? 0) * 10_000) / 10_000,
    })
    expect(picks.byMarket.map((row) => [row.key, row.settled])).toEqual([
      ['moneyline', 3],
      ['spread', 2],
    ])
    expect(picks.byOddsBand.map((row) => [row.key, row.settled])).toEqual([
      ['1.50–1.99', 2],
      ['2.00–2.99', 3],
    ])
    expect(picks.byMonth).toEqual([expect.objectContaining({ key: '2026-10', settled: 5, profitUnits: 1 })])

    // Below the minimum sample, ratios are withheld ("too few settled"); counts and units are not.
    const few = computeRecordFigures({ entries, revealed, sha256, asOf }).picks
    expect(few).toMatchObject({
      minimumSample: 25,
      enoughSettled: false,
      settled: 5,
      profitUnits: 1,
      yield: null,
      winRate: null,
      winRateInterval: null,
      luckChance: null,
      closingLine: { picks: 3, averageClv: null, beatCloseShare: null },
    })
  })

  it('trading signals: return per signal, drawdown and Sharpe', () => {
    const trade = (stake: number) => ({
      kind: 'signal',
      instrument: 'BTC',
      direction: 'long',
      entry: 100,
      target: 110,
      stop: 95,
      expiresAt: '2026-10-05T00:00:00.000Z',
      stake,
    })
    const { entries, revealed } = ledgerOf(
      [
        [2, 'won', 2],
        [1, 'lost', -1],
        [1, 'won', 2],
        [1, 'closed', 0],
      ].map(([stake, result, profit], index) => ({
        id: `t${index}`,
        kind: 'signal' as const,
        content: trade(stake as number),
        at: '2026-10-01T10:00:00.000Z',
        due: '2026-10-05T00:00:00.000Z',
        close: {
          type: 'settle' as const,
          at: `2026-10-0${index + 2}T10:00:00.000Z`,
          data: { result, profitUnits: profit },
        },
      })),
    )
    const trading = computeRecordFigures({ entries, revealed, sha256, asOf, minimumSample: 2 }).trading
    // Returns per unit staked: 1, −1, 2, 0 → mean 0.5, Sharpe 0.5 ÷ √(5/3).
    expect(trading).toMatchObject({
      settled: 4,
      won: 2,
      lost: 1,
      closed: 1,
      profitUnits: 3,
      averageReturn: 0.5,
      sharpeRatio: 0.3873,
      // Totals 2, 1, 3, 3: one unit down at most, none now.
      drawdownUnits: { current: 0, maximum: 1 },
    })
  })
})
