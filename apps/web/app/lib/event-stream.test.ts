import type { PublicUser } from '@edgeclub/shared'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { createEventParser, nextDelay, openLiveStream, type ServerSentEvent } from './event-stream'
import { session } from './session-store'

describe('the event-stream parser', () => {
  const parse = (chunks: string[]) => {
    const events: ServerSentEvent[] = []
    const retries: number[] = []
    const parser = createEventParser({
      onEvent: (event) => events.push(event),
      onRetry: (ms) => retries.push(ms),
    })
    for (const chunk of chunks) parser.push(chunk)
    return { events, retries, lastEventId: parser.lastEventId() }
  }

  it('reads events split anywhere across chunks, with their type, id and data', () => {
    const text =
      'retry: 3000\n: connected\n\nid: 7\nevent: signal\ndata: {"seq":7}\n\nid: 8\nevent: signal\ndata: {"seq":8}\n\n'
    for (let cut = 0; cut <= text.length; cut += 1) {
      const { events, retries } = parse([text.slice(0, cut), text.slice(cut)])
      expect(events, `cut at ${cut}`).toEqual([
        { event: 'signal', data: '{"seq":7}', id: '7' },
        { event: 'signal', data: '{"seq":8}', id: '8' },
      ])
      expect(retries).toEqual([3000])
    }
  })

  it('follows the standard: CRLF and CR line ends, joined data lines, no space needed, comments skipped', () => {
    const { events, lastEventId } = parse([
      'data:first\r\ndata: second\r\r',
      ': keep-alive\n\n',
      'id: 12\r',
      '\nevent: signal\ndata\n\n',
      'event: ignored without data\n\n',
    ])
    expect(events).toEqual([
      { event: 'message', data: 'first\nsecond', id: undefined },
      { event: 'signal', data: '', id: '12' },
    ])
    expect(lastEventId).toBe('12')
  })

  it('ignores a retry that is not a number and keeps the id for the events after it', () => {
    const { events, retries } = parse(['retry: soon\nid: 3\ndata: a\n\ndata: b\n\n'])
    expect(retries).toEqual([])
    expect(events.map((event) => event.id)).toEqual(['3', '3'])
  })

  it('waits longer after each failure, up to 30 seconds', () => {
    expect([1, 2, 3, 4, 10].map((failures) => nextDelay(3000, failures))).toEqual([
      3000, 6000, 12000, 24000, 30000,
    ])
  })
})

describe('the live stream reader', () => {
  const user: PublicUser = {
    id: 'u1',
    _id: 'u1',
    email: 'ann@example.com',
    firstName: 'Ann',
    lastName: 'Lee',
    discordUsername: 'ann',
    role: 'member',
    tradingInterests: null,
    emailUpdates: false,
    createdAt: '2026-01-05T10:00:00.000Z',
  }
  let requests: { url: string; headers: Record<string, string> }[]

  /** A streamed answer that ends after the given text. */
  const stream = (text: string, status = 200) =>
    new Response(
      new ReadableStream({
        start(controller) {
          controller.enqueue(new TextEncoder().encode(text))
          controller.close()
        },
      }),
      { status, headers: { 'content-type': 'text/event-stream' } },
    )

  beforeEach(() => {
    requests = []
    session.signIn(user, { accessToken: 'access-1', refreshToken: 'refresh-1' })
  })
  afterEach(() => {
    vi.unstubAllGlobals()
    session.clear()
  })

  it('sends the token in the Authorization header only, and resumes from the last event it saw', async () => {
    const answers = [
      stream('retry: 5\n\nid: 41\nevent: signal\ndata: {"seq":41}\n\n'),
      stream('id: 42\nevent: signal\ndata: {"seq":42}\n\n'),
    ]
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      requests.push({ url, headers: init.headers as Record<string, string> })
      return answers.shift() ?? new Promise<Response>(() => {})
    })
    const events: string[] = []
    const opened: boolean[] = []
    const live = openLiveStream({
      path: '/signals/stream',
      onEvent: (event) => events.push(event.data),
      onOpen: ({ resumed }) => opened.push(resumed),
    })
    await vi.waitFor(() => expect(events).toEqual(['{"seq":41}', '{"seq":42}']))
    live.close()
    expect(requests.map((request) => request.url)).toEqual([
      '/discord/api/signals/stream',
      '/discord/api/signals/stream',
      '/discord/api/signals/stream',
    ])
    for (const request of requests) {
      expect(request.url).not.toContain('access-1')
      expect(request.headers.authorization).toBe('Bearer access-1')
    }
    expect(requests[0]?.headers['last-event-id']).toBeUndefined()
    expect(requests[1]?.headers['last-event-id']).toBe('41')
    expect(requests[2]?.headers['last-event-id']).toBe('42')
    // The third connection is still pending: it has not opened.
    expect(opened).toEqual([false, true])
  })

  it('refreshes an expired access token once and reconnects with the new one', async () => {
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      const headers = init.headers as Record<string, string>
      requests.push({ url, headers })
      if (url.endsWith('/auth/refresh-token'))
        return Response.json({ success: true, data: { accessToken: 'access-2', refreshToken: 'refresh-2' } })
      if (headers.authorization === 'Bearer access-1') return new Response('{}', { status: 401 })
      return new Promise<Response>(() => {})
    })
    const live = openLiveStream({ path: '/signals/stream', onEvent: () => {} })
    await vi.waitFor(() => expect(requests).toHaveLength(3))
    live.close()
    expect(requests.map((request) => [request.url, request.headers.authorization])).toEqual([
      ['/discord/api/signals/stream', 'Bearer access-1'],
      ['/discord/api/auth/refresh-token', undefined],
      ['/discord/api/signals/stream', 'Bearer access-2'],
    ])
  })

  it('stops when the session cannot be refreshed', async () => {
    vi.stubGlobal('fetch', async (url: string, init: RequestInit) => {
      requests.push({ url, headers: init.headers as Record<string, string> })
      return new Response(JSON.stringify({ success: false, message: 'Session expired' }), { status: 401 })
    })
    const statuses: string[] = []
    openLiveStream({ path: '/signals/stream', onEvent: () => {}, onStatus: (s) => statuses.push(s) })
    await vi.waitFor(() => expect(statuses.at(-1)).toBe('closed'))
    expect(requests.map((request) => request.url)).toEqual([
      '/discord/api/signals/stream',
      '/discord/api/auth/refresh-token',
    ])
    expect(session.getState().token).toBeNull()
  })
})
