import { moment } from '../../components/ui/console'
import { Alert } from '../../components/ui/field'
import { useMemberHistory } from './members-api'

/** What admins did to this member, newest first (the audit log filtered to them). */
export function MemberHistory({ userId }: { userId: string }) {
  const history = useMemberHistory(userId)
  if (history.isPending) return <p className="text-sm text-slate-300">Loading...</p>
  if (history.isError) return <Alert tone="error">{history.error.message}</Alert>
  if (history.data.items.length === 0) return <p className="text-sm text-slate-300">No admin actions yet.</p>
  return (
    <ul className="divide-y divide-slate-800 text-sm">
      {history.data.items.map((entry) => (
        <li key={entry.id} className="flex flex-wrap justify-between gap-2 py-2 text-slate-200">
          <span>
            <span className="font-mono text-xs">{entry.action}</span> by {entry.actor?.email ?? 'system'}
            {entry.outcome === 'failure' ? <span className="text-rose-300"> (failed)</span> : null}
          </span>
          <span className="text-slate-400">{moment(entry.createdAt)}</span>
        </li>
      ))}
    </ul>
  )
}
