import os from 'node:os'
/**
 * The result shape every section returns, and the one printer: each figure beside its goal with a
 * mark. A section that cannot measure something yet (the feature is missing, a page 404s) still
 * lists the figure, with a null value and a note, so the gap shows in the table and in the JSON.
 */

export type GoalOp = '<=' | '>=' | '='

export interface Goal {
  op: GoalOp
  target: number | boolean
}

export interface Figure {
  /** Stable key in latest.json, e.g. "pages./.performance". */
  id: string
  label: string
  value: number | boolean | string | null
  unit?: string
  goal?: Goal
  /** true/false against the goal; null when there is no goal or no value. */
  pass: boolean | null
  note?: string
}

export interface SectionOutput {
  figures: Figure[]
  /** Anything worth keeping beside the figures: raw load-test numbers, query plans, resource lists. */
  details?: Record<string, unknown>
  notes?: string[]
}

export interface SectionResult extends SectionOutput {
  title: string
  /** When the section ran (latest.json keeps sections from earlier runs that were not repeated). */
  at: string
  seconds: number
  /** The machine's 1-minute load average at the start and the end: other work skews every figure. */
  load?: { start: number; end: number }
  error?: string
}

export const atMost = (target: number): Goal => ({ op: '<=', target })
export const atLeast = (target: number): Goal => ({ op: '>=', target })
export const equals = (target: number | boolean): Goal => ({ op: '=', target })

function judge(value: Figure['value'], goal: Goal | undefined): boolean | null {
  if (!goal || value === null || typeof value === 'string') return null
  if (goal.op === '=') return value === goal.target
  if (typeof value !== 'number' || typeof goal.target !== 'number') return null
  return goal.op === '<=' ? value <= goal.target : value >= goal.target
}

/** One figure; pass is worked out from the goal so no section can mark its own homework. */
export function figure(
  id: string,
  label: string,
  value: Figure['value'],
  options: { unit?: string; goal?: Goal; note?: string } = {},
): Figure {
  const result: Figure = { id, label, value, pass: judge(value, options.goal) }
  if (options.unit) result.unit = options.unit
  if (options.goal) result.goal = options.goal
  if (options.note) result.note = options.note
  return result
}

/** A figure that cannot be measured yet: shown with its goal, no value and why. */
export function pending(
  id: string,
  label: string,
  note: string,
  options: { unit?: string; goal?: Goal } = {},
): Figure {
  return figure(id, label, null, { ...options, note })
}

export function round(value: number, digits = 0): number {
  const scale = 10 ** digits
  return Math.round(value * scale) / scale
}

function show(value: Figure['value'], unit: string | undefined): string {
  if (value === null) return '—'
  if (typeof value === 'boolean') return value ? 'yes' : 'no'
  return unit ? `${value} ${unit}` : String(value)
}

function showGoal(figure: Figure): string {
  if (!figure.goal) return ''
  const target =
    typeof figure.goal.target === 'boolean' ? (figure.goal.target ? 'yes' : 'no') : String(figure.goal.target)
  const op = figure.goal.op === '=' ? '' : `${figure.goal.op} `
  return `goal ${op}${target}${figure.unit && typeof figure.goal.target === 'number' ? ` ${figure.unit}` : ''}`
}

function mark(figure: Figure): string {
  if (figure.pass === true) return '✓'
  if (figure.pass === false) return '✗'
  return figure.value === null && figure.goal ? '…' : '·'
}

/** The section's figures as an aligned table: mark, label, value, goal, note. */
export function printSection(name: string, result: SectionResult): void {
  const load = result.load
    ? `, load ${result.load.start} → ${result.load.end} on ${os.cpus().length} cores`
    : ''
  console.log(`\n== ${name}: ${result.title} (${result.seconds} s${load})`)
  if (result.error) console.log(`   FAILED: ${result.error}`)
  const rows = result.figures.map((f) => [mark(f), f.label, show(f.value, f.unit), showGoal(f), f.note ?? ''])
  const width = (column: number) => Math.max(0, ...rows.map((row) => row[column]!.length))
  const [w1, w2, w3] = [width(1), width(2), width(3)]
  for (const [m, label, value, goal, note] of rows) {
    console.log(
      `   ${m} ${label!.padEnd(w1)}  ${value!.padStart(w2)}  ${goal!.padEnd(w3)}  ${note}`.trimEnd(),
    )
  }
  for (const note of result.notes ?? []) console.log(`   note: ${note}`)
}

export function tally(sections: Record<string, SectionResult>) {
  const all = Object.values(sections).flatMap((section) => section.figures)
  return {
    passed: all.filter((f) => f.pass === true).length,
    failed: all.filter((f) => f.pass === false).length,
    notMeasured: all.filter((f) => f.value === null && f.goal).length,
  }
}
