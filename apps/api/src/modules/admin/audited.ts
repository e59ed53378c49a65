import type { FastifyRequest } from 'fastify'
import { AppError } from '../../lib/errors'
import type { Audit } from './audit'

/** Runs an admin action and writes its audit record, success or failure, with who, what and whom. */
export async function audited<T>(
  audit: Audit,
  request: FastifyRequest,
  action: { action: string; targetType: string; targetId: string | null; details?: Record<string, unknown> },
  work: () => Promise<T>,
): Promise<T> {
  const actor = request.auth ? { id: request.auth.user.id, email: request.auth.user.email } : null
  try {
    const result = await work()
    await audit.record({ ...action, actor, outcome: 'success' })
    return result
  } catch (error) {
    const reason = error instanceof AppError ? error.message : 'unexpected error'
    await audit.record({ ...action, actor, outcome: 'failure', details: { ...action.details, reason } })
    throw error
  }
}
