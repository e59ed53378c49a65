import {
  API_BASE,
  type ApiEnvelope,
  type ErrorCode,
  type FieldError,
  messages,
  type Tokens,
} from '@edgeclub/shared'
import type { Contract } from './contract'
import { ContractDriftError, checkContract } from './contract-check'
import { earlyOr } from './dashboard-boot'
import { session } from './session-store'

/**
 * The API client. Every call resolves to the envelope; failures become
 * { success: false, error: text } and are stored as the session's current error. The one exception
 * is an answer that does not match its schema outside a production build (lib/contract-check.ts).
 */

export interface ApiResult<T> {
  success: boolean
  data?: T
  message?: string
  /** The error text shown to the member. */
  error?: string
  /** The server's machine code and field errors, when it answered. */
  code?: ErrorCode
  errors?: FieldError[]
  status?: number
}

export interface RequestOptions<T = unknown> {
  method?: 'GET' | 'POST' | 'PUT' | 'DELETE'
  body?: unknown
  /** Send the bearer token (every call but the public ones). */
  auth?: boolean
  signal?: AbortSignal
  /** The shared schema of the envelope's `data`, or its name: a successful answer is checked with it (checkAnswer). */
  schema?: Contract<T>
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

/**
 * checkContract for a schema at hand, or by a named one (lib/contract.ts), which loads its schema and
 * decides when to check: the public pages never name one, so none of that comes into their bundle.
 */
export function checkAnswer<T>(request: string, contract: Contract<T>, data: unknown): Promise<T> {
  return 'contract' in contract
    ? contract.check(request, data)
    : Promise.resolve(checkContract(request, contract, data))
}

function send(path: string, options: RequestOptions<unknown>): Promise<Response> {
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
      // Checked by hand: a refresh can happen on a public page, which loads no schemas.
      const body = (await response.json()) as ApiEnvelope<Tokens>
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

async function fetchWithRefresh(path: string, options: RequestOptions<unknown>): Promise<Response> {
  // A GET the dashboard page's boot script asked for before this code had arrived
  // (lib/dashboard-boot.ts) is answered by that request, once; a failed one is sent again.
  const ask = () => send(path, options)
  const response = await ((options.method ?? 'GET') === 'GET'
    ? earlyOr(path, session.getState().token, ask)
    : ask())
  if (response.status !== 401 || options.auth === false || !session.getState().refreshToken) return response
  return (await refreshAccessToken()) ? send(path, options) : response
}

/**
 * One API call. With `schema`, a successful answer's data is checked (checkAnswer); without it
 * (the public pages, which load no schemas) the data is the caller's to check.
 */
export async function apiRequest<T = unknown>(
  path: string,
  options: RequestOptions<T> = {},
): Promise<ApiResult<T>> {
  try {
    const response = await fetchWithRefresh(path, options)
    const body = (await response.json().catch(() => undefined)) as ApiEnvelope<unknown> | undefined
    if (!response.ok) {
      throw new ApiRequestError(
        body?.message || messages.api.requestFailed,
        response.status,
        body?.error as ErrorCode | undefined,
        body?.errors,
      )
    }
    const data = options.schema
      ? await checkAnswer(`${options.method ?? 'GET'} ${path}`, options.schema, body?.data)
      : (body?.data as T | undefined)
    return { success: true, ...body, data, status: response.status }
  } catch (error) {
    if (error instanceof DOMException && error.name === 'AbortError') throw error
    if (error instanceof ContractDriftError) throw error
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

/** GET `path`, checked with its schema: the data, or an Error with the server's message. */
export async function fetchData<T>(path: string, schema: Contract<T>): Promise<T> {
  const result = await apiRequest(path, { schema })
  if (!result.success || result.data === undefined) throw new Error(result.error ?? 'Could not load')
  return result.data
}

/** An admin action, its answer checked with the route's schema: resolves to the server's message, or throws it. */
export async function act<T>(
  path: string,
  method: 'POST' | 'PUT' | 'DELETE',
  schema: Contract<T>,
  body?: unknown,
): Promise<{ message: string; data: T }> {
  const result = await apiRequest(path, { method, body, schema })
  if (!result.success)
    throw Object.assign(new Error(result.error ?? 'The action failed'), { errors: result.errors })
  return { message: result.message ?? 'Done', data: result.data as T }
}
