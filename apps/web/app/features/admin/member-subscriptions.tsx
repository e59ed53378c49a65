import type { SubscriptionView } from '@edgeclub/shared'
import { day, providerLabel, words } from '../../components/ui/console'
import { planStateLines } from './member-summary'

/** Every subscription of the member, as the ledger has it: plan, how it was paid, status and period. */
export function MemberSubscriptions({ subscriptions }: { subscriptions: SubscriptionView[] }) {
  if (subscriptions.length === 0) return <p className="text-sm text-slate-300">None.</p>
  return (
    <ul className="divide-y divide-slate-800 text-sm">
      {subscriptions.map((s) => (
        <li key={s.id} className="flex flex-wrap justify-between gap-2 py-2 text-slate-200">
          <span>
            {s.planId.name} · {providerLabel(s.provider)}
          </span>
          <span>
            {words(s.status)}
            {s.cancelAtPeriodEnd && s.status === 'active' ? ' (ends at period end)' : ''} · {day(s.startDate)}{' '}
            → {s.endDate ? day(s.endDate) : 'lifetime'}
          </span>
          {planStateLines(s).length > 0 ? (
            <span className="w-full text-sky-200">{planStateLines(s).join(' · ')}</span>
          ) : null}
        </li>
      ))}
    </ul>
  )
}
