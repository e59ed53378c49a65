/**
 * Telegram's flood limits on a bot's messages, as its FAQ states them: about 30 messages a second
 * overall, 20 a minute into one group or channel, and about one a second into one private chat
 * (short bursts allowed). Each is a token bucket; a message that finds any bucket empty is refused
 * with 429 "Too Many Requests: retry after N" (whole seconds, as Telegram sends them) and costs
 * nothing, so a client that waits N seconds and retries gets through. Every chat's count of
 * messages received and of 429s is kept for tests.
 */

export interface FloodLimit {
  /** Messages allowed per `seconds`, sustained. */
  messages: number
  seconds: number
  /** Messages that may go at once before the sustained rate applies (default `messages`). */
  burst?: number
}

export interface TelegramRateLimitOptions {
  /** All chats together (default 30 a second); false turns the limit off. */
  global?: FloodLimit | false
  /** One group, supergroup or channel (default 20 a minute). */
  group?: FloodLimit | false
  /** One private chat (default 1 a second with bursts of 3). */
  private?: FloodLimit | false
}

export const DEFAULT_FLOOD_LIMITS: Required<{ [K in keyof TelegramRateLimitOptions]: FloodLimit }> = {
  global: { messages: 30, seconds: 1 },
  group: { messages: 20, seconds: 60 },
  private: { messages: 1, seconds: 1, burst: 3 },
}

/** A forced answer for the next API calls (test control). */
export interface TelegramFault {
  /** 429, or a 5xx: 500 answers Telegram's JSON error, 502/503/504 the HTML page of Telegram's proxy. */
  status: number
  /** How many matching calls fail (default 1). */
  count?: number
  /** Seconds a 429 asks to wait (whole seconds, default 1). */
  retryAfter?: number
  /** Only calls of this method (case-insensitive); any method when omitted. */
  method?: string
}

export interface ChatFloodStats {
  chatId: number
  /** Messages the bot sent into the chat. */
  sent: number
  /** sendMessage calls into the chat refused with 429 (flood limits and forced 429s alike). */
  limited: number
  lastSentAt: number | null
  lastLimitedAt: number | null
}

function validLimit(
  name: string,
  limit: FloodLimit | false | undefined,
  fallback: FloodLimit,
): FloodLimit | null {
  if (limit === false) return null
  const chosen = limit ?? fallback
  const burst = chosen.burst ?? chosen.messages
  for (const [key, value] of Object.entries({ messages: chosen.messages, seconds: chosen.seconds, burst })) {
    if (typeof value !== 'number' || !(value > 0))
      throw new Error(`telegram emulator: rateLimit.${name}.${key} must be a positive number`)
  }
  return { ...chosen, burst }
}

class TokenBucket {
  private tokens: number
  private at: number

  constructor(
    private readonly capacity: number,
    private readonly perMs: number,
    now: number,
  ) {
    this.tokens = capacity
    this.at = now
  }

  /** Milliseconds until one token is there (0: available now). */
  wait(now: number): number {
    this.tokens = Math.min(this.capacity, this.tokens + (now - this.at) * this.perMs)
    this.at = Math.max(this.at, now)
    return this.tokens >= 1 ? 0 : (1 - this.tokens) / this.perMs
  }

  take(): void {
    this.tokens -= 1
  }
}

export class FloodControl {
  private limits: { global: FloodLimit | null; group: FloodLimit | null; private: FloodLimit | null }
  private globalBucket: TokenBucket | null = null
  private readonly chatBuckets = new Map<number, TokenBucket>()
  private readonly stats = new Map<number, ChatFloodStats>()
  private faults: Array<Required<Omit<TelegramFault, 'method'>> & { method?: string }> = []

  constructor(private readonly initial: TelegramRateLimitOptions = {}) {
    this.limits = FloodControl.resolve(initial)
  }

  private static resolve(options: TelegramRateLimitOptions) {
    return {
      global: validLimit('global', options.global, DEFAULT_FLOOD_LIMITS.global),
      group: validLimit('group', options.group, DEFAULT_FLOOD_LIMITS.group),
      private: validLimit('private', options.private, DEFAULT_FLOOD_LIMITS.private),
    }
  }

  /** New limits from now on (omitted ones go back to Telegram's); the buckets start full. */
  configure(options: TelegramRateLimitOptions): void {
    this.limits = FloodControl.resolve(options)
    this.globalBucket = null
    this.chatBuckets.clear()
  }

  limitsInForce(): TelegramRateLimitOptions {
    return {
      global: this.limits.global ?? false,
      group: this.limits.group ?? false,
      private: this.limits.private ?? false,
    }
  }

  /**
   * Admits one message into a chat or answers the whole seconds to wait. Nothing is consumed
   * unless every limit admits it.
   */
  admit(chatId: number, kind: 'private' | 'group', now: number): number {
    const buckets: TokenBucket[] = []
    if (this.limits.global) {
      this.globalBucket ??= bucketFor(this.limits.global, now)
      buckets.push(this.globalBucket)
    }
    const chatLimit = kind === 'private' ? this.limits.private : this.limits.group
    if (chatLimit) {
      let bucket = this.chatBuckets.get(chatId)
      if (!bucket) {
        bucket = bucketFor(chatLimit, now)
        this.chatBuckets.set(chatId, bucket)
      }
      buckets.push(bucket)
    }
    const waitMs = Math.max(0, ...buckets.map((bucket) => bucket.wait(now)))
    if (waitMs > 0) return Math.max(1, Math.ceil(waitMs / 1000))
    for (const bucket of buckets) bucket.take()
    return 0
  }

  recordSent(chatId: number, now: number): void {
    const entry = this.entry(chatId)
    entry.sent += 1
    entry.lastSentAt = now
  }

  recordLimited(chatId: number, now: number): void {
    const entry = this.entry(chatId)
    entry.limited += 1
    entry.lastLimitedAt = now
  }

  chatStats(): ChatFloodStats[] {
    return [...this.stats.values()].map((entry) => ({ ...entry }))
  }

  addFault(fault: TelegramFault): void {
    const status = Number(fault.status)
    if (status !== 429 && !(status >= 500 && status <= 599))
      throw new Error('telegram emulator: fault status must be 429 or 5xx')
    const count = fault.count ?? 1
    if (!Number.isInteger(count) || count < 1)
      throw new Error('telegram emulator: fault count must be a positive integer')
    const retryAfter = fault.retryAfter ?? 1
    if (!Number.isInteger(retryAfter) || retryAfter < 1)
      throw new Error('telegram emulator: retryAfter must be a whole number of seconds, at least 1')
    this.faults.push({ status, count, retryAfter, method: fault.method?.toLowerCase() })
  }

  /** Takes the first pending fault matching this method, if any. */
  takeFault(method: string): { status: number; retryAfter: number } | undefined {
    const index = this.faults.findIndex(
      (fault) => fault.method === undefined || fault.method === method.toLowerCase(),
    )
    const fault = this.faults[index]
    if (!fault) return undefined
    fault.count -= 1
    if (fault.count <= 0) this.faults.splice(index, 1)
    return { status: fault.status, retryAfter: fault.retryAfter }
  }

  pendingFaults(): TelegramFault[] {
    return this.faults.map((fault) => ({ ...fault }))
  }

  clearFaults(): void {
    this.faults = []
  }

  /** Back to the limits the emulator started with, with nothing counted. */
  reset(): void {
    this.limits = FloodControl.resolve(this.initial)
    this.globalBucket = null
    this.chatBuckets.clear()
    this.stats.clear()
    this.faults = []
  }

  private entry(chatId: number): ChatFloodStats {
    let entry = this.stats.get(chatId)
    if (!entry) {
      entry = { chatId, sent: 0, limited: 0, lastSentAt: null, lastLimitedAt: null }
      this.stats.set(chatId, entry)
    }
    return entry
  }
}

function bucketFor(limit: FloodLimit, now: number): TokenBucket {
  return new TokenBucket(limit.burst ?? limit.messages, limit.messages / (limit.seconds * 1000), now)
}
