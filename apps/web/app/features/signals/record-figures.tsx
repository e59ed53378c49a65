import type { PickBreakdownRow, PickFigures, SignalRecord, TradeFigures } from '@edgeclub/shared'
import {
  categoryLabel,
  count,
  formatMoment,
  formatNumber,
  formatRate,
  formatUnits,
  KIND_LABELS,
} from '@edgeclub/shared'
import { ScrollHint } from '../../components/ui/scroll-hint'

/** What a ratio says below the minimum sample: never a number that a handful of results can make up. */
const TOO_FEW = 'too few settled'

function Figure({ label, value, hint }: { label: string; value: string; hint: string }) {
  return (
    <div className="rounded-2xl border border-slate-800 bg-slate-900/70 p-4">
      <dt className="text-xs uppercase tracking-wide text-slate-400">{label}</dt>
      <dd className="mt-1 text-xl font-bold tabular-nums text-white">{value}</dd>
      <dd className="mt-1 text-xs text-slate-300">{hint}</dd>
    </div>
  )
}

const rateOr = (rate: number | null, enough: boolean) =>
  rate === null ? (enough ? '—' : TOO_FEW) : formatRate(rate)
const intervalText = (interval: { low: number; high: number } | null) =>
  interval ? `95% interval ${formatRate(interval.low)} to ${formatRate(interval.high)}` : ''
const luckText = (chance: number | null, enough: boolean) =>
  chance === null ? (enough ? '—' : TOO_FEW) : chance < 0.001 ? 'under 0.1%' : formatRate(chance)
const plain = (value: number | null, digits = 2) => (value === null ? '—' : value.toFixed(digits))

/** The bettor's figures for sports picks, each with the definition and sample it stands on. */
export function PickFiguresList({ figures }: { figures: PickFigures }) {
  const enough = figures.enoughSettled
  const decided = figures.won + figures.lost
  return (
    <div className="space-y-3">
      {enough ? null : (
        <p className="text-sm text-amber-200">
          Ratios appear once {figures.minimumSample} picks have settled (
          {count(figures.settled, 'settled pick')} so far): until then they say “{TOO_FEW}”.
        </p>
      )}
      <dl className="grid gap-3 sm:grid-cols-2 xl:grid-cols-4">
        <Figure
          label="Settled picks"
          value={formatNumber(figures.settled)}
          hint={`${figures.pending} pending · ${figures.void} void (${figures.lateVoid} after the start) · ${figures.push} push`}
        />
        <Figure
          label="Profit"
          value={formatUnits(figures.profitUnits)}
          hint={`at the stated stakes, ${count(figures.unitsStaked, 'unit')} staked`}
        />
        <Figure
          label="Yield, stated stakes"
          value={rateOr(figures.yield, enough)}
          hint="profit ÷ units staked"
        />
        <Figure
          label="Yield, level stakes"
          value={rateOr(figures.levelStakeYield, enough)}
          hint={`1 unit on every pick: ${formatUnits(figures.levelStakeProfitUnits)}. ${intervalText(figures.levelStakeYieldInterval)}`}
        />
        <Figure
          label="Average odds"
          value={plain(figures.averageOdds)}
          hint={`break-even win rate ${formatRate(figures.breakEvenWinRate)} (1 ÷ average decimal odds)`}
        />
        <Figure
          label="Win rate"
          value={rateOr(figures.winRate, enough)}
          hint={`${figures.won} won of ${decided} decided. ${intervalText(figures.winRateInterval)} (Wilson)`}
        />
        <Figure
          label="Chance it is luck"
          value={luckText(figures.luckChance, enough)}
          hint="of winning this often if every pick won only at the break-even rate (one-sided binomial)"
        />
        <Figure
          label="Drawdown"
          value={`${formatUnits(-figures.drawdownUnits.current)} now`}
          hint={`largest fall from a high: ${formatUnits(-figures.drawdownUnits.maximum)}`}
        />
        <Figure
          label="Longest losing run"
          value={String(figures.longestLosingRun)}
          hint={
            figures.expectedLongestLosingRun === null
              ? `expected at this win rate: ${enough ? '—' : TOO_FEW}`
              : `about ${figures.expectedLongestLosingRun.toFixed(1)} to expect over ${decided} picks at this win rate`
          }
        />
        <Figure
          label="Closing-line value"
          value={
            figures.closingLine.averageClv === null
              ? figures.closingLine.picks < figures.minimumSample
                ? TOO_FEW
                : '—'
              : formatRate(figures.closingLine.averageClv)
          }
          hint={`odds taken ÷ closing odds − 1, over ${count(figures.closingLine.picks, 'pick')} with closing odds${
            figures.closingLine.beatCloseShare === null
              ? ''
              : `; ${formatRate(figures.closingLine.beatCloseShare)} beat the close`
          }`}
        />
      </dl>
    </div>
  )
}

/** Trading signals: return per signal (profit ÷ stake), drawdown and Sharpe ratio. */
export function TradeFiguresList({ figures }: { figures: TradeFigures }) {
  const enough = figures.enoughSettled
  return (
    <dl className="grid gap-3 sm:grid-cols-2 xl:grid-cols-4">
      <Figure
        label="Settled signals"
        value={formatNumber(figures.settled)}
        hint={`${figures.pending} open · ${figures.void} void · ${figures.won} won, ${figures.lost} lost, ${figures.closed} closed`}
      />
      <Figure
        label="Return per signal"
        value={
          figures.averageReturn === null ? (enough ? '—' : TOO_FEW) : `${plain(figures.averageReturn)} R`
        }
        hint={`profit ÷ stake, in units of risk. ${intervalText(figures.returnInterval)}`}
      />
      <Figure
        label="Maximum drawdown"
        value={formatUnits(-figures.drawdownUnits.maximum)}
        hint={`now ${formatUnits(-figures.drawdownUnits.current)} below the high`}
      />
      <Figure
        label="Sharpe ratio"
        value={figures.sharpeRatio === null ? (enough ? '—' : TOO_FEW) : plain(figures.sharpeRatio)}
        hint="mean return ÷ its standard deviation, per signal, not annualised"
      />
    </dl>
  )
}

/** A pick breakdown (market, odds band): counts always, ratios from the minimum sample on. */
export function PickBreakdownTable({
  caption,
  heading,
  rows,
}: {
  caption: string
  heading: string
  rows: PickBreakdownRow[]
}) {
  const cell = 'px-3 py-2 text-right tabular-nums text-slate-200'
  return (
    <ScrollHint label={caption} className="rounded-2xl border border-slate-800">
      <table className="w-full min-w-[36rem] text-left text-sm">
        <caption className="sr-only">{caption}</caption>
        <thead className="bg-slate-900 text-slate-300">
          <tr>
            {[heading, 'Settled', 'Won–Lost–Push', 'Win rate', 'Avg odds', 'Profit', 'Yield'].map(
              (label, index) => (
                <th
                  key={label}
                  scope="col"
                  className={`px-3 py-2 font-semibold ${index ? 'text-right' : ''}`}
                >
                  {label}
                </th>
              ),
            )}
          </tr>
        </thead>
        <tbody className="divide-y divide-slate-800">
          {rows.map((row) => (
            <tr key={row.key}>
              <th scope="row" className="px-3 py-2 font-medium text-white">
                {categoryLabel(row.key)}
              </th>
              <td className={cell}>{row.settled}</td>
              <td className={cell}>
                {row.won}–{row.lost}–{row.push}
              </td>
              <td className={cell}>{row.winRate === null ? TOO_FEW : formatRate(row.winRate)}</td>
              <td className={cell}>{plain(row.averageOdds)}</td>
              <td className={cell}>{formatUnits(row.profitUnits)}</td>
              <td className={cell}>{row.yield === null ? TOO_FEW : formatRate(row.yield)}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </ScrollHint>
  )
}

/** Commitments made, fallen due, revealed and overdue; each overdue one and each late void listed. */
export function CommitmentsSummary({ record }: { record: SignalRecord }) {
  const { commitments } = record
  return (
    <div className="space-y-4">
      <dl className="grid gap-3 sm:grid-cols-2 xl:grid-cols-4">
        <Figure
          label="Commitments made"
          value={String(commitments.made)}
          hint="sealed picks and signals published"
        />
        <Figure label="Due" value={String(commitments.due)} hint="event started or signal expired" />
        <Figure
          label="Revealed"
          value={String(commitments.revealed)}
          hint="settled or voided, content matching"
        />
        <Figure
          label="Overdue"
          value={String(commitments.overdue)}
          hint={`due more than ${commitments.overdueAfterHours} h ago and still sealed`}
        />
        <Figure
          label="Voids"
          value={String(commitments.voided)}
          hint={`${commitments.lateVoided} after the event started or the signal expired`}
        />
      </dl>
      {record.overdueCommitments.length > 0 ? (
        <div>
          <h3 className="font-semibold text-white">Overdue, still sealed</h3>
          <ul className="mt-2 space-y-2 text-sm text-slate-200">
            {record.overdueCommitments.map((item) => (
              <li key={item.signalId} className="rounded-xl border border-rose-500/40 bg-rose-500/10 p-3">
                {KIND_LABELS[item.kind]} · {categoryLabel(item.category)} · due {formatMoment(item.dueAt)} ·
                entry #{item.seq}
                <span className="block break-all font-mono text-xs text-slate-300">{item.commitment}</span>
              </li>
            ))}
          </ul>
        </div>
      ) : null}
      {record.lateVoids.length > 0 ? (
        <div>
          <h3 className="font-semibold text-white">Voided after the start</h3>
          <ul className="mt-2 space-y-2 text-sm text-slate-200">
            {record.lateVoids.map((item) => (
              <li key={item.signalId} className="rounded-xl border border-amber-400/40 bg-amber-400/10 p-3">
                {KIND_LABELS[item.kind]} · {categoryLabel(item.category)} · due {formatMoment(item.dueAt)},
                voided {formatMoment(item.voidedAt)}: {item.reason}
              </li>
            ))}
          </ul>
        </div>
      ) : null}
    </div>
  )
}
