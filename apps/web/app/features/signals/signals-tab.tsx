import {
  count,
  describeSignal,
  formatDay,
  KIND_LABELS,
  paths,
  type SignalEvent,
  type SignalView,
  SPORTS,
} from '@edgeclub/shared'
import { useDeferredValue, useEffect, useState } from 'react'
import { Link, useSearchParams } from 'react-router'
import { Button } from '../../components/ui/button'
import { Alert, inputClasses } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import type { StreamStatus } from '../../lib/event-stream'
import { useSubscriptionStatus } from '../../lib/subscription-status-api'
import { useSession } from '../../lib/use-session'
import { PickFiguresList, TradeFiguresList } from './record-figures'
import { StatsSummary } from './record-stats'
import { RecordWitness } from './record-witness'
import { SignalCard } from './signal-card'
import { type FeedFilter, useOwnRecord, useSignalFeed } from './signals-api'
import { UnitsChart } from './units-chart'
import { mergeFeed, useLiveSignals } from './use-live-signals'

/** Below this many settled signals, a record says more about luck than skill. */
const SMALL_SAMPLE = 30

const STREAM_TEXT: Record<StreamStatus, string> = {
  connecting: 'Connecting to the live feed...',
  open: 'Live: new signals appear here the moment they are published.',
  reconnecting: 'Connection lost. Reconnecting...',
  closed: 'The live feed has stopped. Reload the page to reconnect.',
}

/**
 * On a phone the line has its own row, two lines high whatever it says: the short 'Connecting' text
 * fits beside the title and the longer 'Live' one does not, and the switch moved the whole feed down.
 */
function LiveIndicator({ status }: { status: StreamStatus }) {
  return (
    <p className="flex min-h-10 basis-full items-center gap-2 text-sm text-slate-300 sm:min-h-0 sm:basis-auto">
      <span
        aria-hidden="true"
        className={`h-2.5 w-2.5 rounded-full ${status === 'open' ? 'motion-safe:animate-pulse bg-emerald-400' : 'bg-amber-400'}`}
      />
      {STREAM_TEXT[status]}
    </p>
  )
}

function announce(event: SignalEvent): string {
  const what =
    describeSignal(event.signal)?.title ?? `${KIND_LABELS[event.signal.kind]} · ${event.signal.category}`
  if (event.type === 'published') return `New ${KIND_LABELS[event.signal.kind].toLowerCase()}: ${what}`
  if (event.type === 'voided') return `Voided: ${what}`
  return `Settled: ${what}`
}

function matchesFilter(filter: FeedFilter) {
  return (signal: SignalView) => {
    if (filter.sport)
      return signal.kind === 'pick' && signal.category.toLowerCase() === filter.sport.toLowerCase()
    return !filter.kind || signal.kind === filter.kind
  }
}

/** The member's own record: the signals published since they joined, once settled. */
function OwnRecord({ since }: { since: string }) {
  const record = useOwnRecord(since)
  const settled = record.data?.overall.settled ?? 0
  return (
    <Panel
      title="Your record since joining"
      description={`Computed from the signals published since you joined on ${formatDay(since)} and settled since, from the same public ledger as the verified record.`}
    >
      {record.isPending ? <p className="text-sm text-slate-300">Loading your record...</p> : null}
      {record.isError ? <Alert tone="error">{record.error.message}</Alert> : null}
      {record.data ? (
        settled === 0 && record.data.overall.void === 0 ? (
          <p className="text-sm text-slate-300">
            Nothing published since you joined has settled yet. Your record starts with the first settlement.
          </p>
        ) : (
          <div className="space-y-4">
            <StatsSummary stats={record.data.overall} />
            {settled < SMALL_SAMPLE ? (
              <p className="text-sm text-amber-200">
                A small sample ({count(settled, 'settled signal')}): rates can swing widely until more signals
                settle.
              </p>
            ) : null}
            <UnitsChart points={record.data.cumulative} title="Your cumulative units since joining" />
            {record.data.picks.settled + record.data.picks.void > 0 ? (
              <section aria-label="Your picks in detail" className="space-y-2">
                <h3 className="font-semibold text-white">Picks in detail</h3>
                <PickFiguresList figures={record.data.picks} />
              </section>
            ) : null}
            {record.data.trading.settled + record.data.trading.void > 0 ? (
              <section aria-label="Your trading signals in detail" className="space-y-2">
                <h3 className="font-semibold text-white">Trading signals in detail</h3>
                <TradeFiguresList figures={record.data.trading} />
              </section>
            ) : null}
          </div>
        )
      ) : null}
      <Link
        to={paths.record}
        className="mt-4 inline-block text-sm font-semibold text-emerald-300 underline-offset-4 hover:underline"
      >
        See the full verified record
      </Link>
    </Panel>
  )
}

/** The Signals tab: the live feed with filters, and the member's own running record. */
export function SignalsTab() {
  const { user } = useSession()
  const status = useSubscriptionStatus()
  const [filter, setFilter] = useState<FeedFilter>({ kind: '', sport: '' })
  const [announcement, setAnnouncement] = useState('')
  const feed = useSignalFeed(filter)
  // The list (a page of signal cards, the heaviest render of the tab) is rendered from a deferred copy
  // of the fetched pages: React renders it in slices that leave the page responsive, not in one long
  // task as the page arrives.
  const pages = useDeferredValue(feed.data?.pages)
  const listed = pages !== undefined
  const { status: streamStatus, live } = useLiveSignals(
    (event) => setAnnouncement(announce(event)),
    !status.isPending && (listed || feed.isError),
  )
  const staff = user?.role === 'admin' || user?.role === 'analyst'
  const fullAccess = staff || Boolean(status.data?.hasAccess)
  const signals = mergeFeed(pages?.flatMap((page) => page.items) ?? [], live, matchesFilter(filter))
  // Opened from a notification (`&signal=<id>`): that signal is brought into view and marked.
  const [params] = useSearchParams()
  const opened = params.get('signal')
  const shown = Boolean(opened && signals.some((signal) => signal.id === opened))
  useEffect(() => {
    if (shown && opened) document.getElementById(`signal-${opened}`)?.scrollIntoView({ block: 'center' })
  }, [shown, opened])

  // Nothing below the witness line shows until the member's access is known: the notice for members
  // without a plan would otherwise push the feed down when it arrives.
  if (status.isPending)
    return (
      <div className="space-y-6">
        <RecordWitness />
        <p className="text-sm text-slate-300">Loading signals...</p>
      </div>
    )

  return (
    <div className="space-y-6">
      <RecordWitness />
      {status.data && !fullAccess ? (
        <Alert tone="info">
          <p className="font-semibold">Subscribe to see every pick and signal the moment it is published.</p>
          <p className="mt-1">
            Without an active plan you see what the public sees: each live signal as a sealed commitment with
            its start time, and its full content once it settles.{' '}
            <Link to="?tab=subscription" className="font-semibold underline">
              Choose a plan
            </Link>
          </p>
        </Alert>
      ) : null}

      <Panel title="Live feed" actions={<LiveIndicator status={streamStatus} />}>
        <p className="sr-only" role="status" aria-live="polite">
          {announcement}
        </p>
        <div className="flex flex-wrap gap-3">
          <div className="w-48">
            <label htmlFor="signals-kind" className="mb-1 block text-sm text-slate-300">
              Kind
            </label>
            <select
              id="signals-kind"
              className={inputClasses}
              value={filter.sport ? 'pick' : filter.kind}
              onChange={(event) => setFilter({ kind: event.target.value as FeedFilter['kind'], sport: '' })}
            >
              <option value="">All signals</option>
              <option value="pick">Sports picks</option>
              <option value="signal">Trading signals</option>
            </select>
          </div>
          <div className="w-48">
            <label htmlFor="signals-sport" className="mb-1 block text-sm text-slate-300">
              Sport
            </label>
            <select
              id="signals-sport"
              className={inputClasses}
              value={filter.sport}
              disabled={filter.kind === 'signal'}
              onChange={(event) =>
                setFilter((current) => ({
                  kind: event.target.value ? 'pick' : current.kind,
                  sport: event.target.value,
                }))
              }
            >
              <option value="">All sports</option>
              {SPORTS.map((sport) => (
                <option key={sport} value={sport}>
                  {sport === 'soccer' ? 'Soccer' : sport === 'other' ? 'Other sports' : sport}
                </option>
              ))}
            </select>
          </div>
        </div>

        <div className="mt-5 space-y-3">
          {!listed && !feed.isError ? <p className="text-sm text-slate-300">Loading signals...</p> : null}
          {feed.isError ? <Alert tone="error">{feed.error.message}</Alert> : null}
          {listed && signals.length === 0 ? (
            <p className="rounded-xl border border-dashed border-slate-700 p-6 text-center text-sm text-slate-300">
              No signals here yet. New ones appear the moment they are published.
            </p>
          ) : null}
          {signals.length > 0 ? (
            <ul className="space-y-3" aria-label="Signals, newest first">
              {signals.map((signal) => (
                <li
                  key={signal.id}
                  id={`signal-${signal.id}`}
                  className={signal.id === opened ? 'rounded-2xl ring-2 ring-emerald-400' : undefined}
                >
                  <SignalCard signal={signal} />
                </li>
              ))}
            </ul>
          ) : null}
          {listed && feed.hasNextPage ? (
            <Button
              variant="secondary"
              onClick={() => void feed.fetchNextPage()}
              disabled={feed.isFetchingNextPage}
            >
              {feed.isFetchingNextPage ? 'Loading...' : 'Show older signals'}
            </Button>
          ) : null}
        </div>
      </Panel>

      {/* Under the feed once its first page is in: shown earlier, the list arriving pushed it down. */}
      {user?.createdAt && (listed || feed.isError) ? <OwnRecord since={user.createdAt} /> : null}
    </div>
  )
}
