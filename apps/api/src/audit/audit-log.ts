import type { AuditPage } from '@edgeclub/shared'
import type { Kysely, Transaction } from 'kysely'
import { sql } from 'kysely'
import type { DB } from '../db/types'
import { countRows, pages, totalOf } from '../lib/pagination'

export interface AuditEntry {
  actor: { id: string; email: string } | null
  action: string
  targetType: string
  targetId: string | null
  outcome: 'success' | 'failure'
  details?: Record<string, unknown>
}

/**
 * The audit log: every admin action, readable at GET /admin/audit. Routes declare what they audit
 * (plugins/audit.ts), and the row is written in the action's own transaction.
 */
export function createAuditLog(db: Kysely<DB>) {
  return {
    /** With `trx`, the row commits with the action it records, or not at all. */
    async record(entry: AuditEntry, trx: Kysely<DB> | Transaction<DB> = db): Promise<void> {
      await trx
        .insertInto('audit_log')
        .values({
          actor_id: entry.actor?.id ?? null,
          actor_email: entry.actor?.email ?? null,
          action: entry.action,
          target_type: entry.targetType,
          target_id: entry.targetId,
          outcome: entry.outcome,
          details: JSON.stringify(entry.details ?? {}),
        })
        .execute()
    },

    async list(query: {
      page: number
      limit: number
      search?: string
      targetId?: string
    }): Promise<AuditPage> {
      let base = db.selectFrom('audit_log')
      if (query.targetId) base = base.where('target_id', '=', query.targetId)
      if (query.search) {
        const term = `%${query.search.toLowerCase()}%`
        base = base.where((eb) =>
          eb.or([
            eb(sql`lower(action)`, 'like', term),
            eb(sql`lower(coalesce(actor_email, ''))`, 'like', term),
            eb(sql`lower(coalesce(target_id, ''))`, 'like', term),
          ]),
        )
      }
      // The page's ids from the (created_at, id) index alone, then only its rows: deep pages stay cheap.
      const pageIds = base
        .select('id')
        .orderBy('created_at', 'desc')
        .orderBy('id', 'desc')
        .limit(query.limit)
        .offset((query.page - 1) * query.limit)
      const rows = await db
        .selectFrom(pageIds.as('page'))
        .innerJoin('audit_log', 'audit_log.id', 'page.id')
        .selectAll('audit_log')
        .orderBy('audit_log.created_at', 'desc')
        .orderBy('audit_log.id', 'desc')
        .execute()
      const total = await totalOf(query.page, query.limit, rows.length, () => countRows(base))
      return {
        items: rows.map((row) => ({
          id: row.id,
          actor: row.actor_id ? { id: row.actor_id, email: row.actor_email ?? '' } : null,
          action: row.action,
          targetType: row.target_type,
          targetId: row.target_id,
          outcome: row.outcome,
          details: row.details,
          createdAt: new Date(row.created_at).toISOString(),
        })),
        pagination: pages(query.page, query.limit, total),
      }
    },
  }
}
export type AuditLog = ReturnType<typeof createAuditLog>
