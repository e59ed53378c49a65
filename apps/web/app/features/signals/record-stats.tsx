import type { RecordStats } from '@edgeclub/shared'
import { count, formatNumber, formatRate, formatUnits, winRateSample } from '@edgeclub/shared'
import type { ReactNode } from 'react'
import { ScrollHint } from '../../components/ui/scroll-hint'

function Figure({ label, value, hint, tone }: { label: string; value: string; hint: string; tone?: string }) {
  return (
    <div className="rounded-2xl border border-slate-800 bg-slate-900/70 p-5">
      <dt className="text-xs uppercase tracking-wide text-slate-400">{label}</dt>
      <dd className={`mt-2 text-2xl font-bold tabular-nums ${tone ?? 'text-white'}`}>{value}</dd>
      <dd className="mt-1 text-xs text-slate-300">{hint}</dd>
    </div>
  )
}

const unitsTone = (units: number) =>
  units > 0 ? 'text-emerald-300' : units < 0 ? 'text-rose-300' : 'text-white'

/**
 * The headline figures of a record, each rate with the sample it stands on: ROI = profit ÷ units
 * staked; win rate = won ÷ (won + lost).
 */
export function StatsSummary({ stats }: { stats: RecordStats }) {
  const settled = count(stats.settled, 'settled signal')
  return (
    <dl className="grid gap-4 sm:grid-cols-2 xl:grid-cols-4">
      <Figure
        label="Profit"
        value={formatUnits(stats.profitUnits)}
        hint={`from ${settled}`}
        tone={unitsTone(stats.profitUnits)}
      />
      <Figure
        label="ROI"
        value={formatRate(stats.roi)}
        hint={`${formatUnits(stats.profitUnits)} on ${count(stats.unitsStaked, 'unit')} staked · ${settled}`}
      />
      <Figure
        label="Win rate"
        value={formatRate(stats.winRate)}
        hint={`${winRateSample(stats)} · ${settled}`}
      />
      <Figure
        label="Settled"
        value={formatNumber(stats.settled)}
        hint={`${stats.won} won · ${stats.lost} lost · ${stats.push} push · ${stats.closed} closed · ${stats.void} void`}
      />
    </dl>
  )
}

/** One table of a record broken down (by sport, instrument or month); the settled count sits beside every rate. */
export function StatsTable<Row extends RecordStats>({
  caption,
  heading,
  rows,
  label,
  rowKey,
}: {
  caption: string
  /** The first column's header: Sport, Instrument, Month. */
  heading: string
  rows: Row[]
  label: (row: Row) => ReactNode
  rowKey: (row: Row) => string
}) {
  const cell = 'px-3 py-2.5 text-right tabular-nums'
  return (
    <ScrollHint label={caption} className="rounded-2xl border border-slate-800">
      <table className="w-full min-w-[40rem] text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-900 text-slate-300">
          <tr>
            <th scope="col" className="px-3 py-2.5 font-semibold">
              {heading}
            </th>
            <th scope="col" className="px-3 py-2.5 text-right font-semibold">
              Settled
            </th>
            <th scope="col" className="px-3 py-2.5 text-right font-semibold">
              Won–Lost–Push
            </th>
            <th scope="col" className="px-3 py-2.5 text-right font-semibold">
              Win rate
            </th>
            <th scope="col" className="px-3 py-2.5 text-right font-semibold">
              Staked
            </th>
            <th scope="col" className="px-3 py-2.5 text-right font-semibold">
              Profit
            </th>
            <th scope="col" className="px-3 py-2.5 text-right font-semibold">
              ROI
            </th>
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-800">
          {rows.map((row) => (
            <tr key={rowKey(row)}>
              <th scope="row" className="px-3 py-2.5 font-medium text-white">
                {label(row)}
              </th>
              <td className={`${cell} text-white`}>
                {row.settled}
                {row.void ? <span className="block text-xs text-slate-400">{row.void} void</span> : null}
              </td>
              <td className={`${cell} text-slate-200`}>
                {row.won}–{row.lost}–{row.push}
                {row.closed ? (
                  <span className="block text-xs text-slate-400">{row.closed} closed</span>
                ) : null}
              </td>
              <td className={`${cell} text-slate-200`}>
                {formatRate(row.winRate)}
                <span className="block text-xs text-slate-400">of {row.won + row.lost} decided</span>
              </td>
              <td className={`${cell} text-slate-200`}>{formatNumber(row.unitsStaked)} u</td>
              <td className={`${cell} ${unitsTone(row.profitUnits)}`}>{formatUnits(row.profitUnits)}</td>
              <td className={`${cell} text-slate-200`}>{formatRate(row.roi)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollHint>
  )
}
