/**
 * Injected failures for the app's resilience paths: the next N API calls (optionally only those
 * matching a method and a path prefix) answer 500, answer 429 with Stripe's rate-limit error, are
 * delayed, or have their connection dropped.
 */

export type FaultKind = 'error' | 'rate_limit' | 'delay' | 'disconnect'

export interface FaultSpec {
  kind: FaultKind
  /** How many matching calls are affected (default 1). */
  count?: number
  /** Only calls with this HTTP method (any when omitted). */
  method?: string
  /** Only calls whose path starts with this, e.g. `/v1/subscriptions` (any when omitted). */
  path?: string
  /** For `delay`: how long to hold the call before handling it normally. */
  delayMs?: number
  /** For `error`: the status to answer with (default 500). */
  status?: number
}

export interface ActiveFault extends FaultSpec {
  remaining: number
}

export type FaultOutcome =
  | { kind: 'error'; status: number }
  | { kind: 'rate_limit' }
  | { kind: 'disconnect' }
  | undefined

export class Faults {
  private active: ActiveFault[] = []

  add(spec: FaultSpec): void {
    const count = spec.count ?? 1
    if (!['error', 'rate_limit', 'delay', 'disconnect'].includes(spec.kind)) {
      throw new Error(`unknown fault kind ${String(spec.kind)}`)
    }
    this.active.push({ ...spec, method: spec.method?.toUpperCase(), remaining: count })
  }

  clear(): void {
    this.active = []
  }

  list(): ActiveFault[] {
    return this.active.map((fault) => ({ ...fault }))
  }

  /** Applies delays, then returns the first terminal fault matching this call, if any. */
  async apply(method: string, path: string): Promise<FaultOutcome> {
    let outcome: FaultOutcome
    for (const fault of [...this.active]) {
      if (fault.method && fault.method !== method) continue
      if (fault.path && !path.startsWith(fault.path)) continue
      if (fault.kind !== 'delay' && outcome) continue
      fault.remaining -= 1
      if (fault.remaining <= 0) this.active.splice(this.active.indexOf(fault), 1)
      if (fault.kind === 'delay') await new Promise((resolve) => setTimeout(resolve, fault.delayMs ?? 1000))
      else if (fault.kind === 'error') outcome = { kind: 'error', status: fault.status ?? 500 }
      else outcome = { kind: fault.kind }
    }
    return outcome
  }
}
