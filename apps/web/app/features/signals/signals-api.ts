import {
  RecordSchema,
  type SignalKind,
  type SignalPage,
  SignalPageSchema,
  type SignalRecord,
} from '@edgeclub/shared'
import { useInfiniteQuery, useQuery } from '@tanstack/react-query'
import { apiRequest } from '../../lib/api-client'

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

export const FEED_PAGE_SIZE = 20

/** GET /signals, newest first: full content for members with access, the public view for the others. */
export async function fetchSignalPage(filter: FeedFilter, cursor?: number): Promise<SignalPage> {
  const params = new URLSearchParams({ limit: String(FEED_PAGE_SIZE) })
  const kind = filter.sport ? 'pick' : filter.kind
  if (kind) params.set('kind', kind)
  if (filter.sport) params.set('category', filter.sport)
  if (cursor) params.set('cursor', String(cursor))
  const result = await apiRequest(`/signals?${params}`, { schema: SignalPageSchema })
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
export async function fetchOwnRecord(since: string): Promise<SignalRecord> {
  const result = await apiRequest(`/record?since=${encodeURIComponent(since)}`, { schema: RecordSchema })
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
