import { createHmac, timingSafeEqual } from 'node:crypto'
import type {
  CreateInvoiceRequest,
  GreenfieldValidationError,
  InvoiceData,
  InvoicePaymentMethod,
  InvoiceStatus,
} from './greenfield-types'

/**
 * A minimal Greenfield client, written the way an app would write one (plain fetch, nothing
 * borrowed from the emulator's internals), so the contract tests exercise the emulator from the
 * outside. Its signature check is deliberately a separate implementation from the emulator's signer.
 */

export interface GreenfieldClientOptions {
  /** BTCPay's root URL, e.g. `${emulator.url}/btcpay`. */
  baseUrl: string
  apiKey: string
  storeId: string
  fetch?: typeof fetch
}

export interface ListInvoicesQuery {
  status?: InvoiceStatus[]
  orderId?: string[]
  textSearch?: string
  skip?: number
  take?: number
}

export class GreenfieldError extends Error {
  constructor(
    readonly status: number,
    readonly body: unknown,
  ) {
    super(`BTCPay Greenfield answered ${status}: ${JSON.stringify(body)}`)
    this.name = 'GreenfieldError'
  }

  /** Greenfield's error code, e.g. 'unauthenticated' or 'store-not-found'. */
  get code(): string | undefined {
    const body = this.body as { code?: unknown } | null
    return typeof body?.code === 'string' ? body.code : undefined
  }

  /** A 422's field errors. */
  get validationErrors(): GreenfieldValidationError[] {
    return this.status === 422 && Array.isArray(this.body) ? (this.body as GreenfieldValidationError[]) : []
  }
}

export interface GreenfieldClient {
  createInvoice(request: CreateInvoiceRequest): Promise<InvoiceData>
  getInvoice(invoiceId: string): Promise<InvoiceData>
  listInvoices(query?: ListInvoicesQuery): Promise<InvoiceData[]>
  getPaymentMethods(invoiceId: string): Promise<InvoicePaymentMethod[]>
}

export function createGreenfieldClient(options: GreenfieldClientOptions): GreenfieldClient {
  const doFetch = options.fetch ?? fetch
  const storeUrl = `${options.baseUrl.replace(/\/$/, '')}/api/v1/stores/${encodeURIComponent(options.storeId)}`

  async function call<T>(method: string, path: string, body?: unknown): Promise<T> {
    const response = await doFetch(`${storeUrl}${path}`, {
      method,
      headers: {
        authorization: `token ${options.apiKey}`,
        accept: 'application/json',
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
      },
      body: body === undefined ? undefined : JSON.stringify(body),
    })
    const text = await response.text()
    let parsed: unknown = text
    try {
      parsed = text === '' ? undefined : JSON.parse(text)
    } catch {
      // Not JSON: keep the text for the error message.
    }
    if (!response.ok) throw new GreenfieldError(response.status, parsed)
    return parsed as T
  }

  return {
    createInvoice: (request) => call<InvoiceData>('POST', '/invoices', request),
    getInvoice: (invoiceId) => call<InvoiceData>('GET', `/invoices/${encodeURIComponent(invoiceId)}`),
    listInvoices: (query = {}) => {
      const params = new URLSearchParams()
      for (const status of query.status ?? []) params.append('status', status)
      for (const orderId of query.orderId ?? []) params.append('orderId', orderId)
      if (query.textSearch) params.set('textSearch', query.textSearch)
      if (query.skip !== undefined) params.set('skip', String(query.skip))
      if (query.take !== undefined) params.set('take', String(query.take))
      const search = params.toString()
      return call<InvoiceData[]>('GET', `/invoices${search ? `?${search}` : ''}`)
    },
    getPaymentMethods: (invoiceId) =>
      call<InvoicePaymentMethod[]>('GET', `/invoices/${encodeURIComponent(invoiceId)}/payment-methods`),
  }
}

/**
 * Checks a `BTCPay-Sig: sha256=<hex HMAC-SHA256 of the raw body>` header. Pass the body's exact
 * bytes: re-serialized JSON is not the same bytes and will (rightly) fail.
 */
export function verifySignature(
  rawBody: Buffer | Uint8Array | string,
  header: string | string[] | null | undefined,
  secret: string,
): boolean {
  const value = Array.isArray(header) ? (header.length === 1 ? header[0] : undefined) : header
  const match = /^sha256=([0-9a-fA-F]{64})$/.exec(value?.trim() ?? '')
  if (!match?.[1]) return false
  const bytes = typeof rawBody === 'string' ? Buffer.from(rawBody, 'utf8') : rawBody
  const expected = createHmac('sha256', secret).update(bytes).digest()
  const given = Buffer.from(match[1], 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}
