import { formatDate, formatNumber, mediumDay, mediumMoment } from './intl'
import type { RecordStats, SignalView } from './signals'

/**
 * How signals and record figures read everywhere: the public record page, the member's Signals tab,
 * the admin console, and the messages posted to Discord and emailed say the same things in the same
 * words. Types only from the schemas: the public record page imports this file and must not load a
 * validation library.
 */

/** Units with their sign: "+1.91 u", "−2 u", "0 u". */
export function formatUnits(units: number): string {
  const rounded = Math.round(units * 100) / 100
  if (rounded === 0) return '0 u'
  const text = formatNumber(Math.abs(rounded), { maximumFractionDigits: 2 })
  return `${rounded > 0 ? '+' : '−'}${text} u`
}

/** A rate as a percentage with one decimal, or a dash when there is nothing to divide by. */
export function formatRate(rate: number | null): string {
  if (rate === null) return '—'
  const percent = (rate * 100).toFixed(1)
  return percent.startsWith('-') ? `−${percent.slice(1)}%` : `${percent}%`
}

/** A count with its noun, singular or plural: "1 settled pick", "12 settled picks". */
export function count(value: number, singular: string, plural = `${singular}s`): string {
  return `${formatNumber(value)} ${value === 1 ? singular : plural}`
}

/** The sample a win rate is measured on: won and lost only (pushes and closes do not count). */
export function winRateSample(stats: Pick<RecordStats, 'won' | 'lost'>): string {
  return `${stats.won} won of ${stats.won + stats.lost} decided`
}

export function formatMoment(iso: string | null | undefined): string {
  if (!iso) return '—'
  return mediumMoment(iso)
}

export function formatDay(iso: string | null | undefined): string {
  return iso ? mediumDay(iso) : '—'
}

/** "2026-11" as "November 2026". */
export function formatMonth(month: string): string {
  const [year, index] = month.split('-').map(Number)
  if (!year || !index) return month
  return formatDate(Date.UTC(year, index - 1, 1), { month: 'long', year: 'numeric', timeZone: 'UTC' })
}

/** The first and last characters of a hash, for lists; the full value goes beside it for copying. */
export function shortHash(hash: string): string {
  return hash.length > 16 ? `${hash.slice(0, 10)}…${hash.slice(-6)}` : hash
}

export type SignalStatusLabel = 'Live' | 'Won' | 'Lost' | 'Push' | 'Closed' | 'Void'

/** Where a signal stands: live until settled, then its result, or void. */
export function statusLabel(signal: Pick<SignalView, 'status' | 'result'>): SignalStatusLabel {
  if (signal.status === 'void') return 'Void'
  if (signal.status === 'open') return 'Live'
  switch (signal.result) {
    case 'won':
      return 'Won'
    case 'lost':
      return 'Lost'
    case 'push':
      return 'Push'
    default:
      return 'Closed'
  }
}

const SPORT_NAMES: Record<string, string> = { soccer: 'Soccer', other: 'Other sports' }

/** A sport or instrument as people read it: "Soccer", "NFL", "BTC". */
export function categoryLabel(category: string): string {
  return SPORT_NAMES[category] ?? category
}

export const KIND_LABELS = { pick: 'Sports pick', signal: 'Trading signal' } as const
export const KIND_PLURALS = { pick: 'Sports picks', signal: 'Trading signals' } as const

/** A price as traders write it: up to 8 significant decimals, thousands separated. */
export function formatPrice(value: number): string {
  return formatNumber(value, { maximumFractionDigits: value < 1 ? 8 : 4 })
}

/** What a signal says, in words, when its content is known (a member with access, or once closed). */
export interface SignalDescription {
  /** "NFL · Week 12" for a pick, the instrument for a trading signal. */
  label: string
  /** "Chiefs vs Bills" or "BTC long". */
  title: string
  /** "Chiefs -3.5 (spread) @ 1.91" or "Entry 64,000 · Target 67,500 · Stop 62,500". */
  call: string
  /** "Stake 1 unit". */
  stake: string | undefined
  analysis: string | undefined
}

export function describeSignal(
  signal: Pick<SignalView, 'kind' | 'category' | 'content' | 'stake'>,
): SignalDescription | null {
  const content = signal.content
  if (!content) return null
  const units = content.stake ?? signal.stake ?? undefined
  const stake = units === undefined ? undefined : `Stake ${count(units, 'unit')}`
  const analysis = content.analysis?.trim() ? content.analysis : undefined
  if (content.kind === 'pick') {
    return {
      label: [categoryLabel(content.sport), content.league].filter(Boolean).join(' · '),
      title: content.event,
      call: `${content.selection} (${content.market}) @ ${content.odds}`,
      stake,
      analysis,
    }
  }
  const levels = [
    `Entry ${formatPrice(content.entry)}`,
    `Target ${formatPrice(content.target)}`,
    `Stop ${formatPrice(content.stop)}`,
  ]
  return {
    label: content.instrument,
    title: `${content.instrument} ${content.direction}`,
    call: levels.join(' · '),
    stake,
    analysis,
  }
}

/** When a signal plays: a pick's start, a trading signal's expiry. */
export function timingOf(signal: Pick<SignalView, 'kind' | 'startsAt' | 'expiresAt'>): string {
  return signal.kind === 'pick'
    ? `Starts ${formatMoment(signal.startsAt)}`
    : `Expires ${formatMoment(signal.expiresAt)}`
}

/** A settled signal's outcome in one line: "Won · +0.91 u", "Closed at 3,512 · −0.4 u". */
export function outcomeOf(
  signal: Pick<SignalView, 'status' | 'result' | 'profitUnits' | 'exitPrice' | 'voidReason'>,
): string {
  if (signal.status === 'void') return signal.voidReason ? `Void: ${signal.voidReason}` : 'Void'
  if (signal.status === 'open') return 'Live'
  const label = statusLabel(signal)
  const exit = signal.exitPrice !== null ? ` at ${formatPrice(signal.exitPrice)}` : ''
  const units = signal.profitUnits !== null ? ` · ${formatUnits(signal.profitUnits)}` : ''
  return `${label}${exit}${units}`
}

/** Where a message goes: Discord shows a time in each reader's own time zone; an email says UTC. */
export type MessageStyle = 'discord' | 'email'

const momentIn = (iso: string | null, style: MessageStyle) =>
  !iso
    ? '—'
    : style === 'discord'
      ? `<t:${Math.floor(Date.parse(iso) / 1000)}:f>`
      : new Date(iso).toUTCString()

/**
 * A ledger entry as a message to members (Discord, email): what was published, or how it ended, with
 * the same words the screens use. `subject` names the pick or signal ("NBA · Celtics vs Knicks");
 * `details` is empty for a result; `analysis` only for a publication.
 */
export function signalAnnouncement(
  event: 'publish' | 'settle' | 'void',
  signal: Pick<
    SignalView,
    | 'kind'
    | 'category'
    | 'content'
    | 'stake'
    | 'status'
    | 'result'
    | 'profitUnits'
    | 'exitPrice'
    | 'voidReason'
    | 'startsAt'
    | 'expiresAt'
  >,
  style: MessageStyle,
): { subject: string; headline: string; details: string; analysis: string | undefined } {
  const description = describeSignal(signal)
  // "NFL · Week 12 · Chiefs vs Bills" for a pick, "BTC long" for a trading signal.
  const subject = !description
    ? categoryLabel(signal.category)
    : signal.kind === 'pick'
      ? `${description.label} · ${description.title}`
      : description.title
  if (event !== 'publish')
    return { subject, headline: `${subject}: ${outcomeOf(signal)}`, details: '', analysis: undefined }
  const when =
    signal.kind === 'pick'
      ? `Starts ${momentIn(signal.startsAt, style)}`
      : `Expires ${momentIn(signal.expiresAt, style)}`
  return {
    subject,
    headline: `New ${KIND_LABELS[signal.kind].toLowerCase()} · ${subject}`,
    details: [description?.call, description?.stake, when].filter(Boolean).join(' · '),
    analysis: description?.analysis,
  }
}
