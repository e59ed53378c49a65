import { API_BASE, type SignalRecord } from '@edgeclub/shared'

/** The public ledger downloads and the per-signal reveal, as links anyone can open. */
export const recordLinks = {
  ledgerJson: `${API_BASE}/record/ledger?limit=1000`,
  ledgerCsv: `${API_BASE}/record/ledger?format=csv&limit=1000`,
  signal: (id: string) => `${API_BASE}/record/signals/${encodeURIComponent(id)}`,
}

const RECORD_FAILED = 'The record could not be loaded. Please try again.'

/**
 * GET /record, for the public record page. No schema library here (the page must stay light): the
 * answer is checked for the parts the page reads, and anything else is an error the page shows.
 */
export async function fetchRecord(signal: AbortSignal): Promise<SignalRecord> {
  // Always asked afresh (a 304 when nothing moved, thanks to the ETag): a settlement shows at once,
  // not after the shared caches' stale-while-revalidate window.
  const response = await fetch(`${API_BASE}/record`, {
    signal,
    cache: 'no-cache',
    headers: { accept: 'application/json' },
  })
  if (!response.ok) throw new Error(RECORD_FAILED)
  const body = (await response.json().catch(() => undefined)) as { data?: Partial<SignalRecord> } | undefined
  const data = body?.data
  const lists = [
    'byKind',
    'byCategory',
    'byMonth',
    'cumulative',
    'latestSettled',
    'live',
    'overdueCommitments',
    'lateVoids',
  ] as const
  if (
    !data?.overall ||
    !data.commitments ||
    !data.picks ||
    !data.trading ||
    lists.some((key) => !Array.isArray(data[key]))
  )
    throw new Error(RECORD_FAILED)
  return data as SignalRecord
}
