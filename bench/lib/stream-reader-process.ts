import net from 'node:net'

/**
 * One load-generator process holding live event streams open (bench/lib/stream-readers.ts starts
 * several, so 30,000 sockets fit each process's file limit and the readers' work is spread over
 * processes). Every stream is its own socket, never pooled. Arrival times are absolute
 * (performance.timeOrigin + now, in ms) so the parent compares them across processes.
 *
 * The readers stand in for members' phones, which do not share the server's two cores; here they
 * do, so they read as little as they can: a raw socket with the request written by hand, and each
 * received Buffer searched in place for the event's blank-line end, its `event: signal` line and
 * the id in its data. No HTTP parser, no text decoding, no string built per chunk (Node's HTTP client
 * cost about 35 µs of CPU per event received, more than the server spent sending it). The chunked
 * encoding's size lines sit between events and never inside the searched fields.
 *
 * Messages from the parent: `open` (targets and how many connect at once), `arrivals` (when each
 * stream received the event whose data names `id`), `close`.
 */
interface Target {
  url: string
  headers: Record<string, string>
}

interface Stream {
  /** Arrival time of each signal event, by the id its data names. */
  arrived: Map<string, number>
  socket: net.Socket
}

type Message =
  | { type: 'open'; targets: Target[]; concurrency: number }
  | { type: 'arrivals'; id: string }
  | { type: 'await'; id: string; timeoutMs: number }
  | { type: 'close' }

const streams: Stream[] = []
/** An event the parent waits for: answered once every stream has it (or at the timeout), not polled. */
let awaited: { id: string; count: number; timer: NodeJS.Timeout } | undefined

function answerAwaited() {
  if (!awaited) return
  clearTimeout(awaited.timer)
  const { id } = awaited
  awaited = undefined
  process.send?.({ type: 'arrivals', id, times: streams.map((stream) => stream.arrived.get(id) ?? null) })
}
const now = () => performance.timeOrigin + performance.now()

const BLANK_LINE = Buffer.from('\n\n')
const HEADERS_END = Buffer.from('\r\n\r\n')
const CONNECTED = Buffer.from(': connected')
const SIGNAL_EVENT = Buffer.from('event: signal')
const ID_FIELD = Buffer.from('"id":"')
const QUOTE = 0x22

/** The id a signal event's data names, read from the bytes between `"id":"` and the next quote. */
function idIn(block: Buffer): string | undefined {
  const at = block.indexOf(ID_FIELD)
  if (at < 0) return undefined
  const start = at + ID_FIELD.length
  const end = block.indexOf(QUOTE, start)
  return end < 0 ? undefined : block.toString('latin1', start, end)
}

function onlyLineEnds(buffer: Buffer, from: number) {
  for (let i = from; i < buffer.length; i++) if (buffer[i] !== 0x0d && buffer[i] !== 0x0a) return false
  return true
}

function open(target: Target): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const url = new URL(target.url)
    const socket = net.connect({ host: url.hostname, port: Number(url.port) || 80, noDelay: true })
    const stream: Stream = { arrived: new Map(), socket }
    const head = [
      `GET ${url.pathname}${url.search} HTTP/1.1`,
      `host: ${url.host}`,
      ...Object.entries({ accept: 'text/event-stream', ...target.headers }).map(
        ([name, value]) => `${name}: ${value}`,
      ),
      '',
      '',
    ].join('\r\n')
    socket.once('connect', () => socket.write(head))
    // Bytes of an event cut off at the end of the last read, joined to the next read.
    let pending: Buffer | null = null
    let connected = false
    let settled = false
    const fail = (error: Error) => {
      if (settled) return
      settled = true
      socket.destroy()
      reject(error)
    }
    socket.on('data', (chunk: Buffer) => {
      const at = now()
      let buffer = pending ? Buffer.concat([pending, chunk]) : chunk
      pending = null
      if (!connected) {
        const headersEnd = buffer.indexOf(HEADERS_END)
        if (headersEnd < 0) {
          pending = buffer
          return
        }
        const status = buffer.toString('latin1', 9, 12)
        if (status !== '200') return fail(new Error(`the stream answered ${status}`))
        if (buffer.indexOf(CONNECTED, headersEnd) < 0) {
          pending = buffer
          return
        }
        connected = true
        settled = true
        resolve(stream)
        buffer = buffer.subarray(buffer.indexOf(CONNECTED, headersEnd))
      }
      let from = 0
      for (let end = buffer.indexOf(BLANK_LINE); end >= 0; end = buffer.indexOf(BLANK_LINE, from)) {
        const block = buffer.subarray(from, end)
        from = end + 2
        if (block.indexOf(SIGNAL_EVENT) < 0) continue
        const id = idIn(block)
        if (id && !stream.arrived.has(id)) {
          stream.arrived.set(id, at)
          if (awaited?.id === id && ++awaited.count >= streams.length) answerAwaited()
        }
      }
      // What follows the last event is usually only the chunk's closing CRLF: nothing to keep.
      if (from < buffer.length && !onlyLineEnds(buffer, from)) pending = Buffer.from(buffer.subarray(from))
    })
    socket.on('error', fail)
    socket.on('close', () => fail(new Error('the stream closed before it was connected')))
  })
}

async function openAll(targets: Target[], concurrency: number) {
  let next = 0
  const failures: string[] = []
  const worker = async () => {
    while (next < targets.length) {
      const target = targets[next++]!
      try {
        streams.push(await open(target))
      } catch (error) {
        failures.push(error instanceof Error ? error.message : String(error))
      }
    }
  }
  await Promise.all(Array.from({ length: concurrency }, worker))
  return failures
}

process.on('message', (message: Message) => {
  if (message.type === 'open') {
    void openAll(message.targets, message.concurrency).then((failures) =>
      process.send?.({
        type: 'opened',
        count: streams.length,
        failures: failures.slice(0, 5),
        failed: failures.length,
      }),
    )
  } else if (message.type === 'arrivals') {
    process.send?.({
      type: 'arrivals',
      id: message.id,
      times: streams.map((stream) => stream.arrived.get(message.id) ?? null),
    })
  } else if (message.type === 'await') {
    const count = streams.filter((stream) => stream.arrived.has(message.id)).length
    awaited = { id: message.id, count, timer: setTimeout(answerAwaited, message.timeoutMs) }
    if (count >= streams.length) answerAwaited()
  } else if (message.type === 'close') {
    for (const stream of streams) stream.socket.destroy()
    process.exit(0)
  }
})
process.send?.({ type: 'ready' })
