import type { FastifyRequest } from 'fastify'
import { AppError } from '../../lib/errors'
import { securityEvent } from '../../lib/security-log'
import type { Audit } from './audit'

/** Runs an admin action and writes its audit record, success or failure, with who, what and whom. */
export async function audited<T>(
  audit: Audit,
  request: FastifyRequest,
  action: {
    action: string
    targetType: string
    /** Known up front, or (for something the action creates) read from its result. */
    targetId: string | null | ((result: T) => string)
    details?: Record<string, unknown>
  },
  work: () => Promise<T>,
): Promise<T> {
  const actor = request.auth ? { id: request.auth.user.id, email: request.auth.user.email } : null
  const { targetId, ...rest } = action
  // The log line names the action and its target; the details stay in the audit log.
  const logLine = (outcome: 'success' | 'failure', target: string | null) =>
    securityEvent(request, 'admin.action', {
      userId: actor?.id ?? null,
      action: action.action,
      targetType: action.targetType,
      targetId: target,
      outcome,
    })
  try {
    const result = await work()
    const target = typeof targetId === 'function' ? targetId(result) : targetId
    await audit.record({ ...rest, targetId: target, actor, outcome: 'success' })
    logLine('success', target)
    return result
  } catch (error) {
    const reason = error instanceof AppError ? error.message : 'unexpected error'
    const target = typeof targetId === 'function' ? null : targetId
    await audit.record({
      ...rest,
      targetId: target,
      actor,
      outcome: 'failure',
      details: { ...action.details, reason },
    })
    logLine('failure', target)
    throw error
  }
}
