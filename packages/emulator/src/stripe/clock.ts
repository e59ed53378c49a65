/**
 * The emulator's clocks. The global clock is wall time plus an offset the tests move forward, so
 * renewals and period ends happen on demand; each Stripe test clock has its own frozen time, and
 * everything belonging to a customer on a test clock lives on that clock's time. Stripe's own
 * timestamps (created, periods) come from here; webhook signatures use real time because the SDK
 * checks them against the receiver's clock.
 *
 * A "scope" is a test clock id, or null for the global clock.
 */
export class Clock {
  private offset = 0
  /** While something runs for a scope, objects it creates carry that moment rather than "now". */
  private pinned: { at: number; scope: string | null } | undefined
  /** Each test clock's frozen time, kept by the test clock resource. */
  readonly frozen = new Map<string, number>()

  now(): number {
    return this.pinned?.at ?? this.globalNow()
  }

  /** The global clock, whatever is pinned. */
  globalNow(): number {
    return Math.floor(Date.now() / 1000) + this.offset
  }

  /** The current time of a scope: a test clock's frozen time (or the moment it is processing). */
  timeOf(scope: string | null): number {
    if (this.pinned && this.pinned.scope === scope) return this.pinned.at
    if (scope) return this.frozen.get(scope) ?? this.globalNow()
    return this.globalNow()
  }

  advance(seconds: number): void {
    this.offset += Math.floor(seconds)
  }

  reset(): void {
    this.offset = 0
    this.pinned = undefined
    this.frozen.clear()
  }

  /** Runs `fn` with `now()` fixed at `at`, on behalf of `scope`. */
  at<T>(at: number, fn: () => T, scope: string | null = this.pinned?.scope ?? null): T {
    const previous = this.pinned
    this.pinned = { at, scope }
    try {
      return fn()
    } finally {
      this.pinned = previous
    }
  }

  /** Runs `fn` on a scope's time; inside that scope already, time is left as it is. */
  within<T>(scope: string | null, fn: () => T): T {
    if (this.pinned?.scope === scope) return fn()
    return this.at(this.timeOf(scope), fn, scope)
  }
}
