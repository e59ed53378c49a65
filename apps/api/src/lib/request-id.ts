import { randomUUID } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/

/**
 * A request's id: the caller's X-Request-Id when it is a plain token (a proxy's id carries on through
 * our logs), otherwise a new UUID, so a malformed value is replaced instead of echoed. Every answer
 * sends it back (plugins/security.ts, lib/hot-lane.ts).
 */
export function requestId(headers: IncomingHttpHeaders): string {
  const incoming = headers['x-request-id']
  return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
}
