import type Stripe from 'stripe'
import { parseJson, type RequestContext, type Router, sendJson } from '../http'
import type { AdvanceReport, Billing } from './billing'
import type { Env } from './env'
import type { ActiveFault, FaultSpec, Faults } from './faults'
import type { Payments } from './payments'
import type { Delivery, WebhookDispatcher } from './webhooks'

/**
 * Dev/test controls for the emulated Stripe: the same operations as methods on the object
 * `startEmulator()` returns (`emulator.stripe`) and as routes under /_control/stripe for a
 * separate process (the app's end-to-end tests).
 */

export interface StripeState {
  now: number
  webhookUrl: string | null
  webhooks: { paused: boolean; pending: number; delivered: number; failedAttempts: number }
  counts: Record<string, number>
  subscriptionsByStatus: Record<string, number>
  faults: ActiveFault[]
}

export interface StripeControl {
  readonly secretKey: string
  readonly publishableKey: string
  readonly webhookSecret: string
  readonly webhookUrl: string | undefined
  /** Where events go; null stops delivery. The app usually starts after the emulator, hence settable. */
  setWebhookUrl(url: string | null): void
  configureWebhooks(options: { retryDelayMs?: number; maxAttempts?: number; timeoutMs?: number }): void
  pauseWebhooks(): void
  resumeWebhooks(): void
  /** Delivers everything pending now (paused or not, retries included); resolves when done. */
  flushWebhooks(options?: { order?: 'created' | 'reverse' }): Promise<Delivery[]>
  /** Delivers the pending events newest first. */
  deliverReversed(): Promise<Delivery[]>
  /** Delivers an existing event `times` more times. */
  duplicateEvent(eventId: string, times?: number): void
  /** The next event (of `type`, if given) is delivered `times` extra times. */
  duplicateNextEvent(times?: number, type?: string): void
  deliveries(): Delivery[]
  /** Events so far, oldest first, optionally of one type. */
  events(type?: string): Stripe.Event[]
  fault(spec: FaultSpec): void
  clearFaults(): void
  faults(): ActiveFault[]
  now(): number
  /** Moves the global clock forward and runs everything that falls due for customers without a test clock. */
  advance(seconds: number): AdvanceReport
  /** Test clocks, newest first. */
  testClocks(): Stripe.TestHelpers.TestClock[]
  /**
   * Moves a test clock to `frozenTime` (unix seconds) and runs what falls due on it, synchronously
   * and without Stripe's two-interval limit; returns when the clock is ready.
   */
  advanceTestClock(testClockId: string, frozenTime: number): AdvanceReport
  /** Days before a renewal that `invoice.upcoming` goes out (null: never). */
  setUpcomingInvoiceDays(days: number | null): void
  upcomingInvoiceDays(): number | null
  failNextRenewal(subscriptionId: string): void
  /**
   * Completes (or fails) 3-D Secure for a PaymentIntent (`pi_...`) or SetupIntent (`seti_...`) in
   * requires_action, as the customer would.
   */
  authenticate(intentId: string, success?: boolean): Stripe.PaymentIntent | Stripe.SetupIntent
  state(): StripeState
  /** Forgets every object, event, delivery and fault and resets the clock; keys and webhook URL stay. */
  reset(): void
  close(): void
}

export function createControl(deps: {
  env: Env
  billing: Billing
  payments: Payments
  faults: Faults
  webhooks: WebhookDispatcher
  keys: { secretKey: string; publishableKey: string }
  clearIdempotency: () => void
}): StripeControl {
  const { env, billing, payments, faults, webhooks } = deps
  return {
    secretKey: deps.keys.secretKey,
    publishableKey: deps.keys.publishableKey,
    webhookSecret: webhooks.secret,
    get webhookUrl() {
      return webhooks.url
    },
    setWebhookUrl: (url) => {
      webhooks.url = url ?? undefined
    },
    configureWebhooks: (options) => webhooks.configure(options),
    pauseWebhooks: () => webhooks.pause(),
    resumeWebhooks: () => webhooks.resume(),
    flushWebhooks: (options) => webhooks.flush(options),
    deliverReversed: () => webhooks.flush({ order: 'reverse' }),
    duplicateEvent: (eventId, times = 1) => {
      const event = env.store.events.get(eventId)
      if (!event) throw new Error(`no such event ${eventId}`)
      webhooks.duplicate(event, times)
    },
    duplicateNextEvent: (times = 1, type) => webhooks.duplicateNext(times, type),
    deliveries: () => [...webhooks.deliveries],
    events: (type) => [...env.store.events.values()].filter((event) => !type || event.type === type),
    fault: (spec) => faults.add(spec),
    clearFaults: () => faults.clear(),
    faults: () => faults.list(),
    now: () => env.clock.now(),
    advance: (seconds) => billing.advance(seconds),
    testClocks: () => [...env.store.testClocks.values()].reverse(),
    advanceTestClock: (id, frozenTime) => billing.advanceTestClock(id, frozenTime),
    setUpcomingInvoiceDays: (days) => {
      if (days !== null && (!Number.isInteger(days) || days < 1 || days > 45)) {
        throw new Error('upcoming invoice days must be a whole number from 1 to 45, or null')
      }
      billing.subscriptions.upcomingDays = days
    },
    upcomingInvoiceDays: () => billing.subscriptions.upcomingDays,
    failNextRenewal: (id) => billing.failNextRenewal(id),
    authenticate: (id, success = true) => {
      // Each intent answers on its customer's clock (a test clock's time for clocked customers).
      if (id.startsWith('seti_'))
        return billing.setupIntents.authenticate(billing.setupIntents.setupIntent(id), success)
      const pi = payments.paymentIntent(id)
      payments.authenticate(pi, success)
      return pi
    },
    state: () => {
      const byStatus: Record<string, number> = {}
      for (const sub of env.store.subscriptions.values())
        byStatus[sub.status] = (byStatus[sub.status] ?? 0) + 1
      return {
        now: env.clock.now(),
        webhookUrl: webhooks.url ?? null,
        webhooks: {
          paused: webhooks.isPaused,
          pending: webhooks.pending,
          delivered: webhooks.deliveries.filter((d) => d.ok).length,
          failedAttempts: webhooks.deliveries.filter((d) => !d.ok).length,
        },
        counts: env.store.counts(),
        subscriptionsByStatus: byStatus,
        faults: faults.list(),
      }
    },
    reset: () => {
      env.store.clear()
      env.clock.reset()
      faults.clear()
      webhooks.clear()
      deps.clearIdempotency()
    },
    close: () => webhooks.close(),
  }
}

async function body(ctx: RequestContext): Promise<Record<string, unknown>> {
  const fromQuery = Object.fromEntries(ctx.url.searchParams)
  const parsed = parseJson(ctx.rawBody)
  return {
    ...fromQuery,
    ...(parsed && typeof parsed === 'object' ? (parsed as Record<string, unknown>) : {}),
  }
}

function route(
  router: Router,
  method: string,
  path: string,
  run: (ctx: RequestContext, input: Record<string, unknown>) => unknown,
) {
  router.on(method, path, async (ctx) => {
    try {
      const result = await run(ctx, await body(ctx))
      sendJson(ctx.res, 200, result ?? { ok: true })
    } catch (error) {
      sendJson(ctx.res, 400, { error: error instanceof Error ? error.message : String(error) })
    }
  })
}

export function mountControlRoutes(router: Router, control: StripeControl, base = '/_control/stripe'): void {
  route(router, 'GET', `${base}/state`, () => control.state())
  route(router, 'POST', `${base}/reset`, () => control.reset())
  route(router, 'POST', `${base}/webhook-url`, (_ctx, input) => {
    control.setWebhookUrl(typeof input.url === 'string' && input.url ? input.url : null)
    return { webhookUrl: control.webhookUrl ?? null }
  })
  route(router, 'POST', `${base}/webhooks/pause`, () => control.pauseWebhooks())
  route(router, 'POST', `${base}/webhooks/resume`, () => control.resumeWebhooks())
  route(router, 'POST', `${base}/webhooks/flush`, async (_ctx, input) => ({
    deliveries: await control.flushWebhooks({ order: input.order === 'reverse' ? 'reverse' : 'created' }),
  }))
  route(router, 'POST', `${base}/webhooks/duplicate`, (_ctx, input) => {
    const times = input.times === undefined ? 1 : Number(input.times)
    if (typeof input.eventId === 'string') control.duplicateEvent(input.eventId, times)
    else control.duplicateNextEvent(times, typeof input.type === 'string' ? input.type : undefined)
  })
  route(router, 'GET', `${base}/webhooks/deliveries`, () => ({ deliveries: control.deliveries() }))
  route(router, 'GET', `${base}/events`, (ctx) => ({
    events: control.events(ctx.url.searchParams.get('type') ?? undefined),
  }))
  route(router, 'GET', `${base}/faults`, () => ({ faults: control.faults() }))
  route(router, 'POST', `${base}/faults`, (_ctx, input) => {
    control.fault({
      kind: input.kind as FaultSpec['kind'],
      ...(input.count !== undefined ? { count: Number(input.count) } : {}),
      ...(typeof input.method === 'string' ? { method: input.method } : {}),
      ...(typeof input.path === 'string' ? { path: input.path } : {}),
      ...(input.delayMs !== undefined ? { delayMs: Number(input.delayMs) } : {}),
      ...(input.status !== undefined ? { status: Number(input.status) } : {}),
    })
    return { faults: control.faults() }
  })
  route(router, 'DELETE', `${base}/faults`, () => control.clearFaults())
  route(router, 'GET', `${base}/clock`, () => ({ now: control.now() }))
  route(router, 'POST', `${base}/clock/advance`, (_ctx, input) => {
    const seconds = Number(input.seconds)
    if (!Number.isFinite(seconds)) throw new Error('seconds is required')
    return control.advance(seconds)
  })
  route(router, 'GET', `${base}/test-clocks`, () => ({ testClocks: control.testClocks() }))
  route(router, 'POST', `${base}/test-clocks/:id/advance`, (ctx, input) => {
    const frozenTime = Number(input.frozenTime ?? input.frozen_time)
    if (!Number.isInteger(frozenTime)) throw new Error('frozenTime (unix seconds) is required')
    return control.advanceTestClock(ctx.params.id ?? '', frozenTime)
  })
  route(router, 'GET', `${base}/upcoming-invoice-days`, () => ({ days: control.upcomingInvoiceDays() }))
  route(router, 'POST', `${base}/upcoming-invoice-days`, (_ctx, input) => {
    const days = input.days === null ? null : Number(input.days)
    control.setUpcomingInvoiceDays(days)
    return { days: control.upcomingInvoiceDays() }
  })
  route(router, 'POST', `${base}/subscriptions/:id/fail-next-renewal`, (ctx) =>
    control.failNextRenewal(ctx.params.id ?? ''),
  )
  route(router, 'POST', `${base}/payment_intents/:id/authenticate`, (ctx, input) => ({
    paymentIntent: control.authenticate(
      ctx.params.id ?? '',
      input.result !== 'failure' && input.success !== false,
    ),
  }))
  route(router, 'POST', `${base}/setup_intents/:id/authenticate`, (ctx, input) => ({
    setupIntent: control.authenticate(
      ctx.params.id ?? '',
      input.result !== 'failure' && input.success !== false,
    ),
  }))
}
