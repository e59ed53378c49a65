/**
 * The statistics behind the record's figures, as plain functions: the same numbers on the server,
 * in `verify-record` and in tests worked by hand. No dependencies, no rounding (callers round).
 */

/** 1.959964: the two-sided 95% point of the standard normal distribution. */
export const Z95 = 1.959963984540054

/**
 * The break-even win rate at decimal odds `odds`: the share of bets that must win for level stakes
 * to end at zero, 1 ÷ odds (at 1.91 that is 52.36%; at 2.00, 50%). Pushes are left out.
 */
export function breakEvenRate(odds: number): number {
  return 1 / odds
}

/**
 * The Wilson score interval for a proportion of `successes` in `trials` at normal point `z`
 * (95% by default): centre (p̂ + z²/2n) ÷ (1 + z²/n), half-width z·√(p̂(1−p̂)/n + z²/4n²) ÷ (1 + z²/n).
 */
export function wilsonInterval(
  successes: number,
  trials: number,
  z = Z95,
): { low: number; high: number } | null {
  if (trials <= 0) return null
  const p = successes / trials
  const z2 = z * z
  const denominator = 1 + z2 / trials
  const centre = (p + z2 / (2 * trials)) / denominator
  const half = (z * Math.sqrt((p * (1 - p)) / trials + z2 / (4 * trials * trials))) / denominator
  return { low: Math.max(0, centre - half), high: Math.min(1, centre + half) }
}

/** ln C(n, k), by summing logs (exact enough for the record's sample sizes). */
function logChoose(n: number, k: number): number {
  let sum = 0
  for (let i = 1; i <= k; i += 1) sum += Math.log(n - k + i) - Math.log(i)
  return sum
}

/**
 * The one-sided binomial p-value: the chance of `successes` or more wins in `trials` if each bet
 * won with probability `p` (the break-even rate). A small value means luck alone rarely does as well.
 */
export function binomialUpperTail(successes: number, trials: number, p: number): number | null {
  if (trials <= 0 || p <= 0 || p >= 1) return null
  if (successes <= 0) return 1
  // ln P(X = k), from k = successes upwards: each term is the last × (n − k)/(k + 1) × p/(1 − p).
  let logTerm =
    logChoose(trials, successes) + successes * Math.log(p) + (trials - successes) * Math.log(1 - p)
  const ratio = Math.log(p) - Math.log(1 - p)
  let total = 0
  for (let k = successes; k <= trials; k += 1) {
    total += Math.exp(logTerm)
    logTerm += Math.log(trials - k) - Math.log(k + 1) + ratio
  }
  return Math.min(1, total)
}

export function mean(values: number[]): number | null {
  if (values.length === 0) return null
  return values.reduce((sum, value) => sum + value, 0) / values.length
}

/** The sample standard deviation (n − 1 in the denominator); null below two values. */
export function sampleStdDev(values: number[]): number | null {
  if (values.length < 2) return null
  const average = mean(values) as number
  const squares = values.reduce((sum, value) => sum + (value - average) ** 2, 0)
  return Math.sqrt(squares / (values.length - 1))
}

/** The 95% interval of a mean by the normal approximation: mean ± 1.96 · s ÷ √n. */
export function meanInterval(values: number[], z = Z95): { low: number; high: number } | null {
  const average = mean(values)
  const deviation = sampleStdDev(values)
  if (average === null || deviation === null) return null
  const half = (z * deviation) / Math.sqrt(values.length)
  return { low: average - half, high: average + half }
}

/**
 * Drawdowns of a sequence of profits in units, starting from 0: the largest fall from a running
 * peak to a later low (maximum), and how far the last total sits below its peak (current).
 */
export function drawdowns(profits: number[]): { current: number; maximum: number } {
  let total = 0
  let peak = 0
  let maximum = 0
  for (const profit of profits) {
    total += profit
    peak = Math.max(peak, total)
    maximum = Math.max(maximum, peak - total)
  }
  return { current: peak - total, maximum }
}

/** The longest run of consecutive `true` (losses) in order. */
export function longestRun(losses: boolean[]): number {
  let longest = 0
  let run = 0
  for (const lost of losses) {
    run = lost ? run + 1 : 0
    longest = Math.max(longest, run)
  }
  return longest
}

/**
 * The losing run to expect in `trials` bets that each win with probability `winRate`: about
 * log base 1/q of (n · p), with q = 1 − p (Schilling, "The longest run of heads", 1990). At 100 bets
 * and 50% that is log₂ 50 ≈ 5.6.
 */
export function expectedLongestLosingRun(trials: number, winRate: number): number | null {
  if (trials <= 0 || winRate <= 0 || winRate >= 1) return null
  const q = 1 - winRate
  return Math.max(0, Math.log(trials * winRate) / Math.log(1 / q))
}

/** The Sharpe ratio of per-signal returns: mean ÷ sample standard deviation (no risk-free rate, not annualised). */
export function sharpeRatio(returns: number[]): number | null {
  const average = mean(returns)
  const deviation = sampleStdDev(returns)
  if (average === null || deviation === null || deviation === 0) return null
  return average / deviation
}
