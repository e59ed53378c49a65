import type { SettleSignal, SignalInput, SignalKind, SignalPage, SignalRecord } from '@edgeclub/shared'
import { useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { act, apiRequest, fetchData } from '../../lib/api-client'
import { contract } from '../../lib/contract'

/**
 * The signal room's calls for signed-in readers: members' feed and own record, and what staff
 * (admins and analysts) publish, settle and void. The public record's calls are in record-api.ts.
 */

/** What the feed shows: every signal, one kind, or one sport's picks. */
export interface FeedFilter {
  kind: SignalKind | ''
  /** A sport (for picks); blank for every sport. */
  sport: string
}

export const signalKeys = {
  feeds: ['signals', 'feed'] as const,
  feed: (filter: FeedFilter) => ['signals', 'feed', filter.kind, filter.sport] as const,
  record: (since: string) => ['signals', 'record', since] as const,
}

const FEED_PAGE_SIZE = 20

/** GET /signals, newest first: full content for members with access, the public view for the others. */
export async function fetchSignalPage(filter: FeedFilter, cursor?: number): Promise<SignalPage> {
  const params = new URLSearchParams({ limit: String(FEED_PAGE_SIZE) })
  const kind = filter.sport ? 'pick' : filter.kind
  if (kind) params.set('kind', kind)
  if (filter.sport) params.set('category', filter.sport)
  if (cursor) params.set('cursor', String(cursor))
  const result = await apiRequest(`/signals?${params}`, { schema: contract('SignalPageSchema') })
  if (!result.success || !result.data) throw new Error(result.error ?? 'Could not load the signals')
  return result.data
}

export function useSignalFeed(filter: FeedFilter) {
  return useInfiniteQuery({
    queryKey: signalKeys.feed(filter),
    queryFn: ({ pageParam }) => fetchSignalPage(filter, pageParam),
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
  })
}

/** GET /record?since=…: the record of the signals published since the member joined. */
async function fetchOwnRecord(since: string): Promise<SignalRecord> {
  const result = await apiRequest(`/record?since=${encodeURIComponent(since)}`, {
    schema: contract('RecordSchema'),
  })
  if (!result.success || !result.data) throw new Error(result.error ?? 'Could not load your record')
  return result.data
}

export function useOwnRecord(since: string | undefined) {
  return useQuery({
    queryKey: signalKeys.record(since ?? ''),
    queryFn: () => fetchOwnRecord(since ?? ''),
    enabled: Boolean(since),
  })
}

// ---- staff (admins and analysts)

/** Every signal, newest first, in full (the console's readers are admins and analysts). */
export function useAdminSignals(kind: SignalKind | '') {
  return useInfiniteQuery({
    queryKey: ['admin', 'signals', kind],
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ limit: '20' })
      if (kind) params.set('kind', kind)
      if (pageParam) params.set('cursor', String(pageParam))
      return fetchData(`/signals?${params}`, contract('SignalPageSchema'))
    },
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    // Trading signals on BTC, ETH and SOL settle by themselves from the price feed.
    refetchInterval: 30_000,
  })
}

export function publishSignal(input: SignalInput) {
  return act('/signals', 'POST', contract('SignalViewSchema'), input)
}

export function settleSignal(id: string, settlement: SettleSignal) {
  return act(`/signals/${encodeURIComponent(id)}/settle`, 'POST', contract('SignalViewSchema'), settlement)
}

export function voidSignal(id: string, reason: string, afterStart = false) {
  return act(`/signals/${encodeURIComponent(id)}/void`, 'POST', contract('SignalViewSchema'), {
    reason,
    ...(afterStart ? { afterStart: true } : {}),
  })
}
