/**
 * Calls to the emulator's /v1 API the way Stripe.js calls Stripe's: a form body with the
 * publishable key as `key`, and no custom headers, so the browser sends a "simple" CORS request.
 */

/** A Stripe error as Stripe.js hands it to the page (`card_error`, `validation_error`, ...). */
export interface StripeJsError {
  type: string
  code?: string
  decline_code?: string
  message?: string
  [field: string]: unknown
}

export type ApiAnswer<T> = { body: T; error?: undefined } | { error: StripeJsError; body?: undefined }

/** Stripe's bracket syntax: `{a: {b: 1}, c: [2]}` → `a[b]=1&c[]=2`. */
function encodeForm(value: unknown, prefix: string, pairs: string[] = []): string[] {
  if (value === undefined || value === null) return pairs
  if (Array.isArray(value)) {
    for (const item of value) encodeForm(item, `${prefix}[]`, pairs)
  } else if (typeof value === 'object') {
    for (const [key, inner] of Object.entries(value))
      encodeForm(inner, prefix ? `${prefix}[${key}]` : key, pairs)
  } else {
    pairs.push(`${encodeURIComponent(prefix)}=${encodeURIComponent(String(value))}`)
  }
  return pairs
}

export type ApiCall = <T>(
  method: 'GET' | 'POST',
  path: string,
  params: Record<string, unknown>,
) => Promise<ApiAnswer<T>>

export function emulatorApi(apiBase: string, key: string): ApiCall {
  return async <T>(method: 'GET' | 'POST', path: string, params: Record<string, unknown>) => {
    const body = encodeForm({ ...params, key }, '').join('&')
    const url = method === 'GET' ? `${apiBase}${path}?${body}` : `${apiBase}${path}`
    let response: Response
    try {
      response = await fetch(url, {
        method,
        headers: method === 'GET' ? {} : { 'content-type': 'application/x-www-form-urlencoded' },
        body: method === 'GET' ? undefined : body,
      })
    } catch (cause) {
      return {
        error: {
          type: 'api_connection_error',
          message: `Could not reach the Stripe emulator at ${apiBase}: ${cause instanceof Error ? cause.message : String(cause)}`,
        },
      }
    }
    let json: unknown
    try {
      json = await response.json()
    } catch {
      return {
        error: {
          type: 'api_error',
          message: `The Stripe emulator answered ${response.status} without JSON.`,
        },
      }
    }
    if (!response.ok) {
      const error = (json as { error?: StripeJsError } | null)?.error
      return { error: error ?? { type: 'api_error', message: `HTTP ${response.status}` } }
    }
    return { body: json as T }
  }
}
