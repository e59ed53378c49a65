import type {
  FastifyInstance,
  FastifyReply,
  FastifyRequest,
  HookHandlerDoneFunction,
  RouteOptions,
} from 'fastify'
import fp from 'fastify-plugin'
import type { AuditLog } from '../audit/audit-log'
import { type AuditScope, auditScopes } from '../audit/audit-scope'
import { type CommitHook, onNextCommit, takeBackCommitHook, withCommitScope } from '../db/transaction'
import { AppError } from '../lib/errors'
import { securityEvent } from '../lib/security-log'

/**
 * What a route audits, declared in its options (`config: { audit: {...} }`) and read by the one hook
 * below: no route writes its own audit row.
 */
export interface AuditSpec {
  /** "plan.update"; or from the request (enable vs disable). */
  action: string | ((request: FastifyRequest) => string)
  targetType: string
  /** The target's id: the route's `:id` by default; a function for anything else (null: none). */
  target?: (request: FastifyRequest) => string | null
  details?: (request: FastifyRequest) => Record<string, unknown>
}

declare module 'fastify' {
  interface FastifyContextConfig {
    audit?: AuditSpec
  }
}

/** The body as an object, for `details` (validated by the route's schema before the hook runs). */
export const bodyOf = (request: FastifyRequest) => (request.body ?? {}) as Record<string, unknown>

/**
 * Every audited route's record, success or failure, with who, what and whom; and its `admin.action`
 * security line. A success is written inside the first transaction the action commits, so the action
 * and its record commit together (db/transaction.ts); an action that commits no transaction of its own
 * (a Discord call) is recorded once it answered. A failure is recorded on its own: nothing of it committed.
 *
 * The hooks are the audited routes' own (added as each is declared, ahead of its other hooks), so the
 * many requests of routes that audit nothing never run them.
 */
export default fp(
  async (app: FastifyInstance, options: { log: AuditLog }) => {
    const held = new WeakMap<FastifyRequest, { scope: AuditScope; hook: CommitHook }>()

    const begin =
      (spec: AuditSpec) => (request: FastifyRequest, _reply: FastifyReply, done: HookHandlerDoneFunction) => {
        const params = request.params as { id?: unknown }
        const scope: AuditScope = {
          entry: {
            actor: request.auth ? { id: request.auth.user.id, email: request.auth.user.email } : null,
            action: typeof spec.action === 'function' ? spec.action(request) : spec.action,
            targetType: spec.targetType,
            targetId: spec.target ? spec.target(request) : typeof params.id === 'string' ? params.id : null,
            details: spec.details?.(request) ?? {},
          },
          written: false,
        }
        const hook: CommitHook = async (trx) => {
          await options.log.record({ ...scope.entry, outcome: 'success' }, trx)
          scope.written = true
        }
        held.set(request, { scope, hook })
        // The handler runs inside both scopes: its transactions find the pending row, and setAuditTarget its entry.
        withCommitScope(() => {
          onNextCommit(hook)
          auditScopes.run(scope, done)
        })
      }

    const failed = async (request: FastifyRequest, _reply: FastifyReply, error: Error) => {
      const audited = held.get(request)
      if (audited) audited.scope.error = error
    }

    const finish = async (request: FastifyRequest, reply: FastifyReply, payload: unknown) => {
      const audited = held.get(request)
      if (!audited) return payload
      held.delete(request)
      const { scope, hook } = audited
      takeBackCommitHook(hook)
      const outcome = reply.statusCode < 400 ? 'success' : 'failure'
      if (outcome === 'failure') {
        const reason = scope.error instanceof AppError ? scope.error.message : 'unexpected error'
        scope.entry.details = { ...scope.entry.details, reason }
      }
      // A failure after the action committed part of its work is recorded beside that part's row.
      if (!scope.written || outcome === 'failure') await options.log.record({ ...scope.entry, outcome })
      // The log line names the action and its target; the details stay in the audit log.
      securityEvent(request, 'admin.action', {
        userId: scope.entry.actor?.id ?? null,
        action: scope.entry.action,
        targetType: scope.entry.targetType,
        targetId: scope.entry.targetId,
        outcome,
      })
      return payload
    }

    app.addHook('onRoute', (route) => {
      const spec = route.config?.audit
      if (!spec) return
      prepend(route, 'preHandler', begin(spec))
      prepend(route, 'onError', failed)
      prepend(route, 'onSend', finish)
    })
  },
  { name: 'audit', dependencies: ['auth'] },
)

/** A route's hook run before the ones it declares itself. */
function prepend(route: RouteOptions, name: 'preHandler' | 'onError' | 'onSend', hook: unknown): void {
  const own = route[name] as unknown
  ;(route as unknown as Record<string, unknown[]>)[name] = [hook, ...(own === undefined ? [] : [own].flat())]
}
