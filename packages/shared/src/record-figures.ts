import {
  commitmentPreimage,
  type LedgerEntry,
  type PublishData,
  type RevealedSignal,
  type SettleData,
  type Sha256Hex,
  type VoidData,
} from './ledger'
import {
  binomialUpperTail,
  breakEvenRate,
  drawdowns,
  expectedLongestLosingRun,
  longestRun,
  mean,
  meanInterval,
  sharpeRatio,
  wilsonInterval,
} from './record-statistics'
import { roundUnits, type SignalKind, type SignalResult } from './signal-rules'
import type {
  PickBreakdownRow,
  PickFigures,
  RecordStats,
  SignalContent,
  SignalRecord,
  SignalView,
  TradeFigures,
} from './signals'

/**
 * The public record, computed from the ledger's entries alone: publish, settle and void entries, and
 * what settling or voiding revealed (content and salt, counted only when they hash to the published
 * commitment). The API serves it; `verify-record` recomputes it from the entries it downloads and
 * compares. Nothing here reads a table: a signal's row may say anything, the record does not move.
 */

/** Below this many settled, the record shows "too few settled" instead of a ratio. */
export const MIN_SETTLED_FOR_RATIOS = 25
/** A commitment still sealed this long after its event started (or its signal expired) is overdue. */
export const OVERDUE_AFTER_HOURS = 24
/** Odds bands of the pick breakdown: [label, lowest odds in the band]. */
export const ODDS_BANDS: readonly (readonly [string, number])[] = [
  ['1.01–1.49', 0],
  ['1.50–1.99', 1.5],
  ['2.00–2.99', 2],
  ['3.00+', 3],
]
export interface RecordSource {
  /** The ledger in order from seq 1 (all of it, or up to the head the record was computed at). */
  entries: LedgerEntry[]
  /** Content and salt of settled or voided signals; any other reveal is ignored. */
  revealed: RevealedSignal[]
  sha256: Sha256Hex
  asOf: string
  /** Only signals published at or after this moment (a member's own record). */
  since?: string | null
  minimumSample?: number
  /**
   * Whether a reveal hashes to its commitment; by default computed here. The server passes a memo
   * (canonicalizing and hashing every reveal on every recomputation was most of its cost).
   */
  revealMatches?: (reveal: RevealedSignal, commitment: string) => boolean
  /** How many of the latest closed and live signals to list. */
  latest?: number
  live?: number
}

/** Whether a revealed signal's content and salt hash to the commitment its publish entry holds. */
export function revealMatches(reveal: RevealedSignal, commitment: string, sha256: Sha256Hex): boolean {
  if (!reveal.content || !reveal.salt) return false
  return sha256(commitmentPreimage(reveal.content, reveal.salt)) === commitment
}

/** A commitment as the ledger knows it. */
interface Tracked {
  id: string
  publish: LedgerEntry & { data: PublishData }
  close?: LedgerEntry
  /** The revealed content, only when it (with its salt) hashes to the published commitment. */
  content?: SignalContent
  salt?: string
  dueAt: string | null
}

function track(source: RecordSource): Tracked[] {
  const byId = new Map<string, Tracked>()
  for (const entry of source.entries) {
    if (entry.type === 'publish') {
      const data = entry.data as PublishData
      byId.set(entry.signalId, {
        id: entry.signalId,
        publish: entry as Tracked['publish'],
        dueAt: data.startsAt ?? data.expiresAt ?? null,
      })
    } else {
      const tracked = byId.get(entry.signalId)
      if (tracked && !tracked.close) tracked.close = entry
    }
  }
  for (const reveal of source.revealed) {
    const tracked = byId.get(reveal.id)
    if (!tracked?.close || !reveal.content || !reveal.salt || tracked.content) continue
    const matches = source.revealMatches
      ? source.revealMatches(reveal, tracked.publish.data.commitment)
      : revealMatches(reveal, tracked.publish.data.commitment, source.sha256)
    if (!matches) continue
    tracked.content = reveal.content as SignalContent
    tracked.salt = reveal.salt
  }
  const since = source.since ? new Date(source.since).getTime() : null
  return [...byId.values()].filter(
    (tracked) => since === null || new Date(tracked.publish.at).getTime() >= since,
  )
}

const isLate = (tracked: Tracked) =>
  tracked.close?.type === 'void' &&
  tracked.dueAt !== null &&
  new Date(tracked.close.at).getTime() >= new Date(tracked.dueAt).getTime()

/** A settled signal with its content revealed: what the figures count. */
interface Settled {
  kind: SignalKind
  category: string
  result: SignalResult
  profitUnits: number
  stake: number
  content: SignalContent
  closedAt: string
  closedSeq: number
  closingOdds?: number
}

function settledOf(tracked: Tracked): Settled | undefined {
  if (tracked.close?.type !== 'settle' || !tracked.content) return undefined
  const data = tracked.close.data as SettleData
  return {
    kind: tracked.publish.data.kind,
    category: tracked.publish.data.category,
    result: data.result,
    profitUnits: data.profitUnits,
    stake: tracked.content.stake,
    content: tracked.content,
    closedAt: tracked.close.at,
    closedSeq: tracked.close.seq,
    ...(typeof data.closingOdds === 'number' ? { closingOdds: data.closingOdds } : {}),
  }
}

const round = (value: number | null | undefined) =>
  value === null || value === undefined || !Number.isFinite(value) ? null : roundUnits(value)
const roundInterval = (interval: { low: number; high: number } | null) =>
  interval ? { low: roundUnits(interval.low), high: roundUnits(interval.high) } : null

/** Counts, win rate (won ÷ (won + lost)), units staked, profit and ROI of settled and voided signals. */
function statsOf(settled: Settled[], voids: number): RecordStats {
  const stats: RecordStats = {
    settled: settled.length,
    won: 0,
    lost: 0,
    push: 0,
    closed: 0,
    void: voids,
    winRate: null,
    unitsStaked: 0,
    profitUnits: 0,
    roi: null,
  }
  for (const signal of settled) {
    stats[signal.result] += 1
    stats.unitsStaked += signal.stake
    stats.profitUnits += signal.profitUnits
  }
  stats.unitsStaked = roundUnits(stats.unitsStaked)
  stats.profitUnits = roundUnits(stats.profitUnits)
  const decided = stats.won + stats.lost
  stats.winRate = decided === 0 ? null : roundUnits(stats.won / decided)
  stats.roi = stats.unitsStaked === 0 ? null : roundUnits(stats.profitUnits / stats.unitsStaked)
  return stats
}

function groupBy<T, K>(items: T[], key: (item: T) => K): Map<K, T[]> {
  const groups = new Map<K, T[]>()
  for (const item of items) {
    const value = key(item)
    const group = groups.get(value)
    if (group) group.push(item)
    else groups.set(value, [item])
  }
  return groups
}

const oddsOf = (signal: Settled) => (signal.content.kind === 'pick' ? signal.content.odds : 1)
const levelProfit = (signal: Settled) =>
  signal.result === 'won' ? oddsOf(signal) - 1 : signal.result === 'lost' ? -1 : 0

function breakdownRow(key: string, picks: Settled[], voids: number, minimum: number): PickBreakdownRow {
  const won = picks.filter((pick) => pick.result === 'won').length
  const lost = picks.filter((pick) => pick.result === 'lost').length
  const staked = picks.reduce((sum, pick) => sum + pick.stake, 0)
  const profit = picks.reduce((sum, pick) => sum + pick.profitUnits, 0)
  const enough = picks.length >= minimum
  return {
    key,
    settled: picks.length,
    won,
    lost,
    push: picks.length - won - lost,
    void: voids,
    unitsStaked: roundUnits(staked),
    profitUnits: roundUnits(profit),
    yield: enough && staked > 0 ? roundUnits(profit / staked) : null,
    winRate: enough && won + lost > 0 ? roundUnits(won / (won + lost)) : null,
    averageOdds: round(mean(picks.map(oddsOf))),
  }
}

function breakdown(
  picks: Settled[],
  voided: Tracked[],
  keyOf: (content: SignalContent, at: string) => string,
  minimum: number,
): PickBreakdownRow[] {
  const voidsBy = groupBy(
    voided.filter((tracked) => tracked.content),
    (tracked) => keyOf(tracked.content as SignalContent, tracked.close?.at ?? ''),
  )
  const groups = groupBy(picks, (pick) => keyOf(pick.content, pick.closedAt))
  const keys = new Set([...groups.keys(), ...voidsBy.keys()])
  return [...keys]
    .map((key) => breakdownRow(key, groups.get(key) ?? [], voidsBy.get(key)?.length ?? 0, minimum))
    .sort((a, b) => b.settled - a.settled || a.key.localeCompare(b.key))
}

function oddsBand(odds: number): string {
  let band = ODDS_BANDS[0]?.[0] ?? ''
  for (const [label, from] of ODDS_BANDS) if (odds >= from) band = label
  return band
}

function pickFigures(all: Tracked[], minimum: number): PickFigures {
  const tracked = all.filter((item) => item.publish.data.kind === 'pick')
  const picks = tracked
    .map(settledOf)
    .filter((pick): pick is Settled => pick !== undefined)
    .sort((a, b) => a.closedSeq - b.closedSeq)
  const voided = tracked.filter((item) => item.close?.type === 'void')
  const won = picks.filter((pick) => pick.result === 'won').length
  const lost = picks.filter((pick) => pick.result === 'lost').length
  const decided = picks.filter((pick) => pick.result !== 'push')
  const staked = picks.reduce((sum, pick) => sum + pick.stake, 0)
  const profit = picks.reduce((sum, pick) => sum + pick.profitUnits, 0)
  const level = picks.map(levelProfit)
  const enough = picks.length >= minimum
  const averageOdds = mean(decided.map(oddsOf))
  const breakEven = averageOdds === null ? null : breakEvenRate(averageOdds)
  const winRate = won + lost > 0 ? won / (won + lost) : null
  const closing = picks.filter((pick) => pick.closingOdds !== undefined)
  const clv = closing.map((pick) => oddsOf(pick) / (pick.closingOdds as number) - 1)
  const enoughClosing = closing.length >= minimum
  const sportOf = (content: SignalContent) => (content.kind === 'pick' ? content.sport : content.instrument)
  return {
    minimumSample: minimum,
    enoughSettled: enough,
    settled: picks.length,
    pending: tracked.filter((item) => !item.close).length,
    void: voided.length,
    lateVoid: voided.filter(isLate).length,
    won,
    lost,
    push: picks.length - won - lost,
    unitsStaked: roundUnits(staked),
    profitUnits: roundUnits(profit),
    yield: enough && staked > 0 ? roundUnits(profit / staked) : null,
    levelStakeProfitUnits: roundUnits(level.reduce((sum, value) => sum + value, 0)),
    levelStakeYield: enough ? round(mean(level)) : null,
    levelStakeYieldInterval: enough ? roundInterval(meanInterval(level)) : null,
    averageOdds: round(averageOdds),
    breakEvenWinRate: round(breakEven),
    winRate: enough ? round(winRate) : null,
    winRateInterval: enough ? roundInterval(wilsonInterval(won, won + lost)) : null,
    luckChance: enough && breakEven !== null ? round(binomialUpperTail(won, won + lost, breakEven)) : null,
    drawdownUnits: (({ current, maximum }) => ({
      current: roundUnits(current),
      maximum: roundUnits(maximum),
    }))(drawdowns(picks.map((pick) => pick.profitUnits))),
    longestLosingRun: longestRun(decided.map((pick) => pick.result === 'lost')),
    expectedLongestLosingRun:
      enough && winRate !== null ? round(expectedLongestLosingRun(won + lost, winRate)) : null,
    closingLine: {
      picks: closing.length,
      averageClv: enoughClosing ? round(mean(clv)) : null,
      beatCloseShare: enoughClosing
        ? roundUnits(
            closing.filter((pick) => oddsOf(pick) > (pick.closingOdds as number)).length / closing.length,
          )
        : null,
    },
    bySport: breakdown(picks, voided, sportOf, minimum),
    byMarket: breakdown(
      picks,
      voided,
      (content) => (content.kind === 'pick' ? content.market : 'other'),
      minimum,
    ),
    byOddsBand: breakdown(
      picks,
      voided,
      (content) => oddsBand(content.kind === 'pick' ? content.odds : 1),
      minimum,
    ).sort((a, b) => ODDS_BANDS.findIndex(([l]) => l === a.key) - ODDS_BANDS.findIndex(([l]) => l === b.key)),
    byMonth: breakdown(picks, voided, (_content, at) => at.slice(0, 7), minimum).sort((a, b) =>
      a.key.localeCompare(b.key),
    ),
  }
}

function tradeFigures(all: Tracked[], minimum: number): TradeFigures {
  const tracked = all.filter((item) => item.publish.data.kind === 'signal')
  const trades = tracked
    .map(settledOf)
    .filter((trade): trade is Settled => trade !== undefined)
    .sort((a, b) => a.closedSeq - b.closedSeq)
  const voided = tracked.filter((item) => item.close?.type === 'void')
  const returns = trades.map((trade) => trade.profitUnits / trade.stake)
  const enough = trades.length >= minimum
  const { current, maximum } = drawdowns(trades.map((trade) => trade.profitUnits))
  return {
    minimumSample: minimum,
    enoughSettled: enough,
    settled: trades.length,
    pending: tracked.filter((item) => !item.close).length,
    void: voided.length,
    lateVoid: voided.filter(isLate).length,
    won: trades.filter((trade) => trade.result === 'won').length,
    lost: trades.filter((trade) => trade.result === 'lost').length,
    closed: trades.filter((trade) => trade.result === 'closed').length,
    unitsStaked: roundUnits(trades.reduce((sum, trade) => sum + trade.stake, 0)),
    profitUnits: roundUnits(trades.reduce((sum, trade) => sum + trade.profitUnits, 0)),
    averageReturn: enough ? round(mean(returns)) : null,
    returnInterval: enough ? roundInterval(meanInterval(returns)) : null,
    drawdownUnits: { current: roundUnits(current), maximum: roundUnits(maximum) },
    sharpeRatio: enough ? round(sharpeRatio(returns)) : null,
  }
}

/** A signal as the public sees it, from its entries: content and salt only once revealed. */
export function publicViewOf(tracked: {
  id: string
  publish: LedgerEntry
  close?: LedgerEntry
  content?: SignalContent
  salt?: string
}): SignalView {
  const data = tracked.publish.data as PublishData
  const close = tracked.close
  const settle = close?.type === 'settle' ? (close.data as SettleData) : undefined
  return {
    id: tracked.id,
    kind: data.kind,
    category: data.category,
    status: close ? (close.type === 'void' ? 'void' : 'settled') : 'open',
    commitment: data.commitment,
    publishedAt: tracked.publish.at,
    startsAt: data.startsAt ?? null,
    expiresAt: data.expiresAt ?? null,
    result: settle?.result ?? null,
    profitUnits: settle?.profitUnits ?? null,
    stake: close && tracked.content ? tracked.content.stake : null,
    exitPrice: settle?.exitPrice ?? null,
    settledAt: close?.at ?? null,
    voidReason: close?.type === 'void' ? (close.data as VoidData).reason : null,
    content: close && tracked.content ? tracked.content : null,
    salt: close && tracked.content && tracked.salt ? tracked.salt : null,
  }
}

/** Everything `GET /record` says, from the ledger's entries and revealed signals alone. */
export function computeRecordFigures(source: RecordSource): SignalRecord {
  const minimum = source.minimumSample ?? MIN_SETTLED_FOR_RATIOS
  const asOf = new Date(source.asOf).getTime()
  const tracked = track(source)
  const settled = tracked
    .map(settledOf)
    .filter((signal): signal is Settled => signal !== undefined)
    .sort((a, b) => a.closedSeq - b.closedSeq)
  const voided = tracked.filter((item) => item.close?.type === 'void')
  const voidsWhere = (test: (item: Tracked) => boolean) => voided.filter(test).length

  let units = 0
  const cumulative = settled.map((signal) => {
    units = roundUnits(units + signal.profitUnits)
    return { seq: signal.closedSeq, at: signal.closedAt, units }
  })
  const kinds = [...new Set(tracked.filter((item) => item.close).map((item) => item.publish.data.kind))]
  const categoryKey = (kind: SignalKind, category: string) => `${kind}\u0000${category}`
  const categories = [
    ...new Set(
      tracked
        .filter((item) => item.close)
        .map((item) => categoryKey(item.publish.data.kind, item.publish.data.category)),
    ),
  ]
  const months = [
    ...new Set(
      tracked.filter((item) => item.close).map((item) => (item.close as LedgerEntry).at.slice(0, 7)),
    ),
  ].sort()

  const due = tracked.filter((item) => item.dueAt !== null && new Date(item.dueAt).getTime() <= asOf)
  const overdueLimit = OVERDUE_AFTER_HOURS * 3_600_000
  const overdue = due
    .filter((item) => !item.content && asOf - new Date(item.dueAt as string).getTime() > overdueLimit)
    .sort((a, b) => a.publish.seq - b.publish.seq)
  // The clock moves the figures only where a commitment falls due or turns overdue: the answer names
  // the last such moment (or the last entry), so it stays the same, byte for byte and ETag for ETag,
  // until the next one. Recomputed at that moment, the figures come out the same. An empty ledger's
  // figures have never changed: its moment is the epoch, the same on every instance and every reload.
  let lastChange = 0
  for (const entry of source.entries) lastChange = Math.max(lastChange, Math.min(Date.parse(entry.at), asOf))
  for (const item of tracked) {
    if (item.dueAt === null) continue
    const dueAt = Date.parse(item.dueAt)
    for (const moment of [dueAt, dueAt + overdueLimit + 1])
      if (moment <= asOf) lastChange = Math.max(lastChange, moment)
  }
  const late = voided.filter(isLate).sort((a, b) => (a.close?.seq ?? 0) - (b.close?.seq ?? 0))
  const commitmentOf = (item: Tracked) => ({
    signalId: item.id,
    seq: item.publish.seq,
    kind: item.publish.data.kind,
    category: item.publish.data.category,
    commitment: item.publish.data.commitment,
    dueAt: item.dueAt as string,
  })

  const closedInOrder = tracked
    .filter((item) => item.close)
    .sort((a, b) => (b.close?.seq ?? 0) - (a.close?.seq ?? 0))
  const open = tracked.filter((item) => !item.close).sort((a, b) => b.publish.seq - a.publish.seq)
  const last = source.entries.at(-1)
  return {
    overall: statsOf(settled, voided.length),
    byKind: kinds.map((kind) => ({
      kind,
      ...statsOf(
        settled.filter((signal) => signal.kind === kind),
        voidsWhere((item) => item.publish.data.kind === kind),
      ),
    })),
    byCategory: categories
      .map((key) => {
        const [kind, category] = key.split('\u0000') as [SignalKind, string]
        return {
          kind,
          category,
          ...statsOf(
            settled.filter((signal) => categoryKey(signal.kind, signal.category) === key),
            voidsWhere((item) => categoryKey(item.publish.data.kind, item.publish.data.category) === key),
          ),
        }
      })
      .sort((a, b) => b.settled - a.settled || a.category.localeCompare(b.category)),
    byMonth: months.map((month) => ({
      month,
      ...statsOf(
        settled.filter((signal) => signal.closedAt.slice(0, 7) === month),
        voidsWhere((item) => item.close?.at.slice(0, 7) === month),
      ),
    })),
    cumulative,
    latestSettled: closedInOrder.slice(0, source.latest ?? 10).map(publicViewOf),
    live: open.slice(0, source.live ?? 50).map(publicViewOf),
    head: last ? { seq: last.seq, hash: last.hash } : null,
    since: source.since ? new Date(source.since).toISOString() : null,
    asOf: new Date(lastChange).toISOString(),
    firstPublishedAt: tracked[0]?.publish.at ?? null,
    commitments: {
      made: tracked.length,
      due: due.length,
      revealed: tracked.filter((item) => item.content).length,
      overdue: overdue.length,
      voided: voided.length,
      lateVoided: late.length,
      overdueAfterHours: OVERDUE_AFTER_HOURS,
    },
    overdueCommitments: overdue.map(commitmentOf),
    lateVoids: late.map((item) => ({
      ...commitmentOf(item),
      voidSeq: (item.close as LedgerEntry).seq,
      voidedAt: (item.close as LedgerEntry).at,
      reason: ((item.close as LedgerEntry).data as VoidData).reason,
    })),
    picks: pickFigures(tracked, minimum),
    trading: tradeFigures(tracked, minimum),
  }
}

/**
 * Where two computations of the record differ: the first path whose values are not the same, or
 * null when they agree (for `verify-record`, comparing the published record with its own).
 */
export function firstDifference(published: unknown, recomputed: unknown, path = ''): string | null {
  if (Object.is(published, recomputed)) return null
  if (
    typeof published !== 'object' ||
    typeof recomputed !== 'object' ||
    published === null ||
    recomputed === null ||
    Array.isArray(published) !== Array.isArray(recomputed)
  )
    return `${path || '(root)'}: published ${JSON.stringify(published)}, recomputed ${JSON.stringify(recomputed)}`
  const keys = new Set([...Object.keys(published), ...Object.keys(recomputed)])
  for (const key of keys) {
    const found = firstDifference(
      (published as Record<string, unknown>)[key],
      (recomputed as Record<string, unknown>)[key],
      Array.isArray(published) ? `${path}[${key}]` : path ? `${path}.${key}` : key,
    )
    if (found) return found
  }
  return null
}
