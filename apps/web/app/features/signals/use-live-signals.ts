import type { SignalEvent, SignalView } from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { checkAnswer } from '../../lib/api-client'
import { contract } from '../../lib/contract'
import { openLiveStream, type StreamStatus } from '../../lib/event-stream'
import { usePainted } from '../../lib/use-painted'
import { signalKeys } from './signals-api'

/** What each event of the stream is checked with. */
const signalEvent = contract('SignalEventSchema')

/** The latest event heard for one signal. */
export interface LiveSignal {
  signal: SignalView
  type: SignalEvent['type']
  seq: number
  /** It was published while the tab was open (not only settled or voided then). */
  publishedLive: boolean
  /** When it arrived (ms since the epoch): what a later refetch of the feed already covers. */
  receivedAt: number
}

/**
 * The live signal stream while the Signals tab is open, from once its feed is on screen (`shown`):
 * every event as the server sends it, newest per signal. When the stream (re)opens without resuming
 * (first connection, or a reconnect that lost its place), the feed is fetched again and what it now
 * covers is dropped from the live list; a resumed stream gets what it missed from the server itself
 * (Last-Event-ID).
 */
export function useLiveSignals(onEvent?: (event: SignalEvent) => void, shown = true) {
  const queryClient = useQueryClient()
  const [status, setStatus] = useState<StreamStatus>('connecting')
  const [live, setLive] = useState<ReadonlyMap<string, LiveSignal>>(new Map())
  const onEventRef = useRef(onEvent)
  onEventRef.current = onEvent
  // Opened once the tab's first screen (`shown`: the feed as fetched) is painted, not ahead of it: on
  // a phone the stream, and the fetch of the feed that follows its opening, would otherwise hold back
  // that screen. Nothing published meanwhile is missed: opening fetches the feed again. Once open, it
  // stays open while the tab is (a new filter fetches the feed, not the stream).
  const painted = usePainted(shown)

  useEffect(() => {
    if (!painted) return
    const stream = openLiveStream({
      path: '/signals/stream',
      onStatus: setStatus,
      onOpen: async ({ resumed }) => {
        if (resumed) return
        const fetchedFrom = Date.now()
        await queryClient.refetchQueries({ queryKey: signalKeys.feeds })
        void queryClient.invalidateQueries({ queryKey: ['signals', 'record'] })
        setLive((current) => new Map([...current].filter(([, item]) => item.receivedAt >= fetchedFrom)))
      },
      onEvent: (message) => {
        if (message.event !== 'signal') return
        let data: unknown
        try {
          data = JSON.parse(message.data)
        } catch {
          return
        }
        // Events are applied in the order they came: each waits on the same load of the schema.
        void checkAnswer('GET /signals/stream', signalEvent, data).then(apply)
      },
    })
    const apply = (event: SignalEvent) => {
      setLive((current) => {
        const known = current.get(event.signal.id)
        if (known && known.seq > event.seq) return current
        const next = new Map(current)
        next.set(event.signal.id, {
          signal: event.signal,
          type: event.type,
          seq: event.seq,
          publishedLive: Boolean(known?.publishedLive) || event.type === 'published',
          receivedAt: Date.now(),
        })
        return next
      })
      // A settlement moves the member's record.
      if (event.type !== 'published') void queryClient.invalidateQueries({ queryKey: ['signals', 'record'] })
      onEventRef.current?.(event)
    }
    return () => stream.close()
  }, [queryClient, painted])

  return { status, live }
}

/**
 * The feed as the member sees it: signals published live first (newest first), then the fetched
 * pages, each replaced by its live version when one arrived since. A settlement heard live of a
 * signal on no fetched page stays out of the list: it belongs further down, where it is not loaded.
 */
export function mergeFeed(
  pages: readonly SignalView[],
  live: ReadonlyMap<string, LiveSignal>,
  matches: (signal: SignalView) => boolean,
): SignalView[] {
  const fetched = new Set(pages.map((signal) => signal.id))
  const fresh = [...live.values()]
    .filter((item) => item.publishedLive && !fetched.has(item.signal.id) && matches(item.signal))
    .sort((a, b) => b.signal.publishedAt.localeCompare(a.signal.publishedAt) || b.seq - a.seq)
    .map((item) => item.signal)
  return [...fresh, ...pages.map((signal) => live.get(signal.id)?.signal ?? signal)]
}
