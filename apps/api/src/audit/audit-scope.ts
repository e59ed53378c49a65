import { AsyncLocalStorage } from 'node:async_hooks'
import type { AuditEntry } from './audit-log'

/** The audit record of the admin request being served (plugins/audit.ts opens it). */
export interface AuditScope {
  entry: Omit<AuditEntry, 'outcome'>
  /** The success row committed with the action's transaction. */
  written: boolean
  error?: unknown
}

export const auditScopes = new AsyncLocalStorage<AuditScope>()

/**
 * For an action that creates what it audits: names the new target before the action's transaction
 * commits (the route could not know its id up front). Does nothing outside an audited request.
 */
export function setAuditTarget(id: string): void {
  const scope = auditScopes.getStore()
  if (scope) scope.entry.targetId = id
}
