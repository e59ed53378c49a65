import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type Stripe from 'stripe'

/**
 * A stand-in for the app's Stripe webhook endpoint: verifies every delivery with the real SDK's
 * `stripe.webhooks.constructEvent` (raw body + Stripe-Signature) and answers as the test tells it.
 */

export interface ReceivedStripeEvent {
  event: Stripe.Event
  signature: string
  status: number
}

export interface StripeWebhookReceiver {
  url: string
  received: ReceivedStripeEvent[]
  /** Deliveries whose signature did not verify (always answered 400). */
  rejected: string[]
  /** Answer the next deliveries with these statuses, in order; afterwards 200. */
  respondWith(...statuses: number[]): void
  types(): string[]
  waitFor(predicate: (received: ReceivedStripeEvent[]) => boolean, timeoutMs?: number): Promise<void>
  reset(): void
  close(): Promise<void>
}

export async function startStripeWebhookReceiver(
  stripe: Stripe,
  secret: string,
): Promise<StripeWebhookReceiver> {
  const received: ReceivedStripeEvent[] = []
  const rejected: string[] = []
  let script: number[] = []
  const server = http.createServer(async (req, res) => {
    const chunks: Buffer[] = []
    for await (const chunk of req) chunks.push(chunk as Buffer)
    const rawBody = Buffer.concat(chunks)
    const signature = String(req.headers['stripe-signature'] ?? '')
    let event: Stripe.Event
    try {
      event = stripe.webhooks.constructEvent(rawBody, signature, secret)
    } catch (error) {
      rejected.push(error instanceof Error ? error.message : String(error))
      res.writeHead(400).end('bad signature')
      return
    }
    const status = script.shift() ?? 200
    received.push({ event, signature, status })
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ received: status < 300 }))
  })
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.address() as AddressInfo

  return {
    url: `http://127.0.0.1:${port}/api/webhooks/stripe`,
    received,
    rejected,
    respondWith: (...statuses) => {
      script = statuses
    },
    types: () => received.map((entry) => entry.event.type),
    waitFor: async (predicate, timeoutMs = 5_000) => {
      const deadline = Date.now() + timeoutMs
      while (!predicate(received)) {
        if (Date.now() > deadline)
          throw new Error(`webhook receiver: timed out; got ${received.map((r) => r.event.type).join(', ')}`)
        await new Promise((resolve) => setTimeout(resolve, 10))
      }
    },
    reset: () => {
      received.length = 0
      rejected.length = 0
      script = []
    },
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections()
        server.close(() => resolve())
      }),
  }
}
