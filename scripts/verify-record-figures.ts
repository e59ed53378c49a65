import {
  computeRecordFigures,
  firstDifference,
  type LedgerEntry,
  publicViewOf,
  type RevealedSignal,
  type Sha256Hex,
  type SignalContent,
  type SignalRecord,
} from '@edgeclub/shared'

/**
 * The second half of `verify-record`: the published figures recomputed from the ledger's entries and
 * the revealed signals, with the same function the site uses, and compared field by field. The
 * record says which head and which minute it was computed at, so the recomputation is exact.
 */

export type FiguresCheck = { ok: true; checked: string } | { ok: false; problem: string }

/**
 * Compares a published record (GET /record) with the record recomputed from `entries` (up to the
 * record's head) and `signals` (their revealed content and salt, as GET /record/signals/{id} gives
 * them; each of those views is compared with its entries too).
 */
export function checkRecordFigures(
  record: SignalRecord,
  entries: LedgerEntry[],
  signals: RevealedSignal[],
  sha256: Sha256Hex,
): FiguresCheck {
  const size = record.head?.seq ?? 0
  if (entries.length < size)
    return {
      ok: false,
      problem: `the record counts ${size} entries but only ${entries.length} were downloaded`,
    }
  const upToHead = entries.slice(0, size)
  const recomputed = computeRecordFigures({
    entries: upToHead,
    revealed: signals,
    sha256,
    asOf: record.asOf,
    since: record.since,
  })
  const difference = firstDifference(JSON.parse(JSON.stringify(record)), recomputed)
  if (difference)
    return { ok: false, problem: `the published record differs from its ledger at ${difference}` }

  // Each signal's public page says what its entries say (status, result, profit, dates, reveal).
  const bySignal = new Map<string, LedgerEntry[]>()
  for (const entry of entries) bySignal.set(entry.signalId, [...(bySignal.get(entry.signalId) ?? []), entry])
  for (const signal of signals as (RevealedSignal & Record<string, unknown>)[]) {
    if (!('status' in signal)) continue
    const own = bySignal.get(signal.id) ?? []
    const publish = own.find((entry) => entry.type === 'publish')
    if (!publish) return { ok: false, problem: `signal ${signal.id} has no publish entry` }
    const view = publicViewOf({
      id: signal.id,
      publish,
      close: own.find((entry) => entry.type !== 'publish'),
      ...(signal.content && signal.salt
        ? { content: signal.content as SignalContent, salt: signal.salt }
        : {}),
    })
    const { content: _content, salt: _salt, ...published } = signal
    const { content: _c, salt: _s, ...expected } = view
    const wrong = firstDifference(published, expected)
    if (wrong)
      return { ok: false, problem: `signal ${signal.id}'s public page differs from its entries at ${wrong}` }
  }
  return {
    ok: true,
    checked: `the published figures (${record.commitments.made} commitments, ${record.overall.settled} settled) match the ledger up to #${size}`,
  }
}
