import type { Analytics } from '@edgeclub/shared'
import { formatMonth } from '@edgeclub/shared'
import { money } from '../../components/ui/console'
import { Panel } from '../../components/ui/panel'

/** '42.5%', or '—' when no trial ended (nothing to divide by). */
export const rateText = (rate: number | null) => (rate === null ? '—' : `${Number((rate * 100).toFixed(1))}%`)

/** The month's MRR movements as signed rows: what was lost reads with a minus sign. */
export function movementRows(movements: Analytics['mrrMovements'], currency: string) {
  const signed = (amount: number, sign: 1 | -1) =>
    amount === 0 ? money(0, currency) : `${sign < 0 ? '−' : '+'}${money(amount, currency)}`
  return [
    { label: 'New', value: signed(movements.new, 1) },
    { label: 'Expansion (upgrades)', value: signed(movements.expansion, 1) },
    { label: 'Contraction (downgrades)', value: signed(movements.contraction, -1) },
    { label: 'Churned', value: signed(movements.churned, -1) },
    { label: 'Reactivated', value: signed(movements.reactivated, 1) },
    {
      label: 'Net change',
      value: signed(Math.abs(movements.net), movements.net < 0 ? -1 : 1),
    },
  ]
}

const cell = 'py-2 pr-3'

/**
 * The owner's revenue levers on the overview: free trials and how many paid, the month's MRR
 * movements, promo code redemptions and why members cancelled. Plain tables, for every reader.
 */
export function RevenueLevers({ analytics: a }: { analytics: Analytics }) {
  const trials = a.trials
  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Panel title="Free trials (30 days)">
        <dl className="grid grid-cols-2 gap-4 text-sm sm:grid-cols-4">
          {[
            ['Trials started', String(trials.started30d)],
            ['Trials ended', String(trials.ended30d)],
            ['Converted to paid', String(trials.converted30d)],
            ['Trial → paid', rateText(trials.conversionRate)],
          ].map(([label, value]) => (
            <div key={label}>
              <dt className="text-slate-400">{label}</dt>
              <dd className="mt-1 text-xl font-bold text-white">{value}</dd>
            </div>
          ))}
        </dl>
      </Panel>
      <Panel title={`MRR movements, ${formatMonth(a.mrrMovements.month)}`}>
        <table className="w-full text-left text-sm">
          <caption className="sr-only">
            Monthly recurring revenue gained and lost in {formatMonth(a.mrrMovements.month)}
          </caption>
          <thead className="text-slate-400">
            <tr>
              <th scope="col" className={`${cell} font-medium`}>
                Movement
              </th>
              <th scope="col" className="py-2 text-right font-medium">
                Amount
              </th>
            </tr>
          </thead>
          <tbody className="divide-y divide-slate-800 text-slate-200">
            {movementRows(a.mrrMovements, a.currency).map((row) => (
              <tr key={row.label} className={row.label === 'Net change' ? 'font-semibold text-white' : ''}>
                <th scope="row" className={`${cell} font-normal`}>
                  {row.label}
                </th>
                <td className="py-2 text-right">{row.value}</td>
              </tr>
            ))}
          </tbody>
        </table>
      </Panel>
      <Panel title="Code redemptions (30 days)">
        {a.promoRedemptions.length === 0 ? (
          <p className="text-sm text-slate-300">No promo code was redeemed in the last 30 days.</p>
        ) : (
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Promo code redemptions in the last 30 days</caption>
            <thead className="text-slate-400">
              <tr>
                <th scope="col" className={`${cell} font-medium`}>
                  Code
                </th>
                <th scope="col" className="py-2 text-right font-medium">
                  Redemptions
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-800 text-slate-200">
              {a.promoRedemptions.map((row) => (
                <tr key={row.code}>
                  <th scope="row" className={`${cell} font-mono font-normal`}>
                    {row.code}
                  </th>
                  <td className="py-2 text-right">{row.redemptions}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
      <Panel title="Cancellation reasons (30 days)">
        {a.cancellationReasons.length === 0 ? (
          <p className="text-sm text-slate-300">
            No member gave a reason for cancelling in the last 30 days.
          </p>
        ) : (
          <table className="w-full text-left text-sm">
            <caption className="sr-only">Why members cancelled in the last 30 days</caption>
            <thead className="text-slate-400">
              <tr>
                <th scope="col" className={`${cell} font-medium`}>
                  Reason
                </th>
                <th scope="col" className={`${cell} text-right font-medium`}>
                  Cancelled
                </th>
                <th scope="col" className="py-2 text-right font-medium">
                  Kept by an offer
                </th>
              </tr>
            </thead>
            <tbody className="divide-y divide-slate-800 text-slate-200">
              {a.cancellationReasons.map((row) => (
                <tr key={row.reason}>
                  <th scope="row" className={`${cell} font-normal`}>
                    {row.label}
                  </th>
                  <td className={`${cell} text-right`}>{row.cancelled}</td>
                  <td className="py-2 text-right">{row.kept}</td>
                </tr>
              ))}
            </tbody>
          </table>
        )}
      </Panel>
    </div>
  )
}
