import http from 'node:http'

/**
 * One load-generator process holding live event streams open (bench/lib/stream-readers.ts starts
 * several, so 30,000 sockets fit each process's file limit and the readers' parsing is spread over
 * processes). Every stream is its own socket, never pooled. Arrival times are absolute
 * (performance.timeOrigin + now, in ms) so the parent compares them across processes.
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
  request: http.ClientRequest
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
const ID_IN_DATA = /"id":"([^"]+)"/

function open(target: Target): Promise<Stream> {
  return new Promise((resolve, reject) => {
    const stream: Stream = { arrived: new Map(), request: undefined as unknown as http.ClientRequest }
    stream.request = http.get(target.url, { headers: target.headers, agent: false }, (response) => {
      if (response.statusCode !== 200) {
        response.resume()
        reject(new Error(`the stream answered ${response.statusCode}`))
        return
      }
      response.setEncoding('utf8')
      let buffer = ''
      let connected = false
      response.on('data', (chunk: string) => {
        const at = now()
        buffer += chunk
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end)
          buffer = buffer.slice(end + 2)
          if (!connected && block.includes(': connected')) {
            connected = true
            resolve(stream)
          }
          if (!block.includes('event: signal')) continue
          const id = ID_IN_DATA.exec(block)?.[1]
          if (id && !stream.arrived.has(id)) {
            stream.arrived.set(id, at)
            if (awaited?.id === id && ++awaited.count >= streams.length) answerAwaited()
          }
        }
      })
      response.on('error', () => {})
    })
    stream.request.on('error', reject)
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
    for (const stream of streams) stream.request.destroy()
    process.exit(0)
  }
})
process.send?.({ type: 'ready' })
