/** The machine-readable error codes every error response carries. */
export const ERROR_CODES = [
  'VALIDATION_ERROR',
  'UNAUTHORIZED',
  'FORBIDDEN',
  'NOT_FOUND',
  'CONFLICT',
  'RATE_LIMITED',
  'PAYMENT_ERROR',
  'UPSTREAM_ERROR',
  'INTERNAL',
] as const
export type ErrorCode = (typeof ERROR_CODES)[number]

export interface FieldError {
  field: string
  message: string
}

/** Every JSON response of the API has this shape. */
export interface ApiEnvelope<T> {
  success: boolean
  data?: T
  message?: string
  error?: string
  errors?: FieldError[]
  requestId?: string
}
