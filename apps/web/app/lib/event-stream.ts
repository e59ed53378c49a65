import { API_BASE } from '@edgeclub/shared'
import { refreshAccessToken } from './api-client'
import { session } from './session-store'

/**
 * Server-sent events read with fetch rather than EventSource: EventSource cannot send headers, and
 * the access token must travel in the Authorization header, never in a URL (URLs end up in logs).
 * The reader does what EventSource does besides: it reconnects after the server's `retry` delay,
 * sends the id of the last event it saw as Last-Event-ID so the server replays what was missed,
 * and, on a 401, refreshes the access token once before it tries again.
 */

export interface ServerSentEvent {
  /** The event's type (`event:` field); "message" when the server named none. */
  event: string
  data: string
  /** The last event id the stream set, if any (`id:` field). */
  id: string | undefined
}

/**
 * An incremental parser of the text/event-stream format (the HTML standard's rules): fields per
 * line, an empty line dispatches, comments (": ...") are skipped, data lines join with "\n", and a
 * chunk may end anywhere, even between "\r" and "\n".
 */
export function createEventParser(handlers: {
  onEvent: (event: ServerSentEvent) => void
  onRetry?: (milliseconds: number) => void
}) {
  let buffer = ''
  let data: string[] = []
  let type = ''
  let lastId: string | undefined

  const line = (text: string) => {
    if (text === '') {
      if (data.length > 0) handlers.onEvent({ event: type || 'message', data: data.join('\n'), id: lastId })
      data = []
      type = ''
      return
    }
    if (text.startsWith(':')) return
    const colon = text.indexOf(':')
    const field = colon < 0 ? text : text.slice(0, colon)
    let value = colon < 0 ? '' : text.slice(colon + 1)
    if (value.startsWith(' ')) value = value.slice(1)
    if (field === 'data') data.push(value)
    else if (field === 'event') type = value
    else if (field === 'id' && !value.includes('\u0000')) lastId = value
    else if (field === 'retry' && /^\d+$/.test(value)) handlers.onRetry?.(Number(value))
  }

  return {
    push(chunk: string) {
      buffer += chunk
      for (;;) {
        const end = buffer.search(/\r\n|\r|\n/)
        if (end < 0) return
        // A lone "\r" at the very end may be the first half of "\r\n": wait for the next chunk.
        if (buffer[end] === '\r' && end === buffer.length - 1) return
        const breakLength = buffer.startsWith('\r\n', end) ? 2 : 1
        line(buffer.slice(0, end))
        buffer = buffer.slice(end + breakLength)
      }
    },
    /** The id of the last event seen, for Last-Event-ID. */
    lastEventId: () => lastId,
  }
}

export type StreamStatus = 'connecting' | 'open' | 'reconnecting' | 'closed'

export interface LiveStreamOptions {
  /** The API path, e.g. /signals/stream. */
  path: string
  onEvent: (event: ServerSentEvent) => void
  onStatus?: (status: StreamStatus) => void
  /**
   * Called each time the stream (re)opens. `resumed` is true when it sent a Last-Event-ID, so the
   * server replays anything missed; otherwise whatever happened before this moment must be
   * fetched anew by the caller.
   */
  onOpen?: (info: { resumed: boolean }) => void
}

/** How long to wait before the next attempt: the server's retry at first, then doubling to 30 s. */
export function nextDelay(baseMs: number, failures: number): number {
  return Math.min(30_000, baseMs * 2 ** Math.max(0, failures - 1))
}

/** Opens a live stream; it keeps reconnecting until `close()` or until the session ends. */
export function openLiveStream(options: LiveStreamOptions): { close: () => void } {
  const controller = new AbortController()
  let retryMs = 3_000
  let lastEventId: string | undefined
  let failures = 0
  let refreshedLast = false

  const wait = (milliseconds: number) =>
    new Promise<void>((resolve) => {
      const timer = setTimeout(resolve, milliseconds)
      controller.signal.addEventListener('abort', () => {
        clearTimeout(timer)
        resolve()
      })
    })

  /** One connection: how it ended decides how soon the next one starts. */
  async function connect(): Promise<'ended' | 'refreshed' | 'stop'> {
    const token = session.getState().token
    if (!token) return 'stop'
    const headers: Record<string, string> = {
      accept: 'text/event-stream',
      authorization: `Bearer ${token}`,
    }
    if (lastEventId !== undefined) headers['last-event-id'] = lastEventId
    const response = await fetch(`${API_BASE}${options.path}`, {
      headers,
      cache: 'no-store',
      signal: controller.signal,
    })
    if (response.status === 401) {
      // The access token expired (the server also ends a stream when it does): refresh, then retry.
      await response.body?.cancel()
      return (await refreshAccessToken()) ? 'refreshed' : 'stop'
    }
    if (!response.ok || !response.body) {
      await response.body?.cancel()
      throw new Error(`The live stream answered ${response.status}`)
    }
    failures = 0
    options.onStatus?.('open')
    options.onOpen?.({ resumed: lastEventId !== undefined })
    const parser = createEventParser({
      onEvent: (event) => {
        lastEventId = event.id
        options.onEvent(event)
      },
      onRetry: (milliseconds) => {
        retryMs = milliseconds
      },
    })
    const reader = response.body.pipeThrough(new TextDecoderStream()).getReader()
    for (;;) {
      const { value, done } = await reader.read()
      if (done) return 'ended'
      parser.push(value)
    }
  }

  void (async () => {
    options.onStatus?.('connecting')
    while (!controller.signal.aborted) {
      let outcome: 'ended' | 'refreshed' | 'stop' | 'failed'
      try {
        outcome = await connect()
      } catch {
        outcome = 'failed'
      }
      if (controller.signal.aborted || outcome === 'stop') break
      // A fresh token is tried at once, but only once: a second 401 in a row waits like a failure.
      if (outcome === 'refreshed' && !refreshedLast) {
        refreshedLast = true
        continue
      }
      refreshedLast = false
      options.onStatus?.('reconnecting')
      // A stream that ended normally (the server rotates them) reconnects after its retry delay;
      // one that keeps failing waits longer each time.
      if (outcome !== 'ended') failures += 1
      await wait(outcome === 'ended' ? retryMs : nextDelay(retryMs, failures))
    }
    options.onStatus?.('closed')
  })()

  return { close: () => controller.abort() }
}
