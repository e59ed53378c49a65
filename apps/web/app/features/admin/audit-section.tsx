import { type AuditEntry, AuditPageSchema } from '@edgeclub/shared'
import { Link } from 'react-router'
import { moment } from '../../components/ui/console'
import { DataTable } from './data-table'
import { linkClasses, memberHref } from './member-links'

/** The details an admin wrote or chose (days, role, reason...), as short text. */
function detailsText(details: Record<string, unknown>): string {
  return Object.entries(details)
    .filter(([, value]) => value !== null && value !== undefined && value !== '')
    .map(([key, value]) => {
      const text = Array.isArray(value)
        ? value.join(', ')
        : typeof value === 'object'
          ? JSON.stringify(value)
          : String(value)
      return `${key}: ${text}`
    })
    .join(' · ')
}

export function AuditSection() {
  return (
    <DataTable<AuditEntry>
      title="Audit log"
      path="/admin/audit"
      schema={AuditPageSchema}
      searchLabel="Search action, admin or target"
      defaultSort="createdAt"
      columns={[
        { header: 'When', render: (e) => moment(e.createdAt) },
        { header: 'Admin', render: (e) => e.actor?.email ?? 'system' },
        { header: 'Action', render: (e) => <span className="font-mono text-xs">{e.action}</span> },
        {
          header: 'Target',
          render: (e) =>
            e.targetType === 'user' && e.targetId ? (
              <Link to={memberHref(e.targetId)} className={linkClasses}>
                member<span className="sr-only"> {e.targetId}</span>
              </Link>
            ) : (
              <span className="break-all">
                {e.targetType}
                {e.targetId ? <span className="block text-xs text-slate-400">{e.targetId}</span> : null}
              </span>
            ),
        },
        {
          header: 'Outcome',
          render: (e) => (
            <>
              <span className={e.outcome === 'success' ? 'text-emerald-300' : 'text-rose-300'}>
                {e.outcome}
              </span>
              {detailsText(e.details) ? (
                <span className="block text-xs text-slate-400">{detailsText(e.details)}</span>
              ) : null}
            </>
          ),
        },
      ]}
    />
  )
}
