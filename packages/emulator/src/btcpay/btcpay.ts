import { parseJson, type RequestContext, type Router, sendJson, sendText } from '../http'
import { CHECKOUT_CSP, renderCheckoutPage } from './checkout-page'
import { BtcpayError } from './errors'
import type {
  GreenfieldValidationError,
  InvoiceData,
  MarkInvoiceStatus,
  WebhookData,
  WebhookDeliveryData,
} from './greenfield-types'
import { WEBHOOK_EVENT_TYPES } from './greenfield-types'
import { newBtcpayId } from './ids'
import { InvoiceStore, type PayOptions, parseCreateInvoice } from './invoice-store'
import { type DeliveryRecord, type WebhookConfig, WebhookSender } from './webhook-sender'

/**
 * BTCPay Server's Greenfield API (invoices, webhooks), its checkout page and its webhook deliveries,
 * for one store. The app's own BTCPay client talks to it unchanged through BTCPAY_URL; tests and
 * people drive the payer's side through /_control/btcpay/... or the returned control object.
 */

export interface BtcpayOptions {
  /** Expected in `Authorization: token <apiKey>`. */
  apiKey?: string
  storeId?: string
  /** Shown on the checkout page. */
  storeName?: string
  /** Signs every delivery to the default webhook. */
  webhookSecret?: string
  /** The default webhook's URL; settable later, since the app usually starts after the emulator. */
  webhookUrl?: string
  /** Origin put in checkoutLink; defaults to the Host the create-invoice request came in on. */
  publicUrl?: string
  /** Fiat price of 1 BTC, used for every fiat currency. */
  btcRate?: number
  /** Delays before each automatic redelivery of a failed delivery; the length is the retry count. */
  retryDelaysMs?: number[]
  deliveryTimeoutMs?: number
  /** How often invoices are checked against the clock; 0 leaves it to requests and advanceClock. */
  sweepIntervalMs?: number
}

export interface BtcpayState {
  storeId: string
  storeName: string
  /** Emulator clock, unix seconds. */
  now: number
  clockOffsetSeconds: number
  deliveryPaused: boolean
  /** Greenfield API requests served (the checkout page and control routes not counted). */
  requests: number
  webhooks: WebhookConfig[]
  invoices: InvoiceData[]
}

export interface BtcpayControl {
  readonly apiKey: string
  readonly storeId: string
  readonly webhookSecret: string
  /** The id of the default webhook (the one webhookUrl and webhookSecret configure). */
  readonly webhookId: string
  readonly webhookUrl: string | undefined
  setWebhookUrl(url: string | undefined): void
  invoice(invoiceId: string): InvoiceData | undefined
  /** The payer pays `fraction` of what is still due (default all of it) and, unless confirm is false, it confirms. */
  pay(invoiceId: string, options?: PayOptions): InvoiceData
  /** Confirms a Processing invoice; marks any other unsettled one as settled by hand. */
  settle(invoiceId: string): InvoiceData
  expire(invoiceId: string): InvoiceData
  invalidate(invoiceId: string, options?: { manuallyMarked?: boolean }): InvoiceData
  /** Moves the emulator clock forward and applies expiries; returns the new time (unix seconds). */
  advanceClock(seconds: number): number
  now(): number
  pauseDelivery(): void
  resumeDelivery(): void
  /** Resumes delivery, sends everything pending (retries without their delay) and resolves when done. */
  flush(): Promise<void>
  /** Sends a delivery's exact bytes again (same deliveryId, same signature). */
  duplicateDelivery(deliveryId: string): void
  /** Greenfield-style redelivery: new deliveryId, isRedelivery true. Returns the new id. */
  redeliver(deliveryId: string): string
  reversePending(): void
  deliveries(): DeliveryRecord[]
  state(): BtcpayState
  /** Forgets invoices and deliveries, resets the clock and resumes delivery; webhooks stay. */
  reset(): void
  /** Stops timers and in-flight deliveries (startEmulator's close calls it). */
  dispose(): void
}

export const BTCPAY_DEFAULTS = {
  apiKey: 'emulator-btcpay-key',
  storeId: 'EmulatorStore1',
  storeName: 'EdgeClub',
  webhookSecret: 'emulator-btcpay-webhook-secret',
  btcRate: 67_432.18,
  retryDelaysMs: [1_000, 5_000, 30_000],
  deliveryTimeoutMs: 10_000,
  sweepIntervalMs: 1_000,
} as const

function isHttpUrl(value: unknown): value is string {
  if (typeof value !== 'string') return false
  try {
    const url = new URL(value)
    return url.protocol === 'http:' || url.protocol === 'https:'
  } catch {
    return false
  }
}

function redirect(ctx: RequestContext, location: string): void {
  ctx.res.writeHead(303, { location, 'content-length': 0 })
  ctx.res.end()
}

/** Control input from the JSON body, the form body or the query string, in that priority. */
function controlInput(ctx: RequestContext): Record<string, unknown> {
  const input: Record<string, unknown> = Object.fromEntries(ctx.url.searchParams)
  if (ctx.rawBody.length === 0) return input
  const type = ctx.req.headers['content-type'] ?? ''
  if (type.includes('application/x-www-form-urlencoded')) {
    return { ...input, ...Object.fromEntries(new URLSearchParams(ctx.rawBody.toString('utf8'))) }
  }
  const body = parseJson(ctx.rawBody)
  return typeof body === 'object' && body !== null && !Array.isArray(body) ? { ...input, ...body } : input
}

function numberOrUndefined(value: unknown): number | undefined {
  if (value === undefined || value === null || value === '') return undefined
  const number = typeof value === 'number' ? value : Number(value)
  if (!Number.isFinite(number)) throw new BtcpayError(422, `not a number: ${String(value)}`)
  return number
}

function booleanOrUndefined(value: unknown): boolean | undefined {
  if (value === undefined || value === null || value === '') return undefined
  return value === true || value === 'true' || value === '1'
}

function publicWebhook(config: WebhookConfig): WebhookData {
  const { secret: _secret, ...data } = config
  return structuredClone(data)
}

function publicDelivery(delivery: DeliveryRecord): WebhookDeliveryData {
  return {
    id: delivery.id,
    timestamp: delivery.timestamp,
    sentTimestamp: delivery.sentTimestamp,
    httpCode: delivery.httpCode,
    errorMessage: delivery.errorMessage,
    // Greenfield has no pending status; a queued delivery reads as not (yet) succeeded.
    status: delivery.status === 'Pending' ? 'Failed' : delivery.status,
  }
}

export function mountBtcpay(router: Router, options: BtcpayOptions = {}, base = '/btcpay'): BtcpayControl {
  const apiKey = options.apiKey ?? BTCPAY_DEFAULTS.apiKey
  const storeId = options.storeId ?? BTCPAY_DEFAULTS.storeId
  const storeName = options.storeName ?? BTCPAY_DEFAULTS.storeName
  const webhookSecret = options.webhookSecret ?? BTCPAY_DEFAULTS.webhookSecret
  const api = `${base}/api/v1`
  const storePath = `${api}/stores/:storeId`
  let clockOffset = 0
  let requests = 0
  const now = () => Math.floor(Date.now() / 1000) + clockOffset

  const sender = new WebhookSender({
    now,
    retryDelaysMs: [...(options.retryDelaysMs ?? BTCPAY_DEFAULTS.retryDelaysMs)],
    timeoutMs: options.deliveryTimeoutMs ?? BTCPAY_DEFAULTS.deliveryTimeoutMs,
  })
  const store = new InvoiceStore({
    storeId,
    btcRate: options.btcRate ?? BTCPAY_DEFAULTS.btcRate,
    now,
    emit: (event) => sender.publish(event),
  })

  if (options.webhookUrl !== undefined && !isHttpUrl(options.webhookUrl)) {
    throw new Error(`btcpay.webhookUrl is not an http(s) URL: ${options.webhookUrl}`)
  }
  const defaultWebhook = (): WebhookConfig => ({
    id: webhookId,
    enabled: true,
    automaticRedelivery: true,
    url: '',
    authorizedEvents: { everything: true, specificEvents: [] },
    secret: webhookSecret,
  })
  const webhookId = newBtcpayId()
  sender.addWebhook({ ...defaultWebhook(), url: options.webhookUrl ?? '' })

  const sweepIntervalMs = options.sweepIntervalMs ?? BTCPAY_DEFAULTS.sweepIntervalMs
  const sweeper = sweepIntervalMs > 0 ? setInterval(() => store.sweep(), sweepIntervalMs) : undefined
  sweeper?.unref()

  // --- Greenfield API -------------------------------------------------------------------------

  /** Greenfield's checks, in its order: API key, then store. */
  const greenfield =
    (handler: (ctx: RequestContext) => unknown | Promise<unknown>) =>
    async (ctx: RequestContext): Promise<unknown> => {
      requests += 1
      const match = /^token\s+(\S+)\s*$/i.exec(ctx.req.headers.authorization ?? '')
      if (match?.[1] !== apiKey) {
        return sendJson(ctx.res, 401, {
          code: 'unauthenticated',
          message: 'Authentication is required for accessing this endpoint',
        })
      }
      if (ctx.params.storeId !== undefined && ctx.params.storeId !== storeId) {
        return sendJson(ctx.res, 404, { code: 'store-not-found', message: 'The store was not found' })
      }
      store.sweep()
      try {
        return await handler(ctx)
      } catch (error) {
        if (!(error instanceof BtcpayError)) throw error
        if (error.status === 422) return sendJson(ctx.res, 422, [{ path: '', message: error.message }])
        const code = error.status === 404 ? 'invoice-not-found' : 'invalid-state'
        return sendJson(ctx.res, error.status, { code, message: error.message })
      }
    }

  const readBody = (ctx: RequestContext): { ok: true; body: unknown } | { ok: false } => {
    try {
      return { ok: true, body: parseJson(ctx.rawBody) }
    } catch {
      sendJson(ctx.res, 422, [{ path: '', message: 'The request body is not valid JSON' }])
      return { ok: false }
    }
  }

  const invoiceOr404 = (ctx: RequestContext): InvoiceData | undefined => {
    const invoice = store.find(ctx.params.invoiceId ?? '')
    if (!invoice) sendJson(ctx.res, 404, { code: 'invoice-not-found', message: 'The invoice was not found' })
    return invoice
  }

  router.on(
    'POST',
    `${storePath}/invoices`,
    greenfield((ctx) => {
      const read = readBody(ctx)
      if (!read.ok) return
      const parsed = parseCreateInvoice(read.body)
      if (!parsed.ok) return sendJson(ctx.res, 422, parsed.errors)
      const origin = options.publicUrl?.replace(/\/$/, '') ?? `http://${ctx.req.headers.host ?? '127.0.0.1'}`
      sendJson(ctx.res, 200, store.create(parsed.value, `${origin}${base}`))
    }),
  )

  router.on(
    'GET',
    `${storePath}/invoices`,
    greenfield(({ res, url }) => {
      const statuses = url.searchParams.getAll('status').map((status) => status.toLowerCase())
      const orderIds = url.searchParams.getAll('orderId')
      const text = url.searchParams.get('textSearch')?.toLowerCase()
      const startDate = numberOrUndefined(url.searchParams.get('startDate'))
      const endDate = numberOrUndefined(url.searchParams.get('endDate'))
      const skip = numberOrUndefined(url.searchParams.get('skip')) ?? 0
      const take = numberOrUndefined(url.searchParams.get('take'))
      const found = store.all().filter((invoice) => {
        if (statuses.length > 0 && !statuses.includes(invoice.status.toLowerCase())) return false
        if (orderIds.length > 0 && !orderIds.includes(String(invoice.metadata.orderId ?? ''))) return false
        if (text && !store.searchText(invoice.id).includes(text)) return false
        if (startDate !== undefined && invoice.createdTime < startDate) return false
        if (endDate !== undefined && invoice.createdTime > endDate) return false
        return true
      })
      sendJson(res, 200, found.slice(skip, take === undefined ? undefined : skip + take))
    }),
  )

  router.on(
    'GET',
    `${storePath}/invoices/:invoiceId`,
    greenfield((ctx) => {
      const invoice = invoiceOr404(ctx)
      if (invoice) sendJson(ctx.res, 200, invoice)
    }),
  )

  router.on(
    'GET',
    `${storePath}/invoices/:invoiceId/payment-methods`,
    greenfield((ctx) => {
      if (invoiceOr404(ctx)) sendJson(ctx.res, 200, store.paymentMethods(ctx.params.invoiceId!))
    }),
  )

  router.on(
    'POST',
    `${storePath}/invoices/:invoiceId/status`,
    greenfield((ctx) => {
      if (!invoiceOr404(ctx)) return
      const read = readBody(ctx)
      if (!read.ok) return
      const status = (read.body as { status?: unknown }).status
      if (status !== 'Settled' && status !== 'Invalid') {
        return sendJson(ctx.res, 422, [{ path: 'status', message: 'status must be Settled or Invalid' }])
      }
      try {
        sendJson(ctx.res, 200, store.markStatus(ctx.params.invoiceId!, status as MarkInvoiceStatus))
      } catch (error) {
        if (error instanceof BtcpayError && error.status === 422) {
          return sendJson(ctx.res, 422, [{ path: 'status', message: error.message }])
        }
        throw error
      }
    }),
  )

  // Webhooks: the app may register its own instead of relying on the default one.

  const webhookOr404 = (ctx: RequestContext): WebhookConfig | undefined => {
    const config = sender.getWebhook(ctx.params.webhookId ?? '')
    if (!config) sendJson(ctx.res, 404, { code: 'webhook-not-found', message: 'The webhook was not found' })
    return config
  }

  const parseWebhook = (
    body: unknown,
  ): { ok: true; value: Partial<WebhookConfig> } | { ok: false; errors: GreenfieldValidationError[] } => {
    const input = (typeof body === 'object' && body !== null ? body : {}) as Record<string, unknown>
    const errors: GreenfieldValidationError[] = []
    const value: Partial<WebhookConfig> = {}
    if (!isHttpUrl(input.url))
      errors.push({ path: 'url', message: 'url is required and must be an http(s) URL' })
    else value.url = input.url
    if (typeof input.enabled === 'boolean') value.enabled = input.enabled
    if (typeof input.automaticRedelivery === 'boolean') value.automaticRedelivery = input.automaticRedelivery
    if (typeof input.secret === 'string' && input.secret !== '') value.secret = input.secret
    const events = input.authorizedEvents as { everything?: unknown; specificEvents?: unknown } | undefined
    if (events !== undefined) {
      const specific = Array.isArray(events.specificEvents) ? events.specificEvents.map(String) : []
      const unknownEvent = specific.find((type) => !(WEBHOOK_EVENT_TYPES as readonly string[]).includes(type))
      if (unknownEvent)
        errors.push({ path: 'authorizedEvents.specificEvents', message: `unknown event ${unknownEvent}` })
      value.authorizedEvents = { everything: events.everything !== false, specificEvents: specific }
    }
    return errors.length > 0 ? { ok: false, errors } : { ok: true, value }
  }

  router.on(
    'GET',
    `${storePath}/webhooks`,
    greenfield(({ res }) => sendJson(res, 200, sender.listWebhooks().map(publicWebhook))),
  )

  router.on(
    'POST',
    `${storePath}/webhooks`,
    greenfield((ctx) => {
      const read = readBody(ctx)
      if (!read.ok) return
      const parsed = parseWebhook(read.body)
      if (!parsed.ok) return sendJson(ctx.res, 422, parsed.errors)
      const created = sender.addWebhook({
        id: newBtcpayId(),
        enabled: true,
        automaticRedelivery: true,
        url: '',
        authorizedEvents: { everything: true, specificEvents: [] },
        secret: newBtcpayId(),
        ...parsed.value,
      })
      sendJson(ctx.res, 200, structuredClone(created))
    }),
  )

  router.on(
    'DELETE',
    `${storePath}/webhooks/:webhookId`,
    greenfield((ctx) => {
      if (!webhookOr404(ctx)) return
      sender.removeWebhook(ctx.params.webhookId!)
      sendJson(ctx.res, 200, {})
    }),
  )

  const deliveryOr404 = (ctx: RequestContext): DeliveryRecord | undefined => {
    const delivery = sender
      .deliveries()
      .find(
        (entry) =>
          entry.id === ctx.params.deliveryId && entry.webhookId === ctx.params.webhookId && !entry.duplicate,
      )
    if (!delivery)
      sendJson(ctx.res, 404, { code: 'webhookdelivery-not-found', message: 'The delivery was not found' })
    return delivery
  }

  router.on(
    'GET',
    `${storePath}/webhooks/:webhookId/deliveries`,
    greenfield((ctx) => {
      if (!webhookOr404(ctx)) return
      const count = numberOrUndefined(ctx.url.searchParams.get('count'))
      const latestFirst = sender
        .deliveries()
        .filter((entry) => entry.webhookId === ctx.params.webhookId && !entry.duplicate)
        .reverse()
      sendJson(ctx.res, 200, latestFirst.slice(0, count).map(publicDelivery))
    }),
  )

  router.on(
    'POST',
    `${storePath}/webhooks/:webhookId/deliveries/:deliveryId/redeliver`,
    greenfield((ctx) => {
      const delivery = webhookOr404(ctx) && deliveryOr404(ctx)
      if (delivery) sendJson(ctx.res, 200, sender.redeliver(delivery.id))
    }),
  )

  // --- Checkout page ----------------------------------------------------------------------------

  const renderCheckout = (ctx: RequestContext, status: number, notice?: string) => {
    const invoice = store.find(ctx.params.invoiceId ?? '')
    if (!invoice) {
      return sendText(
        ctx.res,
        404,
        '<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Invoice not found</title></head><body><main><h1>Invoice not found</h1></main></body></html>',
        'text/html; charset=utf-8',
        { 'content-security-policy': CHECKOUT_CSP },
      )
    }
    const html = renderCheckoutPage({
      storeName,
      invoice,
      base,
      notice,
      ...store.checkoutFacts(invoice.id),
    })
    sendText(ctx.res, status, html, 'text/html; charset=utf-8', {
      'content-security-policy': CHECKOUT_CSP,
      'cache-control': 'no-store',
    })
  }

  const checkoutAction = (ctx: RequestContext, action: (invoiceId: string) => InvoiceData) => {
    store.sweep()
    const invoiceId = ctx.params.invoiceId ?? ''
    try {
      const invoice = action(invoiceId)
      const { redirectUrl } = store.checkoutFacts(invoiceId)
      const paid = invoice.status === 'Processing' || invoice.status === 'Settled'
      if (paid && redirectUrl && invoice.checkout.redirectAutomatically) return redirect(ctx, redirectUrl)
      redirect(ctx, `${base}/i/${encodeURIComponent(invoiceId)}`)
    } catch (error) {
      if (!(error instanceof BtcpayError)) throw error
      renderCheckout(ctx, error.status, error.message)
    }
  }

  router.on('GET', `${base}/i/:invoiceId`, (ctx) => {
    store.sweep()
    renderCheckout(ctx, 200)
  })
  router.on('POST', `${base}/i/:invoiceId/pay`, (ctx) =>
    checkoutAction(ctx, (invoiceId) => {
      const fraction = numberOrUndefined(controlInput(ctx).fraction) ?? 1
      return store.pay(invoiceId, { fraction })
    }),
  )
  router.on('POST', `${base}/i/:invoiceId/expire`, (ctx) =>
    checkoutAction(ctx, (invoiceId) => store.expire(invoiceId)),
  )

  // --- Control ------------------------------------------------------------------------------

  const control: BtcpayControl = {
    apiKey,
    storeId,
    webhookSecret,
    webhookId,
    get webhookUrl() {
      return sender.getWebhook(webhookId)?.url || undefined
    },
    setWebhookUrl: (url) => {
      if (url !== undefined && !isHttpUrl(url)) throw new BtcpayError(422, `not an http(s) URL: ${url}`)
      if (!sender.getWebhook(webhookId)) sender.addWebhook(defaultWebhook())
      sender.updateWebhook(webhookId, { url: url ?? '' })
    },
    invoice: (invoiceId) => {
      store.sweep()
      return store.find(invoiceId)
    },
    pay: (invoiceId, payOptions) => store.pay(invoiceId, payOptions),
    settle: (invoiceId) => store.settle(invoiceId),
    expire: (invoiceId) => store.expire(invoiceId),
    invalidate: (invoiceId, invalidateOptions) =>
      store.invalidate(invoiceId, invalidateOptions?.manuallyMarked ?? true),
    advanceClock: (seconds) => {
      if (!Number.isFinite(seconds) || seconds < 0)
        throw new BtcpayError(422, 'seconds must be a number of 0 or more')
      clockOffset += Math.round(seconds)
      store.sweep()
      return now()
    },
    now,
    pauseDelivery: () => sender.pause(),
    resumeDelivery: () => sender.resume(),
    flush: () => sender.flush(),
    duplicateDelivery: (deliveryId) => sender.duplicate(deliveryId),
    redeliver: (deliveryId) => sender.redeliver(deliveryId),
    reversePending: () => sender.reversePending(),
    deliveries: () => sender.deliveries(),
    state: () => {
      store.sweep()
      return {
        storeId,
        storeName,
        now: now(),
        clockOffsetSeconds: clockOffset,
        deliveryPaused: sender.isPaused,
        requests,
        webhooks: structuredClone(sender.listWebhooks()),
        invoices: store.all(),
      }
    },
    reset: () => {
      store.clear()
      sender.clear()
      sender.resume()
      clockOffset = 0
      requests = 0
    },
    dispose: () => {
      if (sweeper) clearInterval(sweeper)
      sender.dispose()
    },
  }

  const controlRoute = (
    method: string,
    path: string,
    handler: (input: Record<string, unknown>, ctx: RequestContext) => unknown | Promise<unknown>,
  ) => {
    router.on(method, `/_control/btcpay${path}`, async (ctx) => {
      try {
        const result = await handler(controlInput(ctx), ctx)
        sendJson(ctx.res, 200, result ?? { ok: true })
      } catch (error) {
        const status = error instanceof BtcpayError ? error.status : error instanceof SyntaxError ? 400 : 409
        sendJson(ctx.res, status, { error: error instanceof Error ? error.message : String(error) })
      }
    })
  }

  controlRoute('GET', '', () => control.state())
  controlRoute('POST', '/reset', () => control.reset())
  controlRoute('POST', '/webhook-url', (input) => {
    const url = input.url === null || input.url === '' ? undefined : input.url
    if (url !== undefined && typeof url !== 'string') throw new BtcpayError(422, 'url must be a string')
    control.setWebhookUrl(url)
    return { webhookId, url: control.webhookUrl ?? null }
  })
  controlRoute('GET', '/invoices/:invoiceId', (_input, ctx) => {
    const invoice = control.invoice(ctx.params.invoiceId!)
    if (!invoice) throw new BtcpayError(404, `no invoice ${ctx.params.invoiceId}`)
    return invoice
  })
  controlRoute('POST', '/invoices/:invoiceId/pay', (input, ctx) =>
    control.pay(ctx.params.invoiceId!, {
      fraction: numberOrUndefined(input.fraction),
      confirm: booleanOrUndefined(input.confirm),
    }),
  )
  controlRoute('POST', '/invoices/:invoiceId/settle', (_input, ctx) => control.settle(ctx.params.invoiceId!))
  controlRoute('POST', '/invoices/:invoiceId/expire', (_input, ctx) => control.expire(ctx.params.invoiceId!))
  controlRoute('POST', '/invoices/:invoiceId/invalidate', (input, ctx) =>
    control.invalidate(ctx.params.invoiceId!, { manuallyMarked: booleanOrUndefined(input.manuallyMarked) }),
  )
  controlRoute('POST', '/clock/advance', (input) => ({
    now: control.advanceClock(numberOrUndefined(input.seconds) ?? 0),
  }))
  controlRoute('GET', '/deliveries', () => control.deliveries())
  controlRoute('POST', '/deliveries/pause', () => control.pauseDelivery())
  controlRoute('POST', '/deliveries/resume', () => control.resumeDelivery())
  controlRoute('POST', '/deliveries/reverse', () => control.reversePending())
  controlRoute('POST', '/deliveries/flush', async () => {
    await control.flush()
    return { ok: true, deliveries: control.deliveries().length }
  })
  controlRoute('POST', '/deliveries/:deliveryId/duplicate', (_input, ctx) => {
    control.duplicateDelivery(ctx.params.deliveryId!)
  })
  controlRoute('POST', '/deliveries/:deliveryId/redeliver', (_input, ctx) => ({
    deliveryId: control.redeliver(ctx.params.deliveryId!),
  }))

  return control
}
