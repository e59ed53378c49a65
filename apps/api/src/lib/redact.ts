/** Query parameters whose values must never reach a log line. */
const SECRET_PARAMS = new Set([
  'token',
  'access_token',
  'refresh_token',
  'code',
  'state',
  'key',
  'secret',
  'password',
])

/** The URL as it may be logged: secret query values masked. */
export function redactUrl(url: string): string {
  const index = url.indexOf('?')
  if (index === -1) return url
  const params = new URLSearchParams(url.slice(index + 1))
  let changed = false
  for (const name of [...params.keys()]) {
    if (SECRET_PARAMS.has(name.toLowerCase())) {
      params.set(name, '[redacted]')
      changed = true
    }
  }
  return changed ? `${url.slice(0, index)}?${params.toString()}` : url
}

/** pino redact paths: headers and body fields that carry credentials, wherever they are logged. */
export const LOG_REDACT_PATHS = [
  'req.headers.authorization',
  'req.headers.cookie',
  'req.headers["stripe-signature"]',
  'req.headers["btcpay-sig"]',
  'res.headers["set-cookie"]',
  '*.password',
  '*.currentPassword',
  '*.newPassword',
  '*.token',
  '*.accessToken',
  '*.access_token',
  '*.refreshToken',
  '*.secret',
  '*.clientSecret',
  '*.authorization',
]
