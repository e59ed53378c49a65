import { createHmac } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'

/**
 * Security events: one structured log line each, written with the request's own logger so the
 * line carries the request id (reqId), plus the client's address. Operators search them by
 * `event`. A line names a user by id; it never holds a password, a token, a link or a whole email.
 */
export type SecurityEventName =
  | 'auth.login.succeeded'
  | 'auth.login.failed'
  | 'auth.lockout'
  | 'auth.refresh.reused'
  | 'auth.reset.requested'
  | 'auth.reset.completed'
  | 'access.forbidden'
  | 'admin.action'
  | 'webhook.signature.invalid'

/** Where a request came from, as security events record it. */
export interface RequestOrigin {
  /** The client address (follows TRUST_PROXY). */
  ip: string
  /** The request's logger: its lines carry the request id. */
  log: FastifyBaseLogger
}

const WARNINGS = new Set<SecurityEventName>([
  'auth.login.failed',
  'auth.lockout',
  'auth.refresh.reused',
  'access.forbidden',
  'webhook.signature.invalid',
])

export function securityEvent(
  origin: RequestOrigin,
  event: SecurityEventName,
  fields: Record<string, string | number | boolean | null | undefined> = {},
): void {
  const line = { event, ip: origin.ip, ...fields }
  if (WARNINGS.has(event)) origin.log.warn(line, `security event ${event}`)
  else origin.log.info(line, `security event ${event}`)
}

/**
 * An email address as security events may name it when no account is known: its domain, and a keyed
 * hash that lets an operator see repeated attempts on one address (and check a given address) without
 * the log holding the address itself.
 */
export function emailReference(secret: string, normalizedEmail: string) {
  const at = normalizedEmail.lastIndexOf('@')
  return {
    emailDomain: at === -1 ? null : normalizedEmail.slice(at + 1),
    emailHash: createHmac('sha256', secret).update(`log-email:${normalizedEmail}`).digest('hex').slice(0, 16),
  }
}
