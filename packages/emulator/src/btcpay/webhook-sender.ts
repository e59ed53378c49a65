import { createHmac } from 'node:crypto'
import { BtcpayError } from './errors'
import type {
  WebhookData,
  WebhookDeliveryData,
  WebhookDeliveryStatus,
  WebhookEventType,
} from './greenfield-types'
import { newBtcpayId } from './ids'
import type { InvoiceEventDraft } from './invoice-store'

/**
 * Webhook deliveries as BTCPay Server makes them: one ordered queue per webhook, a POST with the
 * JSON body signed in `BTCPay-Sig`, and on failure an automatic redelivery (a new delivery id,
 * isRedelivery true, originalDeliveryId pointing at the first). As in BTCPay, a redelivery goes to
 * the back of the queue after its delay, so later events are not held up by a failing one: a
 * receiver must cope with InvoiceSettled arriving before a retried InvoiceReceivedPayment.
 */

export interface WebhookConfig extends WebhookData {
  secret: string
}

/** Greenfield's delivery statuses plus 'Pending' for a delivery not yet attempted. */
export type DeliveryStatus = WebhookDeliveryStatus | 'Pending'

export interface DeliveryRecord extends Omit<WebhookDeliveryData, 'status'> {
  status: DeliveryStatus
  webhookId: string
  type: WebhookEventType
  invoiceId: string
  originalDeliveryId: string
  isRedelivery: boolean
  /** Sent again byte for byte by `duplicate` (a network-level duplicate, not a BTCPay redelivery). */
  duplicate: boolean
  /** Which automatic retry this is: 0 for a first delivery or a manual redelivery. */
  retry: number
  /** The webhook URL at the time of sending; null while pending. */
  url: string | null
  /** The exact bytes sent (and signed). */
  body: string
  /** The `BTCPay-Sig` header value sent; null while pending. */
  signature: string | null
}

export interface WebhookSenderOptions {
  now: () => number
  /** Delay before each automatic redelivery; its length is the number of retries. */
  retryDelaysMs: number[]
  timeoutMs: number
}

export function signBody(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body, 'utf8').digest('hex')}`
}

interface WebhookState {
  config: WebhookConfig
  queue: DeliveryRecord[]
  sending: boolean
}

export class WebhookSender {
  private readonly webhooks = new Map<string, WebhookState>()
  private log: DeliveryRecord[] = []
  private paused = false
  private disposed = false
  /** >0 while a flush runs: retries fire at once instead of after their delay. */
  private expedite = 0
  private readonly scheduled = new Map<ReturnType<typeof setTimeout>, () => void>()
  private idleWaiters: (() => void)[] = []
  private readonly inFlight = new AbortController()

  constructor(private readonly options: WebhookSenderOptions) {}

  addWebhook(config: WebhookConfig): WebhookConfig {
    this.webhooks.set(config.id, { config, queue: [], sending: false })
    this.pump(config.id)
    return config
  }

  getWebhook(webhookId: string): WebhookConfig | undefined {
    return this.webhooks.get(webhookId)?.config
  }

  listWebhooks(): WebhookConfig[] {
    return [...this.webhooks.values()].map((state) => state.config)
  }

  updateWebhook(webhookId: string, change: Partial<Omit<WebhookConfig, 'id'>>): WebhookConfig | undefined {
    const state = this.webhooks.get(webhookId)
    if (!state) return undefined
    Object.assign(state.config, change)
    this.pump(webhookId)
    return state.config
  }

  removeWebhook(webhookId: string): boolean {
    const state = this.webhooks.get(webhookId)
    if (!state) return false
    this.webhooks.delete(webhookId)
    this.log = this.log.filter((entry) => entry.webhookId !== webhookId || entry.status !== 'Pending')
    this.checkIdle()
    return true
  }

  publish(event: InvoiceEventDraft): void {
    for (const state of this.webhooks.values()) {
      const { config } = state
      if (!config.enabled) continue
      if (!config.authorizedEvents.everything && !config.authorizedEvents.specificEvents.includes(event.type))
        continue
      const deliveryId = newBtcpayId()
      const timestamp = this.options.now()
      const body = JSON.stringify({
        ...event.fields,
        deliveryId,
        webhookId: config.id,
        originalDeliveryId: deliveryId,
        isRedelivery: false,
        type: event.type,
        timestamp,
        storeId: event.storeId,
        invoiceId: event.invoiceId,
        metadata: event.metadata,
      })
      this.enqueue(state, {
        id: deliveryId,
        webhookId: config.id,
        type: event.type,
        invoiceId: event.invoiceId,
        originalDeliveryId: deliveryId,
        isRedelivery: false,
        duplicate: false,
        retry: 0,
        timestamp,
        sentTimestamp: null,
        httpCode: null,
        errorMessage: null,
        status: 'Pending',
        url: null,
        body,
        signature: null,
      })
    }
  }

  /** Every delivery (and pending one) in creation order. Copies: callers cannot disturb the queue. */
  deliveries(): DeliveryRecord[] {
    return this.log.map((entry) => ({ ...entry }))
  }

  /** BTCPay's redeliver: the same event under a new delivery id. Returns that id. */
  redeliver(deliveryId: string): string {
    const source = this.findSent(deliveryId)
    const state = this.webhooks.get(source.webhookId)
    if (!state) throw new BtcpayError(404, `webhook ${source.webhookId} no longer exists`)
    return this.enqueue(state, this.redeliveryOf(source, 0)).id
  }

  /** The same bytes again, same delivery id: what a receiver sees when a response is lost in transit. */
  duplicate(deliveryId: string): void {
    const source = this.findSent(deliveryId)
    const state = this.webhooks.get(source.webhookId)
    if (!state) throw new BtcpayError(404, `webhook ${source.webhookId} no longer exists`)
    this.enqueue(state, {
      ...source,
      duplicate: true,
      retry: 0,
      status: 'Pending',
      sentTimestamp: null,
      httpCode: null,
      errorMessage: null,
      url: null,
      signature: null,
    })
  }

  pause(): void {
    this.paused = true
  }

  resume(): void {
    this.paused = false
    for (const webhookId of this.webhooks.keys()) this.pump(webhookId)
  }

  get isPaused(): boolean {
    return this.paused
  }

  /** Reverses what waits in each queue (the delivery being sent, if any, is already gone). */
  reversePending(): void {
    for (const state of this.webhooks.values()) state.queue.reverse()
  }

  /**
   * Resumes delivery, fires scheduled redeliveries at once, and resolves when nothing is left to
   * send. Rejects rather than hang when deliveries wait for a webhook that has no URL yet.
   */
  async flush(): Promise<void> {
    const stuck = [...this.webhooks.values()].filter((state) => !state.config.url && state.queue.length > 0)
    if (stuck.length > 0) {
      const count = stuck.reduce((sum, state) => sum + state.queue.length, 0)
      throw new Error(`${count} webhook deliveries wait for a webhook URL; set one first`)
    }
    this.expedite += 1
    try {
      this.paused = false
      for (const [timer, fire] of [...this.scheduled]) {
        clearTimeout(timer)
        this.scheduled.delete(timer)
        fire()
      }
      for (const webhookId of this.webhooks.keys()) this.pump(webhookId)
      await new Promise<void>((resolve) => {
        this.idleWaiters.push(resolve)
        this.checkIdle()
      })
    } finally {
      this.expedite -= 1
    }
  }

  /** Forgets every delivery and pending retry; the webhooks themselves stay. */
  clear(): void {
    for (const timer of this.scheduled.keys()) clearTimeout(timer)
    this.scheduled.clear()
    for (const state of this.webhooks.values()) state.queue = []
    this.log = []
    this.checkIdle()
  }

  dispose(): void {
    this.disposed = true
    this.clear()
    this.inFlight.abort()
    for (const resolve of this.idleWaiters.splice(0)) resolve()
  }

  private findSent(deliveryId: string): DeliveryRecord {
    const source = this.log.find((entry) => entry.id === deliveryId && !entry.duplicate)
    if (!source) throw new BtcpayError(404, `no delivery ${deliveryId}`)
    return source
  }

  private redeliveryOf(source: DeliveryRecord, retry: number): DeliveryRecord {
    const payload = JSON.parse(source.body) as Record<string, unknown>
    const id = newBtcpayId()
    payload.deliveryId = id
    // A redelivery of a redelivery still points at the very first delivery, as in BTCPay.
    payload.originalDeliveryId = source.originalDeliveryId
    payload.isRedelivery = true
    return {
      ...source,
      id,
      isRedelivery: true,
      duplicate: false,
      retry,
      status: 'Pending',
      sentTimestamp: null,
      httpCode: null,
      errorMessage: null,
      url: null,
      signature: null,
      body: JSON.stringify(payload),
    }
  }

  private enqueue(state: WebhookState, entry: DeliveryRecord): DeliveryRecord {
    if (this.disposed) return entry
    this.log.push(entry)
    state.queue.push(entry)
    this.pump(entry.webhookId)
    return entry
  }

  private pump(webhookId: string): void {
    const state = this.webhooks.get(webhookId)
    if (!state || state.sending || this.paused || this.disposed || !state.config.url) return
    if (state.queue.length === 0) {
      this.checkIdle()
      return
    }
    state.sending = true
    void (async () => {
      try {
        while (!this.paused && !this.disposed && state.config.url && state.queue.length > 0) {
          const entry = state.queue.shift()!
          await this.send(state, entry)
        }
      } finally {
        state.sending = false
        this.checkIdle()
      }
    })()
  }

  private async send(state: WebhookState, entry: DeliveryRecord): Promise<void> {
    const { config } = state
    entry.url = config.url
    entry.signature = signBody(entry.body, config.secret)
    try {
      const response = await fetch(config.url, {
        method: 'POST',
        headers: { 'content-type': 'application/json; charset=utf-8', 'BTCPay-Sig': entry.signature },
        body: entry.body,
        signal: AbortSignal.any([this.inFlight.signal, AbortSignal.timeout(this.options.timeoutMs)]),
      })
      await response.arrayBuffer().catch(() => undefined)
      entry.httpCode = response.status
      entry.status = response.ok ? 'HttpSuccess' : 'HttpError'
      entry.errorMessage = response.ok ? null : `HTTP ${response.status}`
    } catch (error) {
      entry.status = 'Failed'
      const cause = error instanceof Error && error.cause instanceof Error ? `: ${error.cause.message}` : ''
      entry.errorMessage = `${error instanceof Error ? error.message : String(error)}${cause}`
    }
    entry.sentTimestamp = this.options.now()
    if (entry.status !== 'HttpSuccess') this.scheduleRetry(entry)
  }

  private scheduleRetry(entry: DeliveryRecord): void {
    const webhook = this.webhooks.get(entry.webhookId)
    if (!webhook?.config.automaticRedelivery || entry.duplicate || this.disposed) return
    const delay = this.options.retryDelaysMs[entry.retry]
    if (delay === undefined) return
    const fire = () => {
      const state = this.webhooks.get(entry.webhookId)
      if (state) this.enqueue(state, this.redeliveryOf(entry, entry.retry + 1))
    }
    if (this.expedite > 0) {
      fire()
      return
    }
    const timer = setTimeout(() => {
      this.scheduled.delete(timer)
      fire()
      this.checkIdle()
    }, delay)
    // A retry waiting in the background must not keep a test run or CLI process alive.
    timer.unref()
    this.scheduled.set(timer, fire)
  }

  private checkIdle(): void {
    if (this.idleWaiters.length === 0) return
    if (this.scheduled.size > 0) return
    for (const state of this.webhooks.values()) {
      if (state.sending) return
      if (state.config.url && state.queue.length > 0) return
    }
    for (const resolve of this.idleWaiters.splice(0)) resolve()
  }
}
