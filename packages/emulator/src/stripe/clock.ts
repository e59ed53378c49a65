/**
 * The emulator's clock: wall time plus an offset the tests move forward, so renewals and period ends
 * happen on demand. Stripe's own timestamps (created, periods) come from here; webhook signatures
 * use real time because the SDK checks them against the receiver's clock.
 */
export class Clock {
  private offset = 0
  /** While a renewal runs, objects it creates carry the period boundary's time rather than "now". */
  private pinned: number | undefined

  now(): number {
    return this.pinned ?? Math.floor(Date.now() / 1000) + this.offset
  }

  advance(seconds: number): void {
    this.offset += Math.floor(seconds)
  }

  reset(): void {
    this.offset = 0
    this.pinned = undefined
  }

  /** Runs `fn` with `now()` fixed at `at`. */
  at<T>(at: number, fn: () => T): T {
    const previous = this.pinned
    this.pinned = at
    try {
      return fn()
    } finally {
      this.pinned = previous
    }
  }
}
