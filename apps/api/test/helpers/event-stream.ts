/** A reader of a server-sent event stream over fetch, the way the dashboard reads it (token in a header). */
export interface EventStreamReader {
  events: { event: string; data: string; id?: string }[]
  /** Resolves with the first event (arrived or arriving) that matches. */
  next(match: (event: { event: string; data: unknown }) => boolean, timeoutMs?: number): Promise<unknown>
  /** Resolves when the server ends the stream. */
  closed: Promise<void>
  close(): void
}

export async function openEventStream(
  url: string,
  token: string,
  headers: Record<string, string> = {},
): Promise<EventStreamReader> {
  const controller = new AbortController()
  const response = await fetch(url, {
    headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...headers },
    signal: controller.signal,
  })
  if (response.status !== 200 || !response.body) throw new Error(`stream answered ${response.status}`)
  const events: EventStreamReader['events'] = []
  const waiters: {
    match: (event: { event: string; data: unknown }) => boolean
    resolve: (data: unknown) => void
  }[] = []
  const decoder = new TextDecoder()
  let buffer = ''
  const deliver = (block: string) => {
    let event = 'message'
    let data = ''
    let id: string | undefined
    for (const line of block.split('\n')) {
      if (line.startsWith('event: ')) event = line.slice(7)
      else if (line.startsWith('data: ')) data += line.slice(6)
      else if (line.startsWith('id: ')) id = line.slice(4)
    }
    if (!data) return
    events.push({ event, data, ...(id ? { id } : {}) })
    const parsed = { event, data: JSON.parse(data) as unknown }
    for (const waiter of [...waiters]) {
      if (waiter.match(parsed)) {
        waiters.splice(waiters.indexOf(waiter), 1)
        waiter.resolve(parsed.data)
      }
    }
  }
  const reader = response.body.getReader()
  const closed = (async () => {
    try {
      for (;;) {
        const { value, done } = await reader.read()
        if (done) return
        buffer += decoder.decode(value, { stream: true })
        let end = buffer.indexOf('\n\n')
        while (end >= 0) {
          deliver(buffer.slice(0, end))
          buffer = buffer.slice(end + 2)
          end = buffer.indexOf('\n\n')
        }
      }
    } catch {
      // Aborted by close(), or the connection dropped.
    }
  })()
  return {
    events,
    closed,
    close: () => controller.abort(),
    next: (match, timeoutMs = 10_000) => {
      for (const item of events) {
        const parsed = { event: item.event, data: JSON.parse(item.data) as unknown }
        if (match(parsed)) return Promise.resolve(parsed.data)
      }
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no matching event arrived')), timeoutMs)
        waiters.push({
          match,
          resolve: (data) => {
            clearTimeout(timer)
            resolve(data)
          },
        })
      })
    },
  }
}
