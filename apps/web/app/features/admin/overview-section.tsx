import type { Analytics } from '@edgeclub/shared'
import { formatDate, formatMonth } from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Button } from '../../components/ui/button'
import { money } from '../../components/ui/console'
import { Alert } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import { runReconciliation, useAnalytics, useReconciliationIssues } from './admin-api'
import { RevenueLevers } from './revenue-levers'

function Stat({ label, value }: { label: string; value: string }) {
  return (
    <div className="rounded-2xl border border-slate-800 bg-slate-900/70 p-4">
      <dt className="text-xs uppercase tracking-wide text-slate-400">{label}</dt>
      <dd className="mt-1 text-2xl font-bold text-white">{value}</dd>
    </div>
  )
}

const monthName = (month: string, style: 'short' | 'long' = 'short') =>
  style === 'long'
    ? formatMonth(month)
    : formatDate(`${month}-01T00:00:00Z`, { month: 'short', timeZone: 'UTC' })

/** Revenue per month as bars (no chart library), with the same figures as a table for screen readers. */
function RevenueChart({ data, currency }: { data: Analytics['revenueByMonth']; currency: string }) {
  const best = Math.max(0, ...data.map((row) => row.amount))
  const max = Math.max(1, best)
  const total = data.reduce((sum, row) => sum + row.amount, 0)
  // Bars stretch to the panel's width (preserveAspectRatio none); month names are HTML, so they stay
  // readable from a phone to a wide screen.
  const slot = 10
  return (
    <figure className="space-y-3">
      <p className="text-sm text-slate-300">
        {money(total, currency)} in 12 months · best month {money(best, currency)}
      </p>
      <div className="border-b border-slate-700">
        <svg
          viewBox={`0 0 ${data.length * slot} 100`}
          preserveAspectRatio="none"
          className="block h-40 w-full sm:h-56"
          role="img"
          aria-label={`Revenue per month, last 12 months: ${money(total, currency)} in total`}
        >
          {data.map((row, index) => {
            const h = row.amount > 0 ? Math.max(1, (row.amount / max) * 96) : 0
            return (
              <rect
                key={row.month}
                x={index * slot + 1.5}
                y={100 - h}
                width={slot - 3}
                height={h}
                className="fill-emerald-400"
              >
                <title>{`${monthName(row.month, 'long')}: ${money(row.amount, currency)}`}</title>
              </rect>
            )
          })}
        </svg>
      </div>
      <ol aria-hidden="true" className="grid grid-cols-12 text-center text-[11px] text-slate-400 sm:text-xs">
        {data.map((row) => (
          <li key={row.month}>{monthName(row.month)}</li>
        ))}
      </ol>
      <figcaption className="sr-only">
        <table>
          <caption>Revenue per month</caption>
          <thead>
            <tr>
              <th scope="col">Month</th>
              <th scope="col">Revenue</th>
            </tr>
          </thead>
          <tbody>
            {data.map((row) => (
              <tr key={row.month}>
                <th scope="row">{monthName(row.month, 'long')}</th>
                <td>{money(row.amount, currency)}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </figcaption>
    </figure>
  )
}

/**
 * What the hourly reconciliation found paid at Stripe or BTCPay that it could not match to a member's
 * payment: an operator has to look at each (it is in the audit log too). "Check now" runs it at once.
 */
function ReconciliationPanel() {
  const issues = useReconciliationIssues()
  const queryClient = useQueryClient()
  const [checking, setChecking] = useState(false)
  const [outcome, setOutcome] = useState<{ tone: 'success' | 'error'; text: string } | null>(null)
  const check = async () => {
    setChecking(true)
    setOutcome(null)
    const result = await runReconciliation()
    setChecking(false)
    setOutcome(
      result.success
        ? { tone: 'success', text: result.message ?? 'Checked' }
        : { tone: 'error', text: result.error ?? 'The check failed' },
    )
    await queryClient.invalidateQueries({ queryKey: ['admin'] })
  }
  const open = issues.data?.issues ?? []
  return (
    <Panel title="Payments to check">
      <div className="flex flex-wrap items-center justify-between gap-3">
        <p className="text-sm text-slate-300">
          {open.length === 0
            ? 'Everything Stripe and BTCPay hold as paid is in the ledger.'
            : 'Paid at the processor, but not matched to a member: look each one up there and settle it by hand.'}
        </p>
        <Button type="button" variant="secondary" onClick={check} disabled={checking}>
          {checking ? 'Checking...' : 'Check now'}
        </Button>
      </div>
      {outcome ? (
        <div className="mt-3">
          <Alert tone={outcome.tone}>{outcome.text}</Alert>
        </div>
      ) : null}
      {issues.isError ? <Alert tone="error">{issues.error.message}</Alert> : null}
      {open.length > 0 ? (
        <ul className="mt-3 space-y-2 text-sm">
          {open.map((issue) => (
            <li
              key={issue.id}
              className="rounded-xl border border-amber-400/30 bg-amber-400/10 p-3 text-amber-100"
            >
              <p className="font-semibold">
                {issue.rail === 'card' ? 'Stripe' : 'BTCPay'} {issue.kind} {issue.objectId}
                {issue.amount !== null && issue.currency ? ` · ${money(issue.amount, issue.currency)}` : ''}
              </p>
              <p>{issue.detail}</p>
              <p className="text-xs text-amber-200/80">
                First seen {new Date(issue.firstSeenAt).toUTCString()}
              </p>
            </li>
          ))}
        </ul>
      ) : null}
    </Panel>
  )
}

export function OverviewSection() {
  const analytics = useAnalytics()
  if (analytics.isPending) return <p className="text-slate-300">Loading analytics...</p>
  if (analytics.isError) return <Alert tone="error">{analytics.error.message}</Alert>
  const a = analytics.data
  return (
    <div className="space-y-6">
      <ReconciliationPanel />
      <dl className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
        <Stat label="Active members" value={String(a.activeMembers)} />
        <Stat label="MRR" value={money(a.mrr, a.currency)} />
        <Stat label="New members (30 days)" value={String(a.newMembers30d)} />
        <Stat
          label="Churn (30 days)"
          value={`${(a.churnRate * 100).toFixed(1)}% · ${a.cancellations30d} cancelled`}
        />
      </dl>
      <Panel title="Revenue, last 12 months">
        <RevenueChart data={a.revenueByMonth} currency={a.currency} />
      </Panel>
      <RevenueLevers analytics={a} />
      <div className="grid gap-6 lg:grid-cols-2">
        <Panel title="Plan mix">
          {a.planMix.length === 0 ? (
            <p className="text-sm text-slate-300">No active members yet.</p>
          ) : (
            <ul className="space-y-2 text-sm">
              {a.planMix.map((row) => (
                <li key={row.planId} className="flex justify-between text-slate-200">
                  <span>{row.name}</span>
                  <span className="font-semibold">
                    {row.members}
                    <span className="font-normal text-slate-400">
                      {' '}
                      ({a.activeMembers > 0 ? Math.round((row.members / a.activeMembers) * 100) : 0}%)
                    </span>
                  </span>
                </li>
              ))}
            </ul>
          )}
        </Panel>
        <Panel title="Tips">
          {a.tips.length === 0 ? (
            <p className="text-sm text-slate-300">No tips yet.</p>
          ) : (
            <ul className="space-y-2 text-sm">
              {a.tips.map((row) => (
                <li key={row.currency} className="flex justify-between text-slate-200">
                  <span>{row.count} tips</span>
                  <span className="font-semibold">{money(row.amount, row.currency)}</span>
                </li>
              ))}
            </ul>
          )}
        </Panel>
      </div>
    </div>
  )
}
