import { createHash } from 'node:crypto'

/**
 * Discord's per-route rate limits as @discordjs/rest reads them. The client trusts
 * `X-RateLimit-Remaining` + `X-RateLimit-Reset-After` to queue requests before they fail, and on a
 * 429 it waits for the bucket reset when remaining is 0 (or `Retry-After` otherwise), so every
 * response carries the bucket headers and a 429 marks its bucket empty until `retry_after` passes.
 */

export interface RateLimitOptions {
  /** Requests per bucket window (Discord varies this per route; default is generous so dev runs never wait). */
  limit?: number
  /** Bucket window length in seconds. */
  windowSeconds?: number
}

export type RateLimitScope = 'user' | 'global' | 'shared'

/** A forced failure for the next matching requests (test control). */
export interface DiscordFault {
  /** 429 or a 5xx (500, 502, 503, 504). */
  status: number
  /** How many matching requests fail (default 1). */
  count?: number
  /** Seconds to wait for a 429 (float, default 0.2). */
  retryAfter?: number
  /** Only requests with this method (any when omitted). */
  method?: string
  /** Only requests whose API path (after /v10, e.g. `/guilds/1/members`) starts with this. */
  path?: string
  /** A 429 on Discord's global limit rather than the route's bucket. */
  global?: boolean
  /** `X-RateLimit-Scope` of a 429 (default user, or global when `global`). */
  scope?: RateLimitScope
}

export interface RateLimitOutcome {
  headers: Record<string, string>
  /** Set when the request must be answered with a 429. */
  limited?: { retryAfter: number; global: boolean; scope: RateLimitScope }
}

interface Bucket {
  used: number
  resetAt: number
}

export function bucketHash(method: string, template: string): string {
  return createHash('sha1').update(`${method} ${template}`).digest('hex').slice(0, 32)
}

const seconds = (ms: number) => (Math.max(0, ms) / 1000).toFixed(3)

export class RateLimiter {
  private readonly buckets = new Map<string, Bucket>()
  private globalUntil = 0
  private faults: Array<
    Required<Omit<DiscordFault, 'method' | 'path'>> & Pick<DiscordFault, 'method' | 'path'>
  > = []

  constructor(
    private readonly limit: number,
    private readonly windowMs: number,
  ) {}

  addFault(fault: DiscordFault): void {
    const status = Number(fault.status)
    if (status !== 429 && (status < 500 || status > 599)) throw new Error('fault status must be 429 or 5xx')
    this.faults.push({
      status,
      count: fault.count ?? 1,
      retryAfter: fault.retryAfter ?? 0.2,
      global: fault.global ?? false,
      scope: fault.scope ?? (fault.global ? 'global' : 'user'),
      method: fault.method?.toUpperCase(),
      path: fault.path?.replace(/^\/discord\/api\/v\d+/, ''),
    })
  }

  /** Takes the first pending fault matching this request, if any. */
  takeFault(method: string, path: string) {
    const index = this.faults.findIndex(
      (fault) =>
        fault.count > 0 &&
        (fault.method === undefined || fault.method === method) &&
        (fault.path === undefined || path.startsWith(fault.path)),
    )
    const fault = this.faults[index]
    if (!fault) return undefined
    fault.count -= 1
    if (fault.count <= 0) this.faults.splice(index, 1)
    return fault
  }

  /** Counts one request against its bucket and answers the headers Discord would send. */
  take(hash: string, major: string): RateLimitOutcome {
    const now = Date.now()
    const bucket = this.bucket(hash, major, now)
    if (now < this.globalUntil) {
      return {
        headers: this.headers(hash, bucket, now),
        limited: { retryAfter: (this.globalUntil - now) / 1000, global: true, scope: 'global' },
      }
    }
    if (bucket.used >= this.limit) {
      return {
        headers: this.headers(hash, bucket, now),
        limited: { retryAfter: (bucket.resetAt - now) / 1000, global: false, scope: 'user' },
      }
    }
    bucket.used += 1
    return { headers: this.headers(hash, bucket, now) }
  }

  /** Empties a bucket (or the global limit) for `retryAfter` seconds: what a forced 429 means. */
  block(hash: string, major: string, retryAfter: number, global: boolean): Record<string, string> {
    const now = Date.now()
    const until = now + retryAfter * 1000
    if (global) this.globalUntil = until
    const bucket = this.bucket(hash, major, now)
    if (!global) {
      bucket.used = this.limit
      bucket.resetAt = until
    }
    return this.headers(hash, bucket, now)
  }

  reset(): void {
    this.buckets.clear()
    this.faults = []
    this.globalUntil = 0
  }

  clearFaults(): void {
    this.faults = []
  }

  pendingFaults(): DiscordFault[] {
    return this.faults.map((fault) => ({ ...fault }))
  }

  private bucket(hash: string, major: string, now: number): Bucket {
    const key = `${hash}:${major}`
    let bucket = this.buckets.get(key)
    if (!bucket || now >= bucket.resetAt) {
      bucket = { used: 0, resetAt: now + this.windowMs }
      this.buckets.set(key, bucket)
    }
    return bucket
  }

  private headers(hash: string, bucket: Bucket, now: number): Record<string, string> {
    return {
      'x-ratelimit-limit': String(this.limit),
      'x-ratelimit-remaining': String(Math.max(0, this.limit - bucket.used)),
      'x-ratelimit-reset': seconds(bucket.resetAt),
      'x-ratelimit-reset-after': seconds(bucket.resetAt - now),
      'x-ratelimit-bucket': hash,
    }
  }
}

/** The extra headers and body of a 429, as Discord sends them. */
export function rateLimitedResponse(limited: { retryAfter: number; global: boolean; scope: RateLimitScope }) {
  const retryAfter = Math.round(limited.retryAfter * 1000) / 1000
  const headers: Record<string, string> = {
    // Discord rounds the header up to whole seconds; the precise value is in the body and Reset-After.
    'retry-after': String(Math.max(1, Math.ceil(retryAfter))),
    'x-ratelimit-scope': limited.scope,
  }
  if (limited.global) headers['x-ratelimit-global'] = 'true'
  return {
    headers,
    body: { message: 'You are being rate limited.', retry_after: retryAfter, global: limited.global },
  }
}
