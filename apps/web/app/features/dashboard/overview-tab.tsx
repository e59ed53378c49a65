import { formatDay, formatMoney } from '@edgeclub/shared'
import { Link } from 'react-router'
import { Alert } from '../../components/ui/field'
import { PaymentStatusBadge, paymentTitle } from '../../components/ui/payment-status'
import { daysRemaining } from '../../lib/days-remaining'
import { usePaymentHistory } from '../../lib/payment-history-api'
import { isActive, useSubscriptionStatus } from '../../lib/subscription-status-api'
import { useSession } from '../../lib/use-session'
import { usePaymentSummary } from './overview-api'

/** Recent activity shows 3 items. */
const RECENT_ITEMS = 3

function Stat({ label, value, hint }: { label: string; value: string; hint?: string }) {
  return (
    <div className="rounded-2xl border border-slate-800 bg-slate-900/70 p-5">
      <p className="text-xs uppercase tracking-wide text-slate-400">{label}</p>
      <p className="mt-2 text-2xl font-bold text-white">{value}</p>
      {hint ? <p className="mt-1 text-xs text-slate-400">{hint}</p> : null}
    </div>
  )
}

/** The Overview tab: the member's summary, 3 recent items and total spent. */
export function OverviewTab() {
  const { user } = useSession()
  const status = useSubscriptionStatus()
  const history = usePaymentHistory()
  const summary = usePaymentSummary()
  const subscription = status.data?.activeSubscription
  const active = isActive(status.data)
  // Total spent sums completed payments, to 2 decimals (per currency when there are several).
  const totals = summary.data?.totals ?? []
  const totalSpent = totals.length
    ? totals.map((total) => formatMoney(total.amount, total.currency)).join(' · ')
    : formatMoney(0, 'USD')

  return (
    <div className="space-y-6">
      <p className="text-slate-300">
        Hello, <span className="font-semibold text-white">{user?.firstName || user?.email}</span>. Here is
        your membership at a glance.
      </p>
      <div className="grid gap-4 sm:grid-cols-3">
        <Stat
          label="Membership"
          value={active ? 'Active' : 'Inactive'}
          hint={subscription?.planId.name ? `${subscription.planId.name} plan` : 'No plan yet'}
        />
        <Stat
          label="Days remaining"
          value={
            subscription && !subscription.endDate && status.data?.hasAccess
              ? 'Lifetime'
              : String(daysRemaining(subscription?.endDate))
          }
        />
        <Stat
          label="Total spent"
          value={totalSpent}
          hint={`${summary.data?.completedCount ?? 0} completed payments`}
        />
      </div>
      {!active ? (
        <Alert tone="info">
          You have no active plan.{' '}
          <Link to="?tab=subscription" className="font-semibold underline">
            Choose a plan
          </Link>{' '}
          to unlock picks, signals and the Discord community.
        </Alert>
      ) : null}
      <section
        aria-labelledby="recent-heading"
        className="rounded-2xl border border-slate-800 bg-slate-900/70 p-6"
      >
        <h2 id="recent-heading" className="text-lg font-semibold text-white">
          Recent activity
        </h2>
        {history.isError ? <p className="mt-3 text-sm text-rose-300">{history.error.message}</p> : null}
        {history.data?.length === 0 ? <p className="mt-3 text-sm text-slate-300">Nothing yet.</p> : null}
        <ul className="mt-3 divide-y divide-slate-800">
          {(history.data ?? []).slice(0, RECENT_ITEMS).map((payment) => (
            <li key={payment._id} className="flex items-center justify-between gap-3 py-3">
              <div>
                <p className="text-sm font-medium text-white">{paymentTitle(payment)}</p>
                <p className="text-xs text-slate-400">{formatDay(payment.createdAt)}</p>
              </div>
              <div className="flex items-center gap-3">
                <span className="text-sm tabular-nums text-white">
                  {formatMoney(payment.amount, payment.currency)}
                </span>
                <PaymentStatusBadge status={payment.status} />
              </div>
            </li>
          ))}
        </ul>
      </section>
    </div>
  )
}
