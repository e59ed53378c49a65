import { type RecordStats, roundUnits, type SignalKind, type SignalResult } from '@edgeclub/shared'

/** A settled or void signal as the record counts it. */
export interface ClosedSignal {
  kind: SignalKind
  category: string
  status: 'settled' | 'void'
  result: SignalResult | null
  stake: number
  profitUnits: number | null
  /** When it was settled or voided (ISO), and its place in the ledger. */
  closedAt: string
  closedSeq: number
}

/**
 * The record's arithmetic, from settlements only: win rate = won ÷ (won + lost); units staked count
 * every settled signal (a void returns its stake); ROI = profit ÷ units staked. Sample sizes travel
 * with every rate, and a rate with nothing to divide by is null, never 0.
 */
function statsOf(signals: ClosedSignal[]): RecordStats {
  const stats: RecordStats = {
    settled: 0,
    won: 0,
    lost: 0,
    push: 0,
    closed: 0,
    void: 0,
    winRate: null,
    unitsStaked: 0,
    profitUnits: 0,
    roi: null,
  }
  for (const signal of signals) {
    if (signal.status === 'void') {
      stats.void += 1
      continue
    }
    stats.settled += 1
    if (signal.result) stats[signal.result] += 1
    stats.unitsStaked += signal.stake
    stats.profitUnits += signal.profitUnits ?? 0
  }
  stats.unitsStaked = roundUnits(stats.unitsStaked)
  stats.profitUnits = roundUnits(stats.profitUnits)
  const decided = stats.won + stats.lost
  stats.winRate = decided === 0 ? null : roundUnits(stats.won / decided)
  stats.roi = stats.unitsStaked === 0 ? null : roundUnits(stats.profitUnits / stats.unitsStaked)
  return stats
}

function groupBy<K>(signals: ClosedSignal[], key: (signal: ClosedSignal) => K): Map<K, ClosedSignal[]> {
  const groups = new Map<K, ClosedSignal[]>()
  for (const signal of signals) {
    const value = key(signal)
    const group = groups.get(value)
    if (group) group.push(signal)
    else groups.set(value, [signal])
  }
  return groups
}

/** Overall, per kind, per category and per month, and the cumulative units after each settlement. */
export function computeRecord(signals: ClosedSignal[]) {
  const ordered = [...signals].sort((a, b) => a.closedSeq - b.closedSeq)
  let units = 0
  const cumulative = ordered
    .filter((signal) => signal.status === 'settled')
    .map((signal) => {
      units = roundUnits(units + (signal.profitUnits ?? 0))
      return { seq: signal.closedSeq, at: signal.closedAt, units }
    })
  return {
    overall: statsOf(ordered),
    byKind: [...groupBy(ordered, (signal) => signal.kind)].map(([kind, group]) => ({
      kind,
      ...statsOf(group),
    })),
    byCategory: [...groupBy(ordered, (signal) => `${signal.kind}\u0000${signal.category}`)]
      .map(([key, group]) => {
        const [kind, category] = key.split('\u0000') as [SignalKind, string]
        return { kind, category, ...statsOf(group) }
      })
      .sort((a, b) => b.settled - a.settled || a.category.localeCompare(b.category)),
    byMonth: [...groupBy(ordered, (signal) => signal.closedAt.slice(0, 7))]
      .map(([month, group]) => ({ month, ...statsOf(group) }))
      .sort((a, b) => a.month.localeCompare(b.month)),
    cumulative,
  }
}
