/**
 * What a signal can be: kinds, sports, markets, statuses, results and the bounds of odds and stakes
 * (signals.ts has the schemas built from them). Without zod: the member's Signals tab reads them on
 * its first load.
 */

export const SIGNAL_KINDS = ['pick', 'signal'] as const
export type SignalKind = (typeof SIGNAL_KINDS)[number]
export const SPORTS = ['NFL', 'NBA', 'MLB', 'NHL', 'soccer', 'UFC', 'other'] as const
export const MARKETS = ['moneyline', 'spread', 'total', 'prop', 'other'] as const
export const DIRECTIONS = ['long', 'short'] as const
/** Instruments the site's own price feed covers: their signals settle by themselves. */
export const AUTO_SETTLED_INSTRUMENTS = ['BTC', 'ETH', 'SOL'] as const
export const SIGNAL_STATUSES = ['open', 'settled', 'void'] as const
export const SIGNAL_RESULTS = ['won', 'lost', 'push', 'closed'] as const
export type SignalResult = (typeof SIGNAL_RESULTS)[number]

export const ODDS_MIN = 1.01
export const ODDS_MAX = 1000
export const STAKE_MIN = 0.1
export const STAKE_MAX = 10
export const ANALYSIS_MAX = 5000

/** Decimal odds from American odds: +150 → 2.5, -110 → 1.91 (two decimals, as books quote them). */
export function americanToDecimal(american: number): number | null {
  if (!Number.isFinite(american) || Math.abs(american) < 100) return null
  const decimal = american > 0 ? 1 + american / 100 : 1 + 100 / Math.abs(american)
  return Math.round(decimal * 100) / 100
}

/** A trading signal's result at `exit`, in units of risk: stake × move ÷ distance to the stop. */
export function tradeOutcome(
  signal: {
    direction: (typeof DIRECTIONS)[number]
    entry: number
    target: number
    stop: number
    stake: number
  },
  exit: number,
): { result: 'won' | 'lost' | 'closed'; profitUnits: number } {
  const long = signal.direction === 'long'
  const risk = long ? signal.entry - signal.stop : signal.stop - signal.entry
  const move = long ? exit - signal.entry : signal.entry - exit
  const result = (long ? exit >= signal.target : exit <= signal.target)
    ? 'won'
    : (long ? exit <= signal.stop : exit >= signal.stop)
      ? 'lost'
      : 'closed'
  return { result, profitUnits: roundUnits((signal.stake * move) / risk) }
}

/** A pick's profit in units: won pays stake × (odds − 1), lost costs the stake, push is 0. */
export function pickProfit(pick: { odds: number; stake: number }, result: 'won' | 'lost' | 'push'): number {
  return roundUnits(result === 'won' ? pick.stake * (pick.odds - 1) : result === 'lost' ? -pick.stake : 0)
}

/** Units are kept to 4 decimals, so the ledger's numbers are the same in every language. */
export function roundUnits(value: number): number {
  const rounded = Math.round(value * 10_000) / 10_000
  return Object.is(rounded, -0) ? 0 : rounded
}
