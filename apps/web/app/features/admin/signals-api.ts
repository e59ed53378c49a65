import {
  type SettleSignal,
  type SignalInput,
  type SignalKind,
  SignalPageSchema,
  SignalViewSchema,
} from '@edgeclub/shared'
import { useInfiniteQuery } from '@tanstack/react-query'
import { act, fetchData } from './admin-api'

/** Every signal, newest first, in full (the console's readers are admins and analysts). */
export function useAdminSignals(kind: SignalKind | '') {
  return useInfiniteQuery({
    queryKey: ['admin', 'signals', kind],
    queryFn: ({ pageParam }) => {
      const params = new URLSearchParams({ limit: '20' })
      if (kind) params.set('kind', kind)
      if (pageParam) params.set('cursor', String(pageParam))
      return fetchData(`/signals?${params}`, SignalPageSchema)
    },
    initialPageParam: undefined as number | undefined,
    getNextPageParam: (page) => page.nextCursor ?? undefined,
    // Trading signals on BTC, ETH and SOL settle by themselves from the price feed.
    refetchInterval: 30_000,
  })
}

export function publishSignal(input: SignalInput) {
  return act('/signals', 'POST', SignalViewSchema, input)
}

export function settleSignal(id: string, settlement: SettleSignal) {
  return act(`/signals/${encodeURIComponent(id)}/settle`, 'POST', SignalViewSchema, settlement)
}

export function voidSignal(id: string, reason: string) {
  return act(`/signals/${encodeURIComponent(id)}/void`, 'POST', SignalViewSchema, { reason })
}
