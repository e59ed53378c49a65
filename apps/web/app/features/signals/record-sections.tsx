import type { SignalRecord, SignalView } from '@edgeclub/shared'
import {
  categoryLabel,
  count,
  describeSignal,
  formatMoment,
  formatMonth,
  KIND_LABELS,
  KIND_PLURALS,
  outcomeOf,
  timingOf,
} from '@edgeclub/shared'
import { Card } from '../../components/ui/layout'
import { recordLinks } from './record-api'
import { CommitmentsSummary, PickBreakdownTable, PickFiguresList, TradeFiguresList } from './record-figures'
import { StatsSummary, StatsTable } from './record-stats'
import { SignalStatusBadge } from './signal-status'
import { UnitsChart } from './units-chart'

function Heading({ id, children }: { id: string; children: string }) {
  return (
    <h2 id={id} className="text-2xl font-bold text-white">
      {children}
    </h2>
  )
}

/** A settled or void signal, revealed: what it was, how it ended, and its content and salt to check. */
function RevealedSignal({ signal }: { signal: SignalView }) {
  const description = describeSignal(signal)
  return (
    <li className="rounded-2xl border border-slate-800 bg-slate-900/70 p-4">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="text-xs font-semibold uppercase tracking-wide text-emerald-300">
            {KIND_LABELS[signal.kind]} · {categoryLabel(signal.category)}
          </p>
          <h3 className="mt-1 font-semibold text-white">{description?.title ?? signal.category}</h3>
          {description?.call ? <p className="text-sm text-slate-200">{description.call}</p> : null}
        </div>
        <SignalStatusBadge signal={signal} />
      </div>
      <p className="mt-2 text-sm text-slate-300">
        {outcomeOf(signal)} · settled {formatMoment(signal.settledAt)}
      </p>
      <a
        href={recordLinks.signal(signal.id)}
        className="mt-2 inline-block text-sm font-semibold text-emerald-300 underline-offset-4 hover:underline"
      >
        Content and salt (JSON)
        <span className="sr-only"> for {description?.title ?? signal.category}</span>
      </a>
    </li>
  )
}

/** A live signal as the public sees it: only its commitment and when it plays. */
function SealedSignal({ signal }: { signal: SignalView }) {
  return (
    <li className="rounded-2xl border border-slate-800 bg-slate-900/70 p-4">
      <div className="flex flex-wrap items-center justify-between gap-2">
        <p className="font-semibold text-white">
          {KIND_LABELS[signal.kind]} · {categoryLabel(signal.category)}
        </p>
        <SignalStatusBadge signal={signal} />
      </div>
      <p className="mt-1 text-sm text-slate-300">
        {timingOf(signal)} · published {formatMoment(signal.publishedAt)}
      </p>
      <p className="mt-2 text-xs text-slate-400">Commitment</p>
      <p className="break-all font-mono text-xs text-slate-200">{signal.commitment}</p>
    </li>
  )
}

/** Everything the record says, from GET /record: figures, chart, breakdowns, revealed and live signals. */
export function RecordSections({ record }: { record: SignalRecord }) {
  const sports = record.byCategory.filter((row) => row.kind === 'pick')
  const instruments = record.byCategory.filter((row) => row.kind === 'signal')
  return (
    <div className="space-y-12">
      <section aria-labelledby="overall-heading" className="space-y-4">
        <Heading id="overall-heading">Overall</Heading>
        <StatsSummary stats={record.overall} />
        {record.byKind.length > 0 ? (
          <StatsTable
            caption="The record by kind: sports picks and trading signals"
            heading="Kind"
            rows={record.byKind}
            rowKey={(row) => row.kind}
            label={(row) => KIND_PLURALS[row.kind]}
          />
        ) : null}
      </section>

      <section aria-labelledby="picks-heading" className="space-y-4">
        <Heading id="picks-heading">Sports picks, as a bettor reads them</Heading>
        <PickFiguresList figures={record.picks} />
        {record.picks.byMarket.length > 0 ? (
          <PickBreakdownTable
            caption="Sports picks by market"
            heading="Market"
            rows={record.picks.byMarket}
          />
        ) : null}
        {record.picks.byOddsBand.length > 0 ? (
          <PickBreakdownTable
            caption="Sports picks by odds band (decimal odds)"
            heading="Odds"
            rows={record.picks.byOddsBand}
          />
        ) : null}
      </section>

      <section aria-labelledby="trading-heading" className="space-y-4">
        <Heading id="trading-heading">Trading signals</Heading>
        <TradeFiguresList figures={record.trading} />
      </section>

      <section aria-labelledby="commitments-heading" className="space-y-4">
        <Heading id="commitments-heading">Commitments</Heading>
        <p className="text-sm text-slate-300">
          Every pick is sealed before it plays. A commitment that fell due and was never revealed, or a pick
          voided after its start, is counted here, so nothing can be published twice and only the winner
          shown.
        </p>
        <CommitmentsSummary record={record} />
      </section>

      <section aria-labelledby="chart-heading" className="space-y-4">
        <Heading id="chart-heading">Cumulative units</Heading>
        <Card>
          <UnitsChart points={record.cumulative} title="Cumulative profit in units, every settled signal" />
        </Card>
      </section>

      <section aria-labelledby="sports-heading" className="space-y-4">
        <Heading id="sports-heading">By sport</Heading>
        {sports.length > 0 ? (
          <StatsTable
            caption="The record of sports picks by sport"
            heading="Sport"
            rows={sports}
            rowKey={(row) => row.category}
            label={(row) => categoryLabel(row.category)}
          />
        ) : (
          <p className="text-slate-300">No sports pick has been settled yet.</p>
        )}
        {instruments.length > 0 ? (
          <>
            <h3 className="pt-2 text-lg font-semibold text-white">Trading signals by instrument</h3>
            <StatsTable
              caption="The record of trading signals by instrument"
              heading="Instrument"
              rows={instruments}
              rowKey={(row) => row.category}
              label={(row) => categoryLabel(row.category)}
            />
          </>
        ) : null}
      </section>

      {record.byMonth.length > 0 ? (
        <section aria-labelledby="months-heading" className="space-y-4">
          <Heading id="months-heading">By month</Heading>
          <StatsTable
            caption="The record by month of settlement"
            heading="Month"
            rows={[...record.byMonth].reverse()}
            rowKey={(row) => row.month}
            label={(row) => formatMonth(row.month)}
          />
        </section>
      ) : null}

      <div className="grid gap-12 lg:grid-cols-2">
        <section aria-labelledby="latest-heading" className="space-y-4">
          <Heading id="latest-heading">Latest settled, revealed</Heading>
          <p className="text-sm text-slate-300">
            Each one shows what was published and the salt, so you can recompute its commitment.
          </p>
          {record.latestSettled.length > 0 ? (
            <ul className="space-y-3">
              {record.latestSettled.map((signal) => (
                <RevealedSignal key={signal.id} signal={signal} />
              ))}
            </ul>
          ) : (
            <p className="text-slate-300">Nothing has been settled yet.</p>
          )}
        </section>
        <section aria-labelledby="live-heading" className="space-y-4">
          <Heading id="live-heading">Live now, sealed</Heading>
          <p className="text-sm text-slate-300">
            {count(record.live.length, 'live signal')}. Members see them in full; here they show only as
            commitments until they settle.
          </p>
          {record.live.length > 0 ? (
            <ul className="space-y-3">
              {record.live.map((signal) => (
                <SealedSignal key={signal.id} signal={signal} />
              ))}
            </ul>
          ) : (
            <p className="text-slate-300">No signal is live right now.</p>
          )}
        </section>
      </div>
    </div>
  )
}
