import type { LedgerEntry, SignalView } from '@edgeclub/shared'
import type { SignalLedgerRow, SignalRow } from '../../db/types'
import type { CsvColumn } from '../../lib/csv'

/** Who reads a signal: staff and members with access see its content; everyone sees it once it is closed. */
export type Reader = 'full' | 'public'

export function toSignalView(row: SignalRow, reader: Reader): SignalView {
  const closed = row.status !== 'open'
  const open = reader === 'full' || closed
  return {
    id: row.id,
    kind: row.kind,
    category: row.category,
    status: row.status,
    commitment: row.commitment,
    publishedAt: new Date(row.published_at).toISOString(),
    startsAt: row.starts_at ? new Date(row.starts_at).toISOString() : null,
    expiresAt: row.expires_at ? new Date(row.expires_at).toISOString() : null,
    result: row.result,
    profitUnits: row.profit_units,
    stake: open ? row.stake : null,
    exitPrice: closed ? row.exit_price : null,
    settledAt: row.settled_at ? new Date(row.settled_at).toISOString() : null,
    voidReason: row.void_reason,
    content: open ? row.content : null,
    salt: closed ? row.salt : null,
  }
}

export function toLedgerEntry(row: SignalLedgerRow): LedgerEntry {
  return {
    seq: row.seq,
    type: row.type,
    signalId: row.signal_id,
    at: row.at,
    prevHash: row.prev_hash,
    hash: row.hash,
    data: row.data,
  }
}

/** The ledger as a CSV download (GET /record/ledger?format=csv): one entry per line, `data` as JSON. */
export const LEDGER_COLUMNS: CsvColumn<LedgerEntry>[] = [
  { header: 'seq', value: (entry) => entry.seq },
  { header: 'type', value: (entry) => entry.type },
  { header: 'signalId', value: (entry) => entry.signalId },
  { header: 'at', value: (entry) => entry.at },
  { header: 'prevHash', value: (entry) => entry.prevHash },
  { header: 'hash', value: (entry) => entry.hash },
  { header: 'data', value: (entry) => JSON.stringify(entry.data) },
]
