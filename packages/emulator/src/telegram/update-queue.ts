import type { Update, WebhookInfo } from '@grammyjs/types'
import { conflict } from './errors'
import type { UpdateBody } from './state'

/**
 * The bot's updates as Telegram queues them: numbered with increasing update_id, kept until the bot
 * takes them (getUpdates) or its webhook answers 2xx, and dropped after 24 hours. A webhook gets
 * each update as a JSON POST with X-Telegram-Bot-Api-Secret-Token when a secret was set; updates of
 * one chat go one at a time and in order, up to max_connections at once. A delivery that fails is
 * retried like Telegram's WebhookActor does: at once, then after 2, 4, 8 ... seconds (at most about
 * a minute), or after the Retry-After the webhook asked for, and getWebhookInfo shows
 * pending_update_count, last_error_date and last_error_message ("Wrong response from the webhook:
 * 500 Internal Server Error"). A 2xx answer whose JSON body names a `method` is run as an API call,
 * as Telegram runs webhook replies.
 */

export type UpdateType = Exclude<keyof Update, 'update_id'>

export interface WebhookOptions {
  /** Unit of the retry back-off: the second retry waits 2x this, the third 4x ... (default 1000 ms). */
  retryBaseMs?: number
  /** Longest wait between retries (default 60 000 ms, Telegram's WEBHOOK_MAX_RESEND_TIMEOUT). */
  retryMaxMs?: number
  /** How long a delivery may take before it counts as failed (default 10 000 ms). */
  timeoutMs?: number
}

export interface DeliveryRecord {
  updateId: number
  type: UpdateType
  url: string
  attempt: number
  at: string
  /** The webhook's HTTP status, or null when there was no answer. */
  status: number | null
  /** What getWebhookInfo's last_error_message said about this attempt, if it failed. */
  error: string | null
  /** The attempt carried X-Telegram-Bot-Api-Secret-Token. */
  withSecret: boolean
  /** A forced failure: the webhook was not called. */
  forced: boolean
}

interface Pending {
  update: Update
  type: UpdateType
  /** Updates of one chat are delivered in order, one at a time. */
  queueKey: string
  createdAt: number
  attempts: number
  /** The back-off unit count for the next failure (Telegram's `delay_`). */
  delay: number
  notBefore: number
}

interface Webhook {
  url: string
  secretToken: string
  maxConnections: number
}

/** Telegram sends every update type except these unless the bot names them in allowed_updates. */
const NOT_BY_DEFAULT: UpdateType[] = ['chat_member', 'message_reaction', 'message_reaction_count']
const MAX_AGE_MS = 24 * 60 * 60 * 1000
const WEBHOOK_REPLY_REFUSED = new Set(['setwebhook', 'deletewebhook', 'close', 'logout'])

export type WebhookReplyRunner = (method: string, values: Map<string, string>) => Promise<void>

export class UpdateQueue {
  private pending: Pending[] = []
  private readonly inFlight = new Set<string>()
  private readonly controllers = new Set<AbortController>()
  private webhook: Webhook | null = null
  private allowed: Set<UpdateType> | null = null
  private nextUpdateId = 1
  private lastError: { date: number; message: string } | null = null
  private forcedFailures: Array<{ status: number }> = []
  private timer: NodeJS.Timeout | null = null
  private closed = false
  private waiters: Array<() => void> = []
  private idleWaiters: Array<() => void> = []
  readonly deliveries: DeliveryRecord[] = []
  private readonly retryBaseMs: number
  private readonly retryMaxMs: number
  private readonly timeoutMs: number

  constructor(
    private readonly clock: { now(): number },
    private readonly runReply: WebhookReplyRunner,
    options: WebhookOptions = {},
  ) {
    this.retryBaseMs = positive('webhook.retryBaseMs', options.retryBaseMs ?? 1000)
    this.retryMaxMs = positive('webhook.retryMaxMs', options.retryMaxMs ?? 60_000)
    this.timeoutMs = positive('webhook.timeoutMs', options.timeoutMs ?? 10_000)
    this.reset()
  }

  reset(): void {
    for (const controller of this.controllers) controller.abort()
    this.controllers.clear()
    this.inFlight.clear()
    this.pending = []
    this.webhook = null
    this.allowed = null
    // Telegram's update ids start at an arbitrary number and count up from there.
    this.nextUpdateId = 100_000_001
    this.lastError = null
    this.forcedFailures = []
    this.deliveries.length = 0
    this.clearTimer()
    this.wakeWaiters()
    this.settleIdle()
  }

  close(): void {
    this.closed = true
    this.reset()
  }

  /** Queues an update if the bot asked for its type; answers it with its update_id, or null when skipped. */
  push(body: UpdateBody): Update | null {
    const type = Object.keys(body)[0] as UpdateType | undefined
    if (!type || !this.wants(type)) return null
    const update = { update_id: this.nextUpdateId++, ...body } as Update
    this.pending.push({
      update,
      type,
      queueKey: queueKeyOf(update),
      createdAt: this.clock.now(),
      attempts: 0,
      delay: 1,
      notBefore: 0,
    })
    this.wakeWaiters()
    this.pump()
    return update
  }

  private wants(type: UpdateType): boolean {
    return this.allowed ? this.allowed.has(type) : !NOT_BY_DEFAULT.includes(type)
  }

  /** allowed_updates as setWebhook and getUpdates take it: a JSON list; empty or absent keeps the current one. */
  setAllowedUpdates(raw: unknown): void {
    if (!Array.isArray(raw)) return
    const names = raw
      .filter((entry): entry is string => typeof entry === 'string')
      .map((entry) => entry.toLowerCase())
    if (names.length === 0) {
      this.allowed = null
      return
    }
    const known = names.filter((name) => KNOWN_TYPES.has(name as UpdateType)) as UpdateType[]
    this.allowed = known.length === 0 ? null : new Set(known)
  }

  allowedUpdates(): UpdateType[] | null {
    return this.allowed ? [...this.allowed] : null
  }

  setWebhook(webhook: Webhook, dropPending: boolean): 'set' | 'unchanged' {
    if (dropPending) this.dropPending()
    const same =
      this.webhook?.url === webhook.url &&
      this.webhook.secretToken === webhook.secretToken &&
      this.webhook.maxConnections === webhook.maxConnections
    if (same && !dropPending) return 'unchanged'
    this.webhook = webhook
    this.lastError = null
    this.pump()
    return 'set'
  }

  deleteWebhook(dropPending: boolean): 'deleted' | 'unchanged' {
    if (dropPending) this.dropPending()
    if (!this.webhook) return 'unchanged'
    this.webhook = null
    this.lastError = null
    for (const controller of this.controllers) controller.abort()
    return 'deleted'
  }

  private dropPending(): void {
    this.pending = this.pending.filter((entry) => this.inFlight.has(entry.queueKey) && entry.attempts > 0)
    this.settleIdle()
  }

  webhookUrl(): string | null {
    return this.webhook?.url ?? null
  }

  info(): WebhookInfo {
    const info: WebhookInfo = {
      url: this.webhook?.url ?? '',
      has_custom_certificate: false,
      pending_update_count: this.pending.length,
    }
    if (this.lastError) {
      info.last_error_date = this.lastError.date
      info.last_error_message = this.lastError.message
    }
    if (this.webhook) {
      info.max_connections = this.webhook.maxConnections
      info.ip_address = '127.0.0.1'
    }
    if (this.allowed) info.allowed_updates = [...this.allowed]
    return info
  }

  /** The next `count` deliveries fail as if the webhook answered `status`, without calling it. */
  failDeliveries(count: number, status = 500): void {
    if (!Number.isInteger(count) || count < 1)
      throw new Error('telegram emulator: count must be a positive integer')
    if (!Number.isInteger(status) || status < 300 || status > 599)
      throw new Error('telegram emulator: a failed delivery answers a status from 300 to 599')
    for (let i = 0; i < count; i += 1) this.forcedFailures.push({ status })
  }

  pendingUpdates(): Update[] {
    return this.pending.map((entry) => structuredClone(entry.update))
  }

  /** Resolves once nothing is waiting to be delivered (or no webhook is set to deliver it). */
  idle(timeoutMs = 10_000): Promise<void> {
    if (this.isIdle()) return Promise.resolve()
    return new Promise((resolve, reject) => {
      const timer = setTimeout(() => {
        this.idleWaiters = this.idleWaiters.filter((waiter) => waiter !== done)
        reject(
          new Error(`telegram emulator: ${this.pending.length} updates still pending after ${timeoutMs} ms`),
        )
      }, timeoutMs)
      const done = () => {
        clearTimeout(timer)
        resolve()
      }
      this.idleWaiters.push(done)
    })
  }

  private isIdle(): boolean {
    return this.pending.length === 0 || this.webhook === null
  }

  private settleIdle(): void {
    if (!this.isIdle()) return
    const waiters = this.idleWaiters
    this.idleWaiters = []
    for (const waiter of waiters) waiter()
  }

  // ---- getUpdates ---------------------------------------------------------------------------------

  /** Long polling: confirms updates below `offset`, then answers what is queued or waits up to `timeout` s. */
  async getUpdates(offset: number, limit: number, timeoutSeconds: number): Promise<Update[]> {
    if (this.webhook)
      throw conflict(
        "can't use getUpdates method while webhook is active; use deleteWebhook to delete the webhook first",
      )
    if (offset > 0) this.pending = this.pending.filter((entry) => entry.update.update_id >= offset)
    else if (offset < 0) this.pending = this.pending.slice(offset)
    const take = () => this.pending.slice(0, limit).map((entry) => structuredClone(entry.update))
    if (this.pending.length > 0 || timeoutSeconds <= 0) return take()
    await new Promise<void>((resolve) => {
      const timer = setTimeout(() => {
        this.waiters = this.waiters.filter((waiter) => waiter !== wake)
        resolve()
      }, timeoutSeconds * 1000)
      const wake = () => {
        clearTimeout(timer)
        resolve()
      }
      this.waiters.push(wake)
    })
    return this.webhook ? [] : take()
  }

  private wakeWaiters(): void {
    const waiters = this.waiters
    this.waiters = []
    for (const wake of waiters) wake()
  }

  // ---- webhook delivery ---------------------------------------------------------------------------------

  private pump(): void {
    if (this.closed || !this.webhook) return
    const now = this.clock.now()
    this.pending = this.pending.filter(
      (entry) => now - entry.createdAt < MAX_AGE_MS || this.inFlight.has(entry.queueKey),
    )
    const blocked = new Set(this.inFlight)
    let soonest = Number.POSITIVE_INFINITY
    for (const entry of this.pending) {
      if (this.inFlight.size >= this.webhook.maxConnections) break
      if (blocked.has(entry.queueKey)) continue
      // Later updates of this chat wait for this one.
      blocked.add(entry.queueKey)
      if (entry.notBefore > now) {
        soonest = Math.min(soonest, entry.notBefore)
        continue
      }
      this.inFlight.add(entry.queueKey)
      void this.deliver(entry, this.webhook)
    }
    this.clearTimer()
    if (Number.isFinite(soonest)) {
      this.timer = setTimeout(() => this.pump(), Math.max(0, soonest - now))
      this.timer.unref()
    }
    this.settleIdle()
  }

  private clearTimer(): void {
    if (this.timer) clearTimeout(this.timer)
    this.timer = null
  }

  private async deliver(entry: Pending, webhook: Webhook): Promise<void> {
    // Never finish within pump(): its bookkeeping (the retry timer) must not be undone by a nested pump.
    await null
    if (!this.pending.includes(entry) || this.webhook !== webhook) {
      this.inFlight.delete(entry.queueKey)
      return this.pump()
    }
    entry.attempts += 1
    const record: DeliveryRecord = {
      updateId: entry.update.update_id,
      type: entry.type,
      url: webhook.url,
      attempt: entry.attempts,
      at: new Date(this.clock.now()).toISOString(),
      status: null,
      error: null,
      withSecret: webhook.secretToken !== '',
      forced: false,
    }
    let error: string | null = null
    let retryAfterSeconds = 0
    const forced = this.forcedFailures.shift()
    if (forced) {
      record.forced = true
      record.status = forced.status
      error = `Wrong response from the webhook: ${forced.status} ${statusText(forced.status)}`
    } else {
      const controller = new AbortController()
      this.controllers.add(controller)
      let timedOut = false
      const timeout = setTimeout(() => {
        timedOut = true
        controller.abort()
      }, this.timeoutMs)
      try {
        const headers: Record<string, string> = { 'content-type': 'application/json' }
        if (webhook.secretToken) headers['x-telegram-bot-api-secret-token'] = webhook.secretToken
        const response = await fetch(webhook.url, {
          method: 'POST',
          headers,
          body: JSON.stringify(entry.update),
          signal: controller.signal,
          redirect: 'manual',
        })
        record.status = response.status
        const text = await response.text()
        if (response.status >= 200 && response.status <= 299) {
          await this.webhookReply(response.headers.get('content-type'), text)
        } else {
          error = `Wrong response from the webhook: ${response.status} ${response.statusText || statusText(response.status)}`
          retryAfterSeconds = Number(response.headers.get('retry-after') ?? 0) || 0
        }
      } catch (cause) {
        error = networkError(cause, timedOut)
      } finally {
        clearTimeout(timeout)
        this.controllers.delete(controller)
      }
    }
    record.error = error
    this.deliveries.push(record)
    this.inFlight.delete(entry.queueKey)
    // Reset, dropped, or the webhook changed meanwhile: nothing to account for.
    if (!this.pending.includes(entry) || this.webhook !== webhook) return this.pump()
    if (error === null) {
      this.pending = this.pending.filter((candidate) => candidate !== entry)
    } else {
      this.lastError = { date: Math.floor(this.clock.now() / 1000), message: error }
      // Telegram: the first retry goes at once; then the wait doubles, capped near a minute.
      let wait = Math.min(3600, Math.max(0, retryAfterSeconds)) * 1000
      if (wait === 0 && entry.attempts > 1) {
        entry.delay = Math.min(this.retryMaxMs / this.retryBaseMs, entry.delay * 2)
        wait = entry.delay * this.retryBaseMs
      }
      entry.notBefore = this.clock.now() + wait
    }
    this.pump()
  }

  private async webhookReply(contentType: string | null, text: string): Promise<void> {
    if (!contentType?.toLowerCase().includes('application/json') || text.trim() === '') return
    let body: unknown
    try {
      body = JSON.parse(text)
    } catch {
      return
    }
    if (!body || typeof body !== 'object' || Array.isArray(body)) return
    const values = new Map<string, string>()
    for (const [key, value] of Object.entries(body)) {
      if (value === null || value === undefined) continue
      values.set(key, typeof value === 'string' ? value : JSON.stringify(value))
    }
    const method = values.get('method')?.toLowerCase()
    if (!method || method.startsWith('get') || WEBHOOK_REPLY_REFUSED.has(method)) return
    values.delete('method')
    await this.runReply(method, values)
  }
}

const KNOWN_TYPES = new Set<UpdateType>([
  'message',
  'edited_message',
  'channel_post',
  'edited_channel_post',
  'business_connection',
  'business_message',
  'edited_business_message',
  'deleted_business_messages',
  'message_reaction',
  'message_reaction_count',
  'inline_query',
  'chosen_inline_result',
  'callback_query',
  'shipping_query',
  'pre_checkout_query',
  'purchased_paid_media',
  'poll',
  'poll_answer',
  'my_chat_member',
  'chat_member',
  'chat_join_request',
  'chat_boost',
  'removed_chat_boost',
])

function positive(name: string, value: number): number {
  if (!Number.isFinite(value) || value <= 0)
    throw new Error(`telegram emulator: ${name} must be a positive number`)
  return value
}

function queueKeyOf(update: Update): string {
  const body = Object.values(update).find((value) => value && typeof value === 'object') as
    | { chat?: { id: number }; message?: { chat?: { id: number } }; from?: { id: number } }
    | undefined
  const chatId = body?.chat?.id ?? body?.message?.chat?.id ?? body?.from?.id
  return chatId === undefined ? `update:${update.update_id}` : `chat:${chatId}`
}

function statusText(status: number): string {
  const texts: Record<number, string> = {
    400: 'Bad Request',
    401: 'Unauthorized',
    403: 'Forbidden',
    404: 'Not Found',
    410: 'Gone',
    429: 'Too Many Requests',
    500: 'Internal Server Error',
    502: 'Bad Gateway',
    503: 'Service Unavailable',
    504: 'Gateway Timeout',
  }
  return texts[status] ?? 'Error'
}

function networkError(cause: unknown, timedOut: boolean): string {
  if (timedOut) return 'Read timeout expired'
  const error = cause as { cause?: { code?: string } }
  switch (error.cause?.code) {
    case 'ECONNREFUSED':
      return 'Connection refused'
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
      return 'Failed to resolve host: Name or service not known'
    case 'ECONNRESET':
    case 'UND_ERR_SOCKET':
      return 'Connection reset by peer'
    default:
      return 'Webhook connection closed'
  }
}
