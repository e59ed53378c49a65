import { createHmac } from 'node:crypto'
import type Stripe from 'stripe'

/**
 * Delivers events to the app's webhook endpoint the way Stripe does: one POST per event, JSON body,
 * `Stripe-Signature: t=<unix>,v1=<HMAC-SHA256 of "t.body">`, retried with backoff on a non-2xx answer
 * or a network error. Deliveries go out one at a time in order of creation; a failed delivery is
 * retried later without holding back the events behind it, as Stripe does not hold them either.
 */

export interface WebhookOptions {
  url?: string
  secret: string
  /** First retry delay; each further retry doubles it. */
  retryDelayMs: number
  /** Attempts per event, the first included. */
  maxAttempts: number
  timeoutMs: number
}

export interface Delivery {
  eventId: string
  type: string
  attempt: number
  /** The endpoint's HTTP status, or null when the request itself failed. */
  status: number | null
  ok: boolean
  error?: string
  url: string
  at: string
  durationMs: number
}

interface Pending {
  event: Stripe.Event
  attempt: number
  dueAt: number
  order: number
}

export function signPayload(
  payload: string,
  secret: string,
  timestamp = Math.floor(Date.now() / 1000),
): string {
  const signature = createHmac('sha256', secret).update(`${timestamp}.${payload}`, 'utf8').digest('hex')
  return `t=${timestamp},v1=${signature}`
}

export class WebhookDispatcher {
  readonly deliveries: Delivery[] = []
  private queue: Pending[] = []
  private order = 0
  private paused = false
  private forcing = 0
  private running = false
  private timer: NodeJS.Timeout | undefined
  private closed = false
  /** Bumped by clear(), so a delivery in flight during a reset is not logged or retried afterwards. */
  private generation = 0
  private idleWaiters: Array<() => void> = []
  private duplicateRules: Array<{ type?: string; times: number }> = []

  constructor(private readonly options: WebhookOptions) {}

  get url(): string | undefined {
    return this.options.url
  }

  set url(url: string | undefined) {
    this.options.url = url || undefined
    this.pump()
  }

  get secret(): string {
    return this.options.secret
  }

  get pending(): number {
    return this.queue.length
  }

  get isPaused(): boolean {
    return this.paused
  }

  configure(options: Partial<Pick<WebhookOptions, 'retryDelayMs' | 'maxAttempts' | 'timeoutMs'>>): void {
    Object.assign(this.options, options)
  }

  /** Queues an event for delivery. Events raised while no endpoint is set are not delivered, like Stripe. */
  enqueue(event: Stripe.Event): void {
    if (!this.options.url) return
    let copies = 1
    const rule = this.duplicateRules.find((r) => !r.type || r.type === event.type)
    if (rule) {
      copies += rule.times
      this.duplicateRules.splice(this.duplicateRules.indexOf(rule), 1)
    }
    for (let i = 0; i < copies; i++) this.queue.push({ event, attempt: 0, dueAt: 0, order: this.order++ })
    this.pump()
  }

  /** Delivers an already-created event `times` more times (Stripe may deliver an event more than once). */
  duplicate(event: Stripe.Event, times = 1): void {
    for (let i = 0; i < times; i++) this.queue.push({ event, attempt: 0, dueAt: 0, order: this.order++ })
    this.pump()
  }

  /** The next event (of `type`, if given) is delivered `times` extra times. */
  duplicateNext(times = 1, type?: string): void {
    this.duplicateRules.push({ times, ...(type ? { type } : {}) })
  }

  pause(): void {
    this.paused = true
  }

  resume(): void {
    this.paused = false
    this.pump()
  }

  /**
   * Delivers everything pending now, paused or not, retries included, and resolves once the queue is
   * empty. `reverse` delivers the pending events newest first.
   */
  async flush(options: { order?: 'created' | 'reverse' } = {}): Promise<Delivery[]> {
    const from = this.deliveries.length
    if (options.order === 'reverse') {
      const sorted = [...this.queue].sort((a, b) => b.order - a.order)
      sorted.forEach((item, index) => {
        item.order = -sorted.length + index
      })
    }
    if (this.queue.length === 0 && !this.running) return []
    this.forcing++
    try {
      await new Promise<void>((resolve) => {
        this.idleWaiters.push(resolve)
        this.pump()
      })
    } finally {
      this.forcing--
    }
    return this.deliveries.slice(from)
  }

  clear(): void {
    this.generation += 1
    this.queue = []
    this.deliveries.length = 0
    this.duplicateRules = []
    this.paused = false
    this.notifyIdle()
  }

  close(): void {
    this.closed = true
    if (this.timer) clearTimeout(this.timer)
    this.queue = []
    this.notifyIdle()
  }

  private notifyIdle(): void {
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const resolve of waiters) resolve()
  }

  private pump(): void {
    if (this.running || this.closed) return
    if (this.timer) {
      clearTimeout(this.timer)
      this.timer = undefined
    }
    if (this.queue.length === 0) {
      this.notifyIdle()
      return
    }
    if ((this.paused && this.forcing === 0) || !this.options.url) {
      // Nothing will be delivered, so a flush waiting on an unset endpoint must not hang.
      if (!this.options.url) this.notifyIdle()
      return
    }
    const now = Date.now()
    const due = this.queue.filter((item) => item.dueAt <= now).sort((a, b) => a.order - b.order)[0]
    if (!due) {
      const next = Math.min(...this.queue.map((item) => item.dueAt))
      this.timer = setTimeout(() => this.pump(), Math.max(0, next - now))
      this.timer.unref()
      return
    }
    this.queue.splice(this.queue.indexOf(due), 1)
    this.running = true
    void this.deliver(due).finally(() => {
      this.running = false
      this.pump()
    })
  }

  private async deliver(item: Pending): Promise<void> {
    const url = this.options.url
    if (!url) return
    item.attempt += 1
    const generation = this.generation
    const payload = JSON.stringify(item.event, null, 2)
    const started = Date.now()
    let status: number | null = null
    let error: string | undefined
    try {
      const response = await fetch(url, {
        method: 'POST',
        headers: {
          'content-type': 'application/json; charset=utf-8',
          'user-agent': 'Stripe/1.0 (+https://stripe.com/docs/webhooks)',
          'stripe-signature': signPayload(payload, this.options.secret),
        },
        body: payload,
        signal: AbortSignal.timeout(this.options.timeoutMs),
      })
      status = response.status
      await response.arrayBuffer().catch(() => undefined)
    } catch (cause) {
      error = cause instanceof Error ? cause.message : String(cause)
    }
    const ok = status !== null && status >= 200 && status < 300
    if (generation !== this.generation) return
    this.deliveries.push({
      eventId: item.event.id,
      type: item.event.type,
      attempt: item.attempt,
      status,
      ok,
      ...(error ? { error } : {}),
      url,
      at: new Date(started).toISOString(),
      durationMs: Date.now() - started,
    })
    if (ok) {
      item.event.pending_webhooks = Math.max(0, item.event.pending_webhooks - 1)
      return
    }
    if (item.attempt < this.options.maxAttempts && !this.closed) {
      item.dueAt = Date.now() + this.options.retryDelayMs * 2 ** (item.attempt - 1)
      this.queue.push(item)
    }
  }
}
