import type { ErrorCode, FieldError } from '@edgeclub/shared'

const STATUS: Record<ErrorCode, number> = {
  VALIDATION_ERROR: 400,
  UNAUTHORIZED: 401,
  FORBIDDEN: 403,
  NOT_FOUND: 404,
  CONFLICT: 409,
  RATE_LIMITED: 429,
  PAYMENT_ERROR: 402,
  UPSTREAM_ERROR: 502,
  INTERNAL: 500,
}

/** An error whose message is safe to show the user; everything else becomes INTERNAL. */
export class AppError extends Error {
  override name = 'AppError'
  readonly statusCode: number

  constructor(
    readonly code: ErrorCode,
    message: string,
    options: { statusCode?: number; errors?: FieldError[]; headers?: Record<string, string> } = {},
  ) {
    super(message)
    this.statusCode = options.statusCode ?? STATUS[code]
    this.errors = options.errors
    this.headers = options.headers
  }

  readonly errors: FieldError[] | undefined
  readonly headers: Record<string, string> | undefined
}

export const badRequest = (message: string, errors?: FieldError[]) =>
  new AppError('VALIDATION_ERROR', message, { errors })
export const unauthorized = (message = 'Please sign in to continue') => new AppError('UNAUTHORIZED', message)
export const forbidden = (message = 'You do not have permission to do that') =>
  new AppError('FORBIDDEN', message)
export const notFound = (message = 'Not found') => new AppError('NOT_FOUND', message)
export const conflict = (message: string) => new AppError('CONFLICT', message)
export const rateLimited = (message: string, retryAfterSeconds?: number) =>
  new AppError('RATE_LIMITED', message, {
    headers: retryAfterSeconds ? { 'retry-after': String(Math.ceil(retryAfterSeconds)) } : undefined,
  })
export const upstreamError = (message: string) => new AppError('UPSTREAM_ERROR', message)
