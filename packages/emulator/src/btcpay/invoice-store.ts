import { BtcpayError } from './errors'
import type {
  CheckoutOptions,
  GreenfieldValidationError,
  InvoiceAdditionalStatus,
  InvoiceData,
  InvoiceMetadata,
  InvoicePayment,
  InvoicePaymentMethod,
  InvoiceStatus,
  MarkInvoiceStatus,
  PaymentStatus,
  ReceiptOptions,
  SpeedPolicy,
  WebhookEventType,
} from './greenfield-types'
import { newBtcpayId, newPaymentId, newRegtestAddress } from './ids'

/**
 * Invoices and their state machine, following BTCPay Server's rules: New → Processing (paid in
 * full, unconfirmed) → Settled (confirmed); a partial payment keeps New with PaidPartial; New past
 * its expiration → Expired; Processing past its monitoring window → Invalid. Time is the emulator
 * clock so tests can jump past an expiration instead of waiting for it.
 */

export interface InvoiceEventDraft {
  type: WebhookEventType
  storeId: string
  invoiceId: string
  metadata: InvoiceMetadata
  /** Type-specific fields; BTCPay (Newtonsoft) writes them before the common ones. */
  fields: Record<string, unknown>
}

export interface InvoiceStoreOptions {
  storeId: string
  /** BTC price of one unit of any fiat currency (the emulator has a single rate). */
  btcRate: number
  now: () => number
  emit: (event: InvoiceEventDraft) => void
}

export interface PayOptions {
  /** Share of the amount still due to pay: 1 pays in full, 0.5 underpays, 1.2 overpays. */
  fraction?: number
  /** Confirm the payment at once (Processing → Settled). Default true; false leaves it Processing. */
  confirm?: boolean
}

interface PaymentRecord {
  id: string
  receivedDate: number
  sats: number
  status: PaymentStatus
}

interface InvoiceRecord {
  id: string
  storeId: string
  amount: string
  currency: string
  checkoutBase: string
  createdTime: number
  expirationTime: number
  monitoringExpiration: number
  status: InvoiceStatus
  additionalStatus: InvoiceAdditionalStatus
  metadata: InvoiceMetadata
  checkout: Required<CheckoutOptions>
  receipt: ReceiptOptions
  additionalSearchTerms: string[]
  destination: string
  keyIndex: number
  rate: number
  dueSats: number
  payments: PaymentRecord[]
}

interface NormalizedCreate {
  amount: string
  currency: string
  metadata: InvoiceMetadata
  checkout: Required<CheckoutOptions>
  receipt: ReceiptOptions
  additionalSearchTerms: string[]
}

const SPEED_POLICIES: readonly SpeedPolicy[] = ['HighSpeed', 'MediumSpeed', 'LowMediumSpeed', 'LowSpeed']
const SATS_PER_BTC = 100_000_000

export function formatBtc(sats: number): string {
  const sign = sats < 0 ? '-' : ''
  return `${sign}${(Math.abs(sats) / SATS_PER_BTC).toFixed(8)}`
}

function isRecord(value: unknown): value is Record<string, unknown> {
  return typeof value === 'object' && value !== null && !Array.isArray(value)
}

function decimalsOf(amount: string): number {
  return amount.split('.')[1]?.length ?? 0
}

/** Validates a create-invoice body the way Greenfield does: every problem as a {path, message}. */
export function parseCreateInvoice(
  body: unknown,
): { ok: true; value: NormalizedCreate } | { ok: false; errors: GreenfieldValidationError[] } {
  const errors: GreenfieldValidationError[] = []
  if (!isRecord(body))
    return { ok: false, errors: [{ path: '', message: 'The request body must be a JSON object' }] }

  let amount = ''
  const rawAmount = body.amount
  if (rawAmount === undefined || rawAmount === null) {
    errors.push({
      path: 'amount',
      message: 'The emulator requires an amount (top-up invoices are not emulated)',
    })
  } else {
    const text =
      typeof rawAmount === 'number' && Number.isFinite(rawAmount)
        ? String(rawAmount)
        : typeof rawAmount === 'string'
          ? rawAmount.trim()
          : ''
    if (!/^-?\d+(\.\d+)?$/.test(text))
      errors.push({ path: 'amount', message: 'The amount is not a valid decimal' })
    else if (Number(text) < 0) errors.push({ path: 'amount', message: 'The amount should be 0 or more.' })
    else if (Number(text) === 0)
      errors.push({ path: 'amount', message: 'The emulator does not emulate free invoices' })
    else amount = text
  }

  let currency = 'USD'
  if (body.currency !== undefined && body.currency !== null && body.currency !== '') {
    if (typeof body.currency !== 'string' || !/^[A-Za-z]{3,10}$/.test(body.currency)) {
      errors.push({ path: 'currency', message: 'Invalid currency' })
    } else currency = body.currency.toUpperCase()
  }

  let metadata: InvoiceMetadata = {}
  if (body.metadata !== undefined && body.metadata !== null) {
    if (!isRecord(body.metadata)) errors.push({ path: 'metadata', message: 'metadata must be a JSON object' })
    else metadata = structuredClone(body.metadata)
  }

  const checkout: Required<CheckoutOptions> = {
    speedPolicy: 'MediumSpeed',
    paymentMethods: ['BTC-CHAIN'],
    defaultPaymentMethod: null,
    lazyPaymentMethods: false,
    expirationMinutes: 15,
    monitoringMinutes: 1440,
    paymentTolerance: 0,
    redirectURL: null,
    redirectAutomatically: false,
    defaultLanguage: null,
  }
  const rawCheckout = body.checkout
  if (rawCheckout !== undefined && rawCheckout !== null) {
    if (!isRecord(rawCheckout)) errors.push({ path: 'checkout', message: 'checkout must be a JSON object' })
    else {
      const minutes = (key: 'expirationMinutes' | 'monitoringMinutes') => {
        const value = rawCheckout[key]
        if (value === undefined || value === null) return
        // BTCPay refuses windows shorter than 30 seconds.
        if (typeof value !== 'number' || !Number.isFinite(value) || value < 0.5) {
          errors.push({
            path: `checkout.${key}`,
            message: `${key} must be a number of at least 0.5 (30 seconds)`,
          })
        } else checkout[key] = value
      }
      minutes('expirationMinutes')
      minutes('monitoringMinutes')
      const speed = rawCheckout.speedPolicy
      if (speed !== undefined && speed !== null) {
        if (typeof speed !== 'string' || !SPEED_POLICIES.includes(speed as SpeedPolicy)) {
          errors.push({
            path: 'checkout.speedPolicy',
            message: `speedPolicy must be one of ${SPEED_POLICIES.join(', ')}`,
          })
        } else checkout.speedPolicy = speed as SpeedPolicy
      }
      const tolerance = rawCheckout.paymentTolerance
      if (tolerance !== undefined && tolerance !== null) {
        if (typeof tolerance !== 'number' || !(tolerance >= 0 && tolerance <= 100)) {
          errors.push({
            path: 'checkout.paymentTolerance',
            message: 'paymentTolerance must be between 0 and 100',
          })
        } else checkout.paymentTolerance = tolerance
      }
      const redirect = rawCheckout.redirectURL
      if (redirect !== undefined && redirect !== null) {
        if (typeof redirect !== 'string')
          errors.push({ path: 'checkout.redirectURL', message: 'redirectURL must be a string' })
        else checkout.redirectURL = redirect
      }
      const automatic = rawCheckout.redirectAutomatically
      if (typeof automatic === 'boolean') checkout.redirectAutomatically = automatic
      if (typeof rawCheckout.defaultLanguage === 'string')
        checkout.defaultLanguage = rawCheckout.defaultLanguage
      if (typeof rawCheckout.defaultPaymentMethod === 'string')
        checkout.defaultPaymentMethod = rawCheckout.defaultPaymentMethod
    }
  }

  const receipt: ReceiptOptions = { enabled: null, showQR: null, showPayments: null }
  if (isRecord(body.receipt)) {
    for (const key of ['enabled', 'showQR', 'showPayments'] as const) {
      const value = body.receipt[key]
      if (typeof value === 'boolean') receipt[key] = value
    }
  }

  let additionalSearchTerms: string[] = []
  const terms = body.additionalSearchTerms
  if (terms !== undefined && terms !== null) {
    if (!Array.isArray(terms) || !terms.every((term) => typeof term === 'string')) {
      errors.push({
        path: 'additionalSearchTerms',
        message: 'additionalSearchTerms must be an array of strings',
      })
    } else additionalSearchTerms = terms
  }

  if (errors.length > 0) return { ok: false, errors }
  return { ok: true, value: { amount, currency, metadata, checkout, receipt, additionalSearchTerms } }
}

export class InvoiceStore {
  private readonly invoices = new Map<string, InvoiceRecord>()
  private keyIndex = 0

  constructor(private readonly options: InvoiceStoreOptions) {}

  create(request: NormalizedCreate, checkoutBase: string): InvoiceData {
    const now = this.options.now()
    const rate = request.currency === 'BTC' ? 1 : this.options.btcRate
    const amount = Number(request.amount)
    const expirationTime = now + Math.round(request.checkout.expirationMinutes! * 60)
    const record: InvoiceRecord = {
      id: newBtcpayId(),
      storeId: this.options.storeId,
      amount: request.amount,
      currency: request.currency,
      checkoutBase,
      createdTime: now,
      expirationTime,
      monitoringExpiration: expirationTime + Math.round(request.checkout.monitoringMinutes! * 60),
      status: 'New',
      additionalStatus: 'None',
      metadata: request.metadata,
      checkout: request.checkout,
      receipt: request.receipt,
      additionalSearchTerms: request.additionalSearchTerms,
      destination: newRegtestAddress(),
      keyIndex: this.keyIndex++,
      rate,
      // The customer is asked for at least the fiat amount, so round the satoshis up.
      dueSats: Math.ceil(Math.round((amount / rate) * SATS_PER_BTC * 1000) / 1000),
      payments: [],
    }
    this.invoices.set(record.id, record)
    this.emit(record, 'InvoiceCreated', {})
    return this.toData(record)
  }

  find(invoiceId: string): InvoiceData | undefined {
    const record = this.invoices.get(invoiceId)
    return record && this.toData(record)
  }

  /** Newest first, as Greenfield lists them. */
  all(): InvoiceData[] {
    return [...this.invoices.values()].reverse().map((record) => this.toData(record))
  }

  searchText(invoiceId: string): string {
    const record = this.require(invoiceId)
    return [record.id, JSON.stringify(record.metadata), ...record.additionalSearchTerms]
      .join(' ')
      .toLowerCase()
  }

  paymentMethods(invoiceId: string): InvoicePaymentMethod[] {
    const record = this.require(invoiceId)
    const paid = this.paidSats(record)
    const due = record.dueSats - paid
    return [
      {
        paymentMethodId: 'BTC-CHAIN',
        currency: 'BTC',
        destination: record.destination,
        paymentLink: `bitcoin:${record.destination}?amount=${formatBtc(Math.max(due, 0))}`,
        rate: String(record.rate),
        paymentMethodPaid: formatBtc(paid),
        totalPaid: formatBtc(paid),
        due: formatBtc(due),
        amount: formatBtc(record.dueSats),
        paymentMethodFee: formatBtc(0),
        payments: record.payments.map((payment) => this.toPayment(record, payment)),
        activated: true,
        additionalData: {
          keyPath: `0/${record.keyIndex}`,
          payjoinEnabled: false,
          recommendedFeeRate: '1',
          paymentMethodFeeRate: '0',
        },
      },
    ]
  }

  /** Checkout-page facts not in InvoiceData. */
  checkoutFacts(invoiceId: string): {
    dueBtc: string
    paidBtc: string
    destination: string
    redirectUrl?: string
  } {
    const record = this.require(invoiceId)
    const paid = this.paidSats(record)
    const redirect = record.checkout.redirectURL
    const orderId = typeof record.metadata.orderId === 'string' ? record.metadata.orderId : ''
    return {
      dueBtc: formatBtc(Math.max(record.dueSats - paid, 0)),
      paidBtc: formatBtc(paid),
      destination: record.destination,
      redirectUrl: redirect
        ? redirect
            .replaceAll('{InvoiceId}', encodeURIComponent(record.id))
            .replaceAll('{OrderId}', encodeURIComponent(orderId))
        : undefined,
    }
  }

  pay(invoiceId: string, options: PayOptions = {}): InvoiceData {
    this.sweep()
    const record = this.require(invoiceId)
    const fraction = options.fraction ?? 1
    if (!Number.isFinite(fraction) || fraction <= 0)
      throw new BtcpayError(422, 'fraction must be a number above 0')
    if (record.status !== 'New' && record.status !== 'Expired') {
      throw new BtcpayError(
        409,
        `invoice ${invoiceId} is ${record.status}; only New or Expired invoices take payments`,
      )
    }
    const afterExpiration = record.status === 'Expired'
    const stillDue = record.dueSats - this.paidSats(record)
    const payment: PaymentRecord = {
      id: newPaymentId(),
      receivedDate: this.options.now(),
      sats: Math.max(1, Math.round(stillDue * fraction)),
      status: 'Processing',
    }
    record.payments.push(payment)

    const paid = this.paidSats(record)
    const tolerance = record.checkout.paymentTolerance ?? 0
    const paidInFull = paid >= Math.ceil(record.dueSats * (1 - tolerance / 100))
    if (paidInFull) {
      record.status = 'Processing'
      record.additionalStatus = paid > record.dueSats ? 'PaidOver' : afterExpiration ? 'PaidLate' : 'None'
    } else {
      record.additionalStatus = 'PaidPartial'
    }
    this.emit(record, 'InvoiceReceivedPayment', {
      afterExpiration,
      paymentMethodId: 'BTC-CHAIN',
      paymentMethod: 'BTC-CHAIN',
      payment: this.toPayment(record, payment),
    })
    if (paidInFull) {
      this.emit(record, 'InvoiceProcessing', { overPaid: record.additionalStatus === 'PaidOver' })
      if (options.confirm ?? true) this.confirm(record)
    }
    return this.toData(record)
  }

  /** Confirms a Processing invoice; any other unsettled invoice is marked settled by hand. */
  settle(invoiceId: string): InvoiceData {
    this.sweep()
    const record = this.require(invoiceId)
    if (record.status === 'Settled') throw new BtcpayError(409, `invoice ${invoiceId} is already Settled`)
    if (record.status === 'Processing') this.confirm(record)
    else this.markSettled(record)
    return this.toData(record)
  }

  /** Greenfield's POST .../invoices/{id}/status: always a manual marking. */
  markStatus(invoiceId: string, status: MarkInvoiceStatus): InvoiceData {
    this.sweep()
    const record = this.require(invoiceId)
    if (!this.markable(record.status).includes(status)) {
      throw new BtcpayError(422, `Invoice ${invoiceId} is ${record.status} and cannot be marked as ${status}`)
    }
    if (status === 'Settled') this.markSettled(record)
    else this.toInvalid(record, true)
    return this.toData(record)
  }

  expire(invoiceId: string): InvoiceData {
    this.sweep()
    const record = this.require(invoiceId)
    if (record.status !== 'New') {
      throw new BtcpayError(409, `invoice ${invoiceId} is ${record.status}; only a New invoice can expire`)
    }
    record.expirationTime = Math.min(record.expirationTime, this.options.now())
    this.toExpired(record)
    return this.toData(record)
  }

  /** manuallyMarked false stands for BTCPay's "failed to confirm in time" (e.g. a double spend). */
  invalidate(invoiceId: string, manuallyMarked = true): InvoiceData {
    this.sweep()
    const record = this.require(invoiceId)
    if (record.status === 'Invalid') throw new BtcpayError(409, `invoice ${invoiceId} is already Invalid`)
    this.toInvalid(record, manuallyMarked)
    return this.toData(record)
  }

  /** Applies what the passing of time does: expiries and monitoring timeouts. */
  sweep(): void {
    const now = this.options.now()
    for (const record of this.invoices.values()) {
      if (record.status === 'New' && record.expirationTime <= now) this.toExpired(record)
      else if (record.status === 'Processing' && record.monitoringExpiration <= now)
        this.toInvalid(record, false)
    }
  }

  clear(): void {
    this.invoices.clear()
  }

  private require(invoiceId: string): InvoiceRecord {
    const record = this.invoices.get(invoiceId)
    if (!record) throw new BtcpayError(404, `no invoice ${invoiceId}`)
    return record
  }

  private confirm(record: InvoiceRecord): void {
    for (const payment of record.payments) if (payment.status === 'Processing') payment.status = 'Settled'
    record.status = 'Settled'
    this.emit(record, 'InvoiceSettled', {
      manuallyMarked: false,
      overPaid: record.additionalStatus === 'PaidOver',
    })
  }

  private markSettled(record: InvoiceRecord): void {
    record.status = 'Settled'
    record.additionalStatus = 'Marked'
    this.emit(record, 'InvoiceSettled', { manuallyMarked: true, overPaid: false })
  }

  private toExpired(record: InvoiceRecord): void {
    record.status = 'Expired'
    this.emit(record, 'InvoiceExpired', { partiallyPaid: record.additionalStatus === 'PaidPartial' })
  }

  private toInvalid(record: InvoiceRecord, manuallyMarked: boolean): void {
    record.status = 'Invalid'
    if (manuallyMarked) record.additionalStatus = 'Marked'
    else
      for (const payment of record.payments) if (payment.status === 'Processing') payment.status = 'Invalid'
    this.emit(record, 'InvoiceInvalid', { manuallyMarked })
  }

  private markable(status: InvoiceStatus): InvoiceStatus[] {
    if (status === 'Settled') return ['Invalid']
    if (status === 'Invalid') return ['Settled']
    return ['Settled', 'Invalid']
  }

  private paidSats(record: InvoiceRecord): number {
    return record.payments.reduce(
      (sum, payment) => (payment.status === 'Invalid' ? sum : sum + payment.sats),
      0,
    )
  }

  private emit(record: InvoiceRecord, type: WebhookEventType, fields: Record<string, unknown>): void {
    this.options.emit({
      type,
      storeId: record.storeId,
      invoiceId: record.id,
      // A snapshot: a later metadata change must not rewrite an event already queued.
      metadata: structuredClone(record.metadata),
      fields,
    })
  }

  private toPayment(record: InvoiceRecord, payment: PaymentRecord): InvoicePayment {
    return {
      id: payment.id,
      receivedDate: payment.receivedDate,
      value: formatBtc(payment.sats),
      fee: formatBtc(0),
      status: payment.status,
      destination: record.destination,
    }
  }

  private toData(record: InvoiceRecord): InvoiceData {
    const paid = this.paidSats(record)
    const decimals = record.currency === 'BTC' ? 8 : Math.max(2, decimalsOf(record.amount))
    // Proportional to the invoice amount so that paying in full reads back exactly as the amount.
    const paidAmount = paid === 0 ? '0' : ((Number(record.amount) * paid) / record.dueSats).toFixed(decimals)
    return {
      id: record.id,
      storeId: record.storeId,
      amount: record.amount,
      paidAmount,
      currency: record.currency,
      type: 'Standard',
      checkoutLink: `${record.checkoutBase}/i/${record.id}`,
      createdTime: record.createdTime,
      expirationTime: record.expirationTime,
      monitoringExpiration: record.monitoringExpiration,
      status: record.status,
      additionalStatus: record.additionalStatus,
      availableStatusesForManualMarking: this.markable(record.status),
      archived: false,
      metadata: structuredClone(record.metadata),
      checkout: structuredClone(record.checkout),
      receipt: { ...record.receipt },
    }
  }
}
