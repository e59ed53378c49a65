import http from 'node:http'

/**
 * The floor for live delivery on this machine: a bare Node HTTP server that holds event streams
 * open (GET /bare/stream) and, on POST /bare/publish, writes one event to every one of them, with
 * nothing between (no auth, no database), of the size the app's event has (BARE_EVENT_BYTES). The
 * same readers measure it as the app's streams.
 */
const streams = new Set<http.ServerResponse>()
/** The size of one event on the wire (before chunk framing): the app's, for a trading signal, is ~890 bytes. */
const EVENT_BYTES = Number(process.env.BARE_EVENT_BYTES ?? 890)
let seq = 0
const server = http.createServer((request, response) => {
  if (request.url === '/bare/ready') return void response.end('ok')
  if (request.url === '/bare/stream') {
    response.writeHead(200, {
      'content-type': 'text/event-stream; charset=utf-8',
      'cache-control': 'no-cache',
    })
    response.write('retry: 3000\n: connected\n\n')
    streams.add(response)
    response.on('close', () => streams.delete(response))
    return
  }
  if (request.url === '/bare/publish' && request.method === 'POST') {
    let body = ''
    request.on('data', (chunk) => {
      body += chunk
    })
    request.on('end', () => {
      const id = `bare-${++seq}`
      const data = { type: 'published', seq, signal: { id, ...JSON.parse(body || '{}') }, pad: '' }
      const frame = (json: string) => `id: ${seq}\nevent: signal\ndata: ${json}\n\n`
      // As many bytes as the app's event (its signal view and signed head), so the readers' share is alike.
      data.pad = 'x'.repeat(Math.max(0, EVENT_BYTES - frame(JSON.stringify(data)).length))
      const event = frame(JSON.stringify(data))
      response.writeHead(201, { 'content-type': 'application/json' }).end(JSON.stringify({ data: { id } }))
      for (const stream of streams) stream.write(event)
    })
    return
  }
  response.writeHead(404).end()
})
server.listen(Number(process.env.BARE_PORT), '127.0.0.1')
process.on('SIGTERM', () => {
  for (const stream of streams) stream.destroy()
  server.close(() => process.exit(0))
})
