/**
 * BTCPay Server Greenfield API wire shapes (the subset EdgeClub uses), as the swagger of BTCPay
 * Server 2.x documents them. Shared by the emulator and the contract-test client so both sides
 * speak the same vocabulary; the contract tests still check the bytes on the wire.
 */

export type InvoiceStatus = 'New' | 'Processing' | 'Expired' | 'Invalid' | 'Settled'

export type InvoiceAdditionalStatus = 'None' | 'PaidLate' | 'PaidPartial' | 'Marked' | 'Invalid' | 'PaidOver'

export type SpeedPolicy = 'HighSpeed' | 'MediumSpeed' | 'LowMediumSpeed' | 'LowSpeed'

export type InvoiceMetadata = Record<string, unknown>

export interface CheckoutOptions {
  speedPolicy?: SpeedPolicy | null
  paymentMethods?: string[] | null
  defaultPaymentMethod?: string | null
  lazyPaymentMethods?: boolean | null
  /** Defaults to the store setting, 15. */
  expirationMinutes?: number | null
  /** Defaults to the store setting, 1440 (one day). */
  monitoringMinutes?: number | null
  paymentTolerance?: number | null
  /** May contain the placeholders {InvoiceId} and {OrderId}. */
  redirectURL?: string | null
  redirectAutomatically?: boolean | null
  defaultLanguage?: string | null
}

export interface ReceiptOptions {
  enabled?: boolean | null
  showQR?: boolean | null
  showPayments?: boolean | null
}

export interface CreateInvoiceRequest {
  /** A decimal; BTCPay accepts a JSON string or number. */
  amount?: string | number | null
  currency?: string | null
  metadata?: InvoiceMetadata | null
  checkout?: CheckoutOptions | null
  receipt?: ReceiptOptions | null
  additionalSearchTerms?: string[] | null
}

export interface InvoiceData {
  id: string
  storeId: string
  /** Decimal string, e.g. "29.99". */
  amount: string
  paidAmount: string
  currency: string
  type: 'Standard' | 'TopUp'
  checkoutLink: string
  /** Unix seconds. */
  createdTime: number
  expirationTime: number
  monitoringExpiration: number
  status: InvoiceStatus
  additionalStatus: InvoiceAdditionalStatus
  availableStatusesForManualMarking: InvoiceStatus[]
  archived: boolean
  metadata: InvoiceMetadata
  checkout: Required<CheckoutOptions>
  receipt: ReceiptOptions
}

export type PaymentStatus = 'Invalid' | 'Processing' | 'Settled'

export interface InvoicePayment {
  /** `<txid>-<vout>` for on-chain payments. */
  id: string
  receivedDate: number
  /** Decimal string in the payment method's currency (BTC). */
  value: string
  fee: string
  status: PaymentStatus
  destination: string
}

export interface InvoicePaymentMethod {
  /** `BTC-CHAIN` since BTCPay Server 2.0. */
  paymentMethodId: string
  currency: string
  destination: string
  paymentLink: string | null
  rate: string
  paymentMethodPaid: string
  totalPaid: string
  /** Negative when overpaid. */
  due: string
  amount: string
  paymentMethodFee: string
  payments: InvoicePayment[]
  activated: boolean
  additionalData: Record<string, unknown>
}

export type MarkInvoiceStatus = 'Settled' | 'Invalid'

export type WebhookEventType =
  | 'InvoiceCreated'
  | 'InvoiceReceivedPayment'
  | 'InvoiceProcessing'
  | 'InvoiceSettled'
  | 'InvoiceExpired'
  | 'InvoiceInvalid'

export const WEBHOOK_EVENT_TYPES: readonly WebhookEventType[] = [
  'InvoiceCreated',
  'InvoiceReceivedPayment',
  'InvoiceProcessing',
  'InvoiceSettled',
  'InvoiceExpired',
  'InvoiceInvalid',
]

interface WebhookInvoiceEventBase {
  deliveryId: string
  webhookId: string
  /** Equal to deliveryId on a first delivery; the first delivery's id on every redelivery. */
  originalDeliveryId: string
  isRedelivery: boolean
  /** Unix seconds when the first delivery was created (kept on redeliveries). */
  timestamp: number
  storeId: string
  invoiceId: string
  metadata: InvoiceMetadata
}

export interface InvoiceCreatedEvent extends WebhookInvoiceEventBase {
  type: 'InvoiceCreated'
}

export interface InvoiceReceivedPaymentEvent extends WebhookInvoiceEventBase {
  type: 'InvoiceReceivedPayment'
  afterExpiration: boolean
  /** BTCPay Server 2.x name. */
  paymentMethodId: string
  /** BTCPay Server 1.x name, sent too so clients written against either version work. */
  paymentMethod: string
  payment: InvoicePayment
}

export interface InvoiceProcessingEvent extends WebhookInvoiceEventBase {
  type: 'InvoiceProcessing'
  overPaid: boolean
}

export interface InvoiceSettledEvent extends WebhookInvoiceEventBase {
  type: 'InvoiceSettled'
  manuallyMarked: boolean
  overPaid: boolean
}

export interface InvoiceExpiredEvent extends WebhookInvoiceEventBase {
  type: 'InvoiceExpired'
  partiallyPaid: boolean
}

export interface InvoiceInvalidEvent extends WebhookInvoiceEventBase {
  type: 'InvoiceInvalid'
  manuallyMarked: boolean
}

export type InvoiceWebhookEvent =
  | InvoiceCreatedEvent
  | InvoiceReceivedPaymentEvent
  | InvoiceProcessingEvent
  | InvoiceSettledEvent
  | InvoiceExpiredEvent
  | InvoiceInvalidEvent

export interface WebhookData {
  id: string
  enabled: boolean
  automaticRedelivery: boolean
  url: string
  authorizedEvents: { everything: boolean; specificEvents: string[] }
}

export interface WebhookDataCreate extends WebhookData {
  secret: string
}

export type WebhookDeliveryStatus = 'Failed' | 'HttpError' | 'HttpSuccess'

export interface WebhookDeliveryData {
  id: string
  timestamp: number
  sentTimestamp: number | null
  httpCode: number | null
  errorMessage: string | null
  status: WebhookDeliveryStatus
}

/** Greenfield's error body for 401/403/404. */
export interface GreenfieldProblem {
  code: string
  message: string
}

/** Greenfield's 422 body is an array of these. */
export interface GreenfieldValidationError {
  path: string
  message: string
}
