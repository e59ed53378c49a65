import { API_BASE, type ApiEnvelope, type ErrorCode, type FieldError, messages } from '@edgeclub/shared'
import { session } from './session-store'

/**
 * The API client of SPEC §7–§8. Every call resolves to the envelope; failures become
 * { success: false, error: text } and are stored as the session's current error.
 */

export interface ApiResult<T> {
  success: boolean
  data?: T
  message?: string
  /** The error text (SPEC §8). */
  error?: string
  /** The server's machine code and field errors, when it answered. */
  code?: ErrorCode
  errors?: FieldError[]
  status?: number
}

export interface RequestOptions {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE'
  body?: unknown
  /** Send the bearer token (SPEC §6: everything but the public calls). */
  auth?: boolean
  signal?: AbortSignal
}

class ApiRequestError extends Error {
  constructor(
    message: string,
    readonly status: number,
    readonly code?: ErrorCode,
    readonly errors?: FieldError[],
  ) {
    super(message)
  }
}

function send(path: string, options: RequestOptions): Promise<Response> {
  const headers: Record<string, string> = { accept: 'application/json' }
  if (options.body !== undefined) headers['content-type'] = 'application/json'
  const token = session.getState().token
  if (options.auth !== false && token) headers.authorization = `Bearer ${token}`
  return fetch(`${API_BASE}${path}`, {
    method: options.method ?? 'GET',
    headers,
    body: options.body === undefined ? undefined : JSON.stringify(options.body),
    signal: options.signal,
  })
}

let refreshing: Promise<boolean> | undefined

/** One refresh at a time however many calls hit a 401 together; a failed refresh logs out. */
export function refreshAccessToken(): Promise<boolean> {
  refreshing ??= (async () => {
    const refreshToken = session.getState().refreshToken
    if (!refreshToken) return false
    try {
      const response = await send('/auth/refresh-token', {
        method: 'POST',
        body: { refreshToken },
        auth: false,
      })
      const body = (await response.json()) as ApiEnvelope<{ accessToken: string; refreshToken?: string }>
      if (!response.ok || !body.data?.accessToken) throw new Error(body.message ?? 'refresh failed')
      session.setTokens(body.data)
      return true
    } catch {
      session.clear()
      return false
    }
  })().finally(() => {
    refreshing = undefined
  })
  return refreshing
}

async function fetchWithRefresh(path: string, options: RequestOptions): Promise<Response> {
  const response = await send(path, options)
  if (response.status !== 401 || options.auth === false || !session.getState().refreshToken) return response
  return (await refreshAccessToken()) ? send(path, options) : response
}

export async function apiRequest<T>(path: string, options: RequestOptions = {}): Promise<ApiResult<T>> {
  try {
    const response = await fetchWithRefresh(path, options)
    const body = (await response.json().catch(() => undefined)) as ApiEnvelope<T> | undefined
    if (!response.ok) {
      throw new ApiRequestError(
        body?.message || messages.api.requestFailed,
        response.status,
        body?.error as ErrorCode | undefined,
        body?.errors,
      )
    }
    return { success: true, ...body, status: response.status }
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error
    const message = error instanceof Error && error.message ? error.message : messages.api.unknownError
    const failure = error instanceof ApiRequestError ? error : undefined
    session.setError({ code: 'API_ERROR', message, serverCode: failure?.code })
    return {
      success: false,
      error: message,
      message,
      code: failure?.code,
      errors: failure?.errors,
      status: failure?.status,
    }
  }
}
