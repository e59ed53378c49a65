import type Stripe from 'stripe'
import type { Clock } from './clock'
import { newId } from './ids'
import type { Renderer } from './render'
import type { Store } from './store'
import type { WebhookDispatcher } from './webhooks'

export const API_VERSION = '2026-10-28.endive'

export interface RequestInfo {
  id: string
  idempotency_key: string | null
}

/**
 * Creates events: a snapshot of the object at that moment, stored for /v1/events and handed to the
 * webhook dispatcher. `request` is set by the API layer while a request runs, so events caused by
 * an API call carry its request id, and clock-driven ones (renewals) carry null, as on Stripe.
 */
export class EventLog {
  request: RequestInfo | null = null

  constructor(
    private readonly store: Store,
    private readonly clock: Clock,
    private readonly webhooks: WebhookDispatcher,
  ) {}

  emit(
    type: string,
    object: { id: string; object: string },
    previous?: Record<string, unknown>,
  ): Stripe.Event {
    const event = {
      id: newId('evt'),
      object: 'event',
      api_version: API_VERSION,
      created: this.clock.now(),
      data: {
        object: structuredClone(object),
        ...(previous && Object.keys(previous).length > 0
          ? { previous_attributes: structuredClone(previous) }
          : {}),
      },
      livemode: false,
      pending_webhooks: this.webhooks.url ? 1 : 0,
      request: this.request ? { ...this.request } : { id: null, idempotency_key: null },
      type,
    } as unknown as Stripe.Event
    this.store.events.set(event.id, event)
    this.webhooks.enqueue(event)
    return event
  }
}

/** What every resource module works with. */
export interface Env {
  store: Store
  clock: Clock
  renderer: Renderer
  events: EventLog
}

/** The test clock a customer lives on, or null for the global clock. */
export function clockScope(env: Env, customerId: unknown): string | null {
  if (typeof customerId !== 'string') return null
  const clock = env.store.customers.get(customerId)?.test_clock
  return typeof clock === 'string' ? clock : null
}

/** Runs `fn` on the time of the customer's test clock (or the global clock). */
export function inCustomerTime<T>(env: Env, customerId: unknown, fn: () => T): T {
  return env.clock.within(clockScope(env, customerId), fn)
}

/** The fields of `before` that differ from `after`, for an event's `previous_attributes`. */
export function changedFields(before: object, after: object, keys: string[]): Record<string, unknown> {
  const previous: Record<string, unknown> = {}
  const a = before as Record<string, unknown>
  const b = after as Record<string, unknown>
  for (const key of keys) {
    if (JSON.stringify(a[key]) !== JSON.stringify(b[key])) previous[key] = a[key] ?? null
  }
  return previous
}
