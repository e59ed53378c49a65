import { createHmac, timingSafeEqual } from 'node:crypto'
import { text } from '@edgeclub/shared'
import { z } from 'zod'

/**
 * BTCPay Server's Greenfield API (the parts EdgeClub uses), over fetch with the store's API key.
 * BTCPAY_URL points it at a self-hosted server, or at the emulator in dev and tests. See README.md.
 */

const INVOICE_STATUSES = ['New', 'Processing', 'Settled', 'Expired', 'Invalid'] as const
export type BtcpayInvoiceStatus = (typeof INVOICE_STATUSES)[number]

const InvoiceSchema = z.object({
  id: z.string().max(128),
  storeId: z.string().max(128),
  amount: z.union([z.string().max(64), z.number()]).transform(String),
  currency: z.string().max(16),
  status: z.enum(INVOICE_STATUSES),
  // None, PaidPartial, PaidOver, PaidLate, Marked, Invalid...: kept open, BTCPay adds values.
  additionalStatus: z.string().max(64).nullish(),
  checkoutLink: z.string().max(2048),
  createdTime: z.number(),
  expirationTime: z.number(),
  metadata: z.record(z.string(), z.unknown()).nullish(),
})
export type BtcpayInvoice = z.infer<typeof InvoiceSchema>

/** A webhook body, as far as we read it: which delivery, which invoice. The invoice itself is fetched. */
const WebhookEventSchema = z.object({
  deliveryId: text().min(1).max(128),
  originalDeliveryId: text().min(1).max(128).optional(),
  isRedelivery: z.boolean().optional(),
  type: text().min(1).max(64),
  storeId: text().max(128).optional(),
  invoiceId: text().max(128).optional(),
  /** When BTCPay created the event (Unix seconds): the start of its webhook lag. */
  timestamp: z.number().optional().catch(undefined),
})
export type BtcpayWebhookEvent = z.infer<typeof WebhookEventSchema>

export class BtcpayError extends Error {
  override name = 'BtcpayError'
  constructor(
    message: string,
    /** The HTTP status BTCPay answered; 0 when it could not be reached. */
    readonly status: number,
    /** BTCPay's machine code, e.g. `invoice-not-found`, when it sent one. */
    readonly code?: string,
  ) {
    super(message)
  }
}

export interface BtcpaySettings {
  url: string
  apiKey: string
  storeId: string
  webhookSecret: string
}

/**
 * Crypto is offered only when all four settings are present: without the webhook secret, events
 * could not be trusted, and a half-configured store would take money it cannot match to members.
 */
export function btcpaySettings(config: {
  url: string | undefined
  apiKey: string | undefined
  storeId: string | undefined
  webhookSecret: string | undefined
}): BtcpaySettings | undefined {
  const { url, apiKey, storeId, webhookSecret } = config
  return url && apiKey && storeId && webhookSecret ? { url, apiKey, storeId, webhookSecret } : undefined
}

export function createBtcpayClient(
  settings: Pick<BtcpaySettings, 'url' | 'apiKey' | 'storeId'>,
  options: { timeoutMs?: number } = {},
) {
  const base = `${settings.url.replace(/\/$/, '')}/api/v1/stores/${encodeURIComponent(settings.storeId)}`
  const request = async (path: string, init: { method?: string; body?: unknown } = {}): Promise<unknown> => {
    let response: Response
    try {
      response = await fetch(`${base}${path}`, {
        method: init.method ?? 'GET',
        headers: {
          authorization: `token ${settings.apiKey}`,
          accept: 'application/json',
          ...(init.body === undefined ? {} : { 'content-type': 'application/json' }),
        },
        body: init.body === undefined ? undefined : JSON.stringify(init.body),
        signal: AbortSignal.timeout(options.timeoutMs ?? 15_000),
      })
    } catch (error) {
      throw new BtcpayError(
        `BTCPay Server is unreachable: ${error instanceof Error ? error.message : String(error)}`,
        0,
      )
    }
    const body: unknown = await response.json().catch(() => undefined)
    if (!response.ok) {
      // Greenfield errors are {code, message}, or a list of {path, message} for invalid input.
      const first = Array.isArray(body) ? body[0] : body
      const field = (key: string) =>
        first && typeof first === 'object' && key in first
          ? String((first as Record<string, unknown>)[key])
          : undefined
      throw new BtcpayError(
        field('message') ?? `BTCPay answered ${response.status}`,
        response.status,
        field('code'),
      )
    }
    return body
  }
  const parseInvoice = (body: unknown): BtcpayInvoice => {
    const parsed = InvoiceSchema.safeParse(body)
    if (!parsed.success) throw new BtcpayError('BTCPay answered with an invoice we cannot read', 502)
    return parsed.data
  }

  return {
    /** An invoice for a fiat amount (a decimal string, as Greenfield takes it); BTCPay picks the coins. */
    async createInvoice(input: {
      amount: string
      currency: string
      metadata: Record<string, string>
      redirectUrl: string
      expirationMinutes: number
    }): Promise<BtcpayInvoice> {
      return parseInvoice(
        await request('/invoices', {
          method: 'POST',
          body: {
            amount: input.amount,
            currency: input.currency,
            metadata: input.metadata,
            checkout: { redirectURL: input.redirectUrl, expirationMinutes: input.expirationMinutes },
          },
        }),
      )
    },

    async getInvoice(invoiceId: string): Promise<BtcpayInvoice> {
      return parseInvoice(await request(`/invoices/${encodeURIComponent(invoiceId)}`))
    },
  }
}
export type BtcpayClient = ReturnType<typeof createBtcpayClient>

/** BTCPay-Sig: sha256=<hex HMAC-SHA256 of the raw body with the webhook secret>, compared in constant time. */
export function verifyBtcpaySignature(rawBody: Buffer, header: string | undefined, secret: string): boolean {
  if (!header?.startsWith('sha256=')) return false
  const expected = createHmac('sha256', secret).update(rawBody).digest()
  const given = Buffer.from(header.slice('sha256='.length), 'hex')
  return given.length === expected.length && timingSafeEqual(given, expected)
}

/** The verified raw body as an event, or undefined when it is not one. */
export function parseBtcpayEvent(rawBody: Buffer): BtcpayWebhookEvent | undefined {
  try {
    const parsed = WebhookEventSchema.safeParse(JSON.parse(rawBody.toString('utf8')))
    return parsed.success ? parsed.data : undefined
  } catch {
    return undefined
  }
}
