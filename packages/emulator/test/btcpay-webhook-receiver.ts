import http, { type IncomingHttpHeaders } from 'node:http'
import type { AddressInfo } from 'node:net'
import type { InvoiceWebhookEvent } from '../src/btcpay/greenfield-types'

/** A stand-in for the app's webhook endpoint: records exact bytes and answers as told. */

export interface ReceivedWebhook {
  path: string
  headers: IncomingHttpHeaders
  rawBody: Buffer
  payload: InvoiceWebhookEvent
  /** What the receiver answered. */
  status: number
}

export interface WebhookReceiver {
  url: string
  received: ReceivedWebhook[]
  /** Answer the next requests with these statuses, in order; afterwards 200. */
  respondWith(...statuses: number[]): void
  waitFor(predicate: (received: ReceivedWebhook[]) => boolean, timeoutMs?: number): Promise<void>
  reset(): void
  close(): Promise<void>
}

export async function startWebhookReceiver(): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = []
  let script: number[] = []
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const rawBody = Buffer.concat(chunks)
    const status = script.shift() ?? 200
    received.push({
      path: req.url ?? '/',
      headers: req.headers,
      rawBody,
      payload: JSON.parse(rawBody.toString('utf8')) as InvoiceWebhookEvent,
      status,
    })
    res.writeHead(status, { 'content-type': 'text/plain' })
    res.end(status < 300 ? 'ok' : 'nope')
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}/webhooks/btcpay`,
    received,
    respondWith: (...statuses) => {
      script = statuses
    },
    waitFor: async (predicate, timeoutMs = 5_000) => {
      const deadline = Date.now() + timeoutMs
      while (!predicate(received)) {
        if (Date.now() > deadline) throw new Error(`webhook receiver: condition not met in ${timeoutMs} ms`)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
    reset: () => {
      received.length = 0
      script = []
    },
    close: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections()
        server.close((error) => (error ? reject(error) : resolve()))
      }),
  }
}
