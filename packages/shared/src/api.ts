/** DESIGN §4: the machine-readable error codes every error response carries. */
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

/** A user as the API returns it and the browser stores it (never a hash or token). */
export interface PublicUser {
  id: string
  _id: string
  email: string
  firstName: string
  lastName: string
  discordUsername: string
  role: 'member' | 'admin'
  tradingInterests: string | null
  emailUpdates: boolean
  createdAt: string
}
