import {
  americanToDecimal,
  PickInputSchema,
  SettleSignalSchema,
  type SignalInput,
  signalMessages,
  TradeSignalInputSchema,
  VoidSignalSchema,
} from '@edgeclub/shared'
import { zodFieldErrors } from '../../lib/form-errors'

export type OddsFormat = 'decimal' | 'american'

/** The publish form as typed: every field a string, as the inputs hold them. */
export interface SignalFormFields {
  kind: 'pick' | 'signal'
  sport: string
  league: string
  event: string
  /** A datetime-local value (the analyst's local time), e.g. 2026-11-30T20:15. */
  startsAt: string
  market: string
  selection: string
  oddsFormat: OddsFormat
  odds: string
  stake: string
  analysis: string
  instrument: string
  direction: string
  entry: string
  target: string
  stop: string
  expiresAt: string
}

export const emptySignalForm: SignalFormFields = {
  kind: 'pick',
  sport: '',
  league: '',
  event: '',
  startsAt: '',
  market: '',
  selection: '',
  oddsFormat: 'decimal',
  odds: '',
  stake: '1',
  analysis: '',
  instrument: '',
  direction: 'long',
  entry: '',
  target: '',
  stop: '',
  expiresAt: '',
}

/** A typed number; blank or anything else that is not a number reads as NaN (the schema's message follows). */
function number(value: string): number {
  const trimmed = value.trim().replace(/,/g, '')
  return trimmed === '' ? Number.NaN : Number(trimmed)
}

/** A datetime-local value as an ISO instant; blank or unreadable stays as typed so the schema names it. */
function instant(value: string): string {
  const date = new Date(value)
  return value && !Number.isNaN(date.getTime()) ? date.toISOString() : value
}

/**
 * American odds (+150, -110) as decimal odds, or null when they are not American odds. Decimal
 * odds are what is stored and committed to; the conversion is the shared one, to two decimals.
 */
export function americanOdds(value: string): number | null {
  const trimmed = value.trim()
  if (!/^[+-]?\d+(\.\d+)?$/.test(trimmed)) return null
  return americanToDecimal(Number(trimmed))
}

/**
 * The publish form as POST /signals will read it, checked with the server's own schemas so the form
 * refuses what the server would, in the same words; plus the start or expiry in the future, which
 * the server checks against its clock too. Blank optional fields are left out.
 */
export function readSignalForm(
  form: SignalFormFields,
  now: Date,
): { ok: true; input: SignalInput } | { ok: false; errors: Record<string, string> } {
  if (form.kind === 'pick') {
    let odds = number(form.odds)
    if (form.oddsFormat === 'american') {
      const converted = americanOdds(form.odds)
      if (converted === null) return { ok: false, errors: { odds: signalMessages.americanOdds } }
      odds = converted
    }
    const parsed = PickInputSchema.safeParse({
      kind: 'pick',
      sport: form.sport,
      league: form.league.trim() || undefined,
      event: form.event,
      startsAt: instant(form.startsAt),
      market: form.market,
      selection: form.selection,
      odds,
      stake: number(form.stake),
      analysis: form.analysis.trim() || undefined,
    })
    if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) }
    if (new Date(parsed.data.startsAt) <= now)
      return { ok: false, errors: { startsAt: signalMessages.startsInPast } }
    return { ok: true, input: parsed.data }
  }
  const parsed = TradeSignalInputSchema.safeParse({
    kind: 'signal',
    instrument: form.instrument,
    direction: form.direction,
    entry: number(form.entry),
    target: number(form.target),
    stop: number(form.stop),
    expiresAt: instant(form.expiresAt),
    stake: form.stake.trim() === '' ? undefined : number(form.stake),
    analysis: form.analysis.trim() || undefined,
  })
  if (!parsed.success) return { ok: false, errors: zodFieldErrors(parsed.error) }
  if (new Date(parsed.data.expiresAt) <= now)
    return { ok: false, errors: { expiresAt: signalMessages.expiresInPast } }
  return { ok: true, input: parsed.data }
}

/** An exit price as typed, for settling a trading signal by hand; the settle call's own schema decides. */
export function readExitPrice(value: string): { ok: true; exitPrice: number } | { ok: false; error: string } {
  const parsed = SettleSignalSchema.safeParse({ exitPrice: number(value) })
  if (!parsed.success || parsed.data.exitPrice === undefined)
    return { ok: false, error: parsed.error?.issues[0]?.message ?? 'The exit price must be above 0' }
  return { ok: true, exitPrice: parsed.data.exitPrice }
}

/** A void's reason as typed; the void call's own schema decides. */
export function readVoidReason(value: string): { ok: true; reason: string } | { ok: false; error: string } {
  const parsed = VoidSignalSchema.safeParse({ reason: value })
  if (!parsed.success)
    return { ok: false, error: parsed.error.issues[0]?.message ?? 'Say why the signal is void' }
  return { ok: true, reason: parsed.data.reason }
}

/** Optional closing odds typed at settlement: empty is none; otherwise decimal odds as the schema allows. */
export function readClosingOdds(
  value: string,
): { ok: true; closingOdds: number | undefined } | { ok: false; error: string } {
  if (value.trim() === '') return { ok: true, closingOdds: undefined }
  const parsed = SettleSignalSchema.safeParse({ result: 'won', closingOdds: number(value) })
  if (!parsed.success)
    return { ok: false, error: parsed.error.issues[0]?.message ?? signalMessages.closingOdds }
  return { ok: true, closingOdds: parsed.data.closingOdds }
}
