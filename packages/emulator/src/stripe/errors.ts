/**
 * Stripe's error body and status codes. Handlers throw these; the API layer renders
 * `{ error: {...} }` with the status, so the SDK raises the same error classes it would in production.
 */

export type StripeErrorType =
  | 'api_error'
  | 'card_error'
  | 'idempotency_error'
  | 'invalid_request_error'
  | 'rate_limit_error'

export interface StripeErrorBody {
  type: StripeErrorType
  message: string
  code?: string
  decline_code?: string
  param?: string
  doc_url?: string
  [extra: string]: unknown
}

export class StripeApiError extends Error {
  constructor(
    readonly status: number,
    readonly body: StripeErrorBody,
  ) {
    super(body.message)
  }
}

function docUrl(code: string): string {
  return `https://stripe.com/docs/error-codes/${code.replaceAll('_', '-')}`
}

export function invalidRequest(
  message: string,
  options: { param?: string; code?: string; status?: number } = {},
) {
  const body: StripeErrorBody = { type: 'invalid_request_error', message }
  if (options.code) {
    body.code = options.code
    body.doc_url = docUrl(options.code)
  }
  if (options.param) body.param = options.param
  return new StripeApiError(options.status ?? 400, body)
}

export function missingParam(param: string) {
  return invalidRequest(`Missing required param: ${param}.`, { param, code: 'parameter_missing' })
}

export function unknownParam(param: string) {
  return invalidRequest(
    `Received unknown parameter: ${param}. (The EdgeClub Stripe emulator does not accept this parameter; see packages/emulator/src/stripe/README.md.)`,
    { param, code: 'parameter_unknown' },
  )
}

/** 404 when the id is in the path, 400 when it came in as a parameter: the same split Stripe makes. */
export function noSuch(kind: string, id: string, param = 'id') {
  return invalidRequest(`No such ${kind}: '${id}'`, {
    param,
    code: 'resource_missing',
    status: param === 'id' ? 404 : 400,
  })
}

export function unexpectedState(message: string) {
  return invalidRequest(message, { code: 'payment_intent_unexpected_state' })
}
