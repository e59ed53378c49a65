import { describeSignal, KIND_LABELS, paths, type SignalView } from '@edgeclub/shared'
import { useId, useState } from 'react'
import { Link } from 'react-router'
import { Button } from '../../components/ui/button'
import {
  ConfirmButton,
  Notice,
  type RunAction,
  smallInput,
  useConsoleAction,
} from '../../components/ui/console'
import { Alert } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import { PublishSignalForm } from './publish-signal-form'
import { SignalCard } from './signal-card'
import { readClosingOdds, readExitPrice, readVoidReason } from './signal-form'
import { settleSignal, useAdminSignals, voidSignal } from './signals-api'

const RESULTS = [
  { value: 'won', label: 'Won' },
  { value: 'lost', label: 'Lost' },
  { value: 'push', label: 'Push' },
] as const

/** Settle (a pick by its result, a trading signal at its exit price) or void an open signal. */
function SignalActions({ signal, run }: { signal: SignalView; run: RunAction }) {
  const ids = useId()
  const [result, setResult] = useState<'' | 'won' | 'lost' | 'push'>('')
  const [exitPrice, setExitPrice] = useState('')
  const [closingOdds, setClosingOdds] = useState('')
  const [reason, setReason] = useState('')
  const [afterStart, setAfterStart] = useState(false)
  // A pick whose event started (a signal past its expiry) is voided only with the late-void mark.
  const due = signal.startsAt ?? signal.expiresAt
  const started = due !== null && new Date(due).getTime() <= Date.now()
  const [error, setError] = useState<{ field: 'settle' | 'void'; text: string } | null>(null)
  const name = describeSignal(signal)?.title ?? `${KIND_LABELS[signal.kind]} ${signal.category}`

  const settle = async () => {
    if (signal.kind === 'pick') {
      if (!result) {
        setError({ field: 'settle', text: 'Choose won, lost or push' })
        return false
      }
      const closing = readClosingOdds(closingOdds)
      if (!closing.ok) {
        setError({ field: 'settle', text: closing.error })
        return false
      }
      await run(
        async () =>
          (
            await settleSignal(signal.id, {
              result,
              ...(closing.closingOdds !== undefined ? { closingOdds: closing.closingOdds } : {}),
            })
          ).message,
      )
      return
    }
    const read = readExitPrice(exitPrice)
    if (!read.ok) {
      setError({ field: 'settle', text: read.error })
      return false
    }
    await run(async () => (await settleSignal(signal.id, { exitPrice: read.exitPrice })).message)
  }

  const voidIt = async () => {
    const read = readVoidReason(reason)
    if (!read.ok) {
      setError({ field: 'void', text: read.error })
      return false
    }
    if (started && !afterStart) {
      setError({
        field: 'void',
        text: 'It has started: tick "Void after the start" to void it as a late void, shown apart on the record',
      })
      return false
    }
    await run(async () => (await voidSignal(signal.id, read.reason, started && afterStart)).message)
  }

  const errorFor = (field: 'settle' | 'void') =>
    error?.field === field ? (
      <p id={`${ids}-${field}-error`} className="w-full text-sm text-rose-300">
        {error.text}
      </p>
    ) : null

  return (
    <div className="mt-4 flex flex-wrap items-start gap-2 border-t border-slate-800 pt-4">
      <ConfirmButton
        label="Settle"
        context={name}
        confirmLabel="Yes, settle"
        variant="primary"
        question={
          signal.kind === 'pick'
            ? `Settle "${name}"? A settlement is final and goes into the public ledger.`
            : `Settle "${name}" at its exit price? A settlement is final and goes into the public ledger.`
        }
        onConfirm={settle}
      >
        {signal.kind === 'pick' ? (
          <div>
            <label htmlFor={`${ids}-result`} className="mb-1 block text-xs text-amber-100">
              Result
            </label>
            <select
              id={`${ids}-result`}
              className={`${smallInput} w-32`}
              value={result}
              aria-invalid={error?.field === 'settle' ? true : undefined}
              aria-describedby={error?.field === 'settle' ? `${ids}-settle-error` : undefined}
              onChange={(event) => {
                setResult(event.target.value as typeof result)
                setError(null)
              }}
            >
              <option value="">Choose</option>
              {RESULTS.map((item) => (
                <option key={item.value} value={item.value}>
                  {item.label}
                </option>
              ))}
            </select>
            <label htmlFor={`${ids}-closing`} className="mb-1 mt-2 block text-xs text-amber-100">
              Closing odds (decimal, optional)
            </label>
            <input
              id={`${ids}-closing`}
              className={`${smallInput} w-32`}
              inputMode="decimal"
              value={closingOdds}
              onChange={(event) => {
                setClosingOdds(event.target.value)
                setError(null)
              }}
            />
          </div>
        ) : (
          <div>
            <label htmlFor={`${ids}-exit`} className="mb-1 block text-xs text-amber-100">
              Exit price
            </label>
            <input
              id={`${ids}-exit`}
              className={`${smallInput} w-36`}
              inputMode="decimal"
              value={exitPrice}
              aria-invalid={error?.field === 'settle' ? true : undefined}
              aria-describedby={error?.field === 'settle' ? `${ids}-settle-error` : undefined}
              onChange={(event) => {
                setExitPrice(event.target.value)
                setError(null)
              }}
            />
          </div>
        )}
        {errorFor('settle')}
      </ConfirmButton>
      <ConfirmButton
        label="Void"
        context={name}
        confirmLabel="Yes, void"
        variant="danger"
        question={`Void "${name}"? It will not count in the record, and the reason is published in the ledger.`}
        onConfirm={voidIt}
      >
        <div className="w-full sm:w-72">
          <label htmlFor={`${ids}-reason`} className="mb-1 block text-xs text-amber-100">
            Reason
          </label>
          <input
            id={`${ids}-reason`}
            className={`${smallInput} w-full`}
            maxLength={500}
            value={reason}
            aria-invalid={error?.field === 'void' ? true : undefined}
            aria-describedby={error?.field === 'void' ? `${ids}-void-error` : undefined}
            onChange={(event) => {
              setReason(event.target.value)
              setError(null)
            }}
          />
          {started ? (
            <label className="mt-2 flex items-center gap-2 text-xs text-amber-100">
              <input
                type="checkbox"
                checked={afterStart}
                onChange={(event) => {
                  setAfterStart(event.target.checked)
                  setError(null)
                }}
              />
              Void after the start (the record shows it as a late void)
            </label>
          ) : null}
        </div>
        {errorFor('void')}
      </ConfirmButton>
    </div>
  )
}

/** The Signals section: publish picks and trading signals, then settle or void them. */
export function SignalsSection() {
  const { notice, run } = useConsoleAction(['admin', 'signals'])
  const [kind, setKind] = useState<'' | 'pick' | 'signal'>('')
  const signals = useAdminSignals(kind)

  const items = signals.data?.pages.flatMap((page) => page.items) ?? []
  return (
    <div className="space-y-6">
      <Notice notice={notice} />
      <Panel
        title="Publish"
        description="Members with access receive it at once: live on their dashboard, in the members-only Discord channel and by email if they opted in. The public sees only its commitment until it settles."
      >
        <PublishSignalForm run={run} />
      </Panel>
      <Panel
        title="Published signals"
        description={
          <>
            Newest first. Settle a pick after its event has started; trading signals on BTC, ETH and SOL
            settle by themselves at their target, stop or expiry. The results count in the{' '}
            <Link
              to={paths.record}
              className="font-semibold text-emerald-300 underline-offset-4 hover:underline"
            >
              public record
            </Link>
            .
          </>
        }
        actions={
          <div className="flex items-center gap-2">
            <label htmlFor="admin-signals-kind" className="text-sm text-slate-300">
              Show
            </label>
            <select
              id="admin-signals-kind"
              className={`${smallInput} w-44`}
              value={kind}
              onChange={(event) => setKind(event.target.value as typeof kind)}
            >
              <option value="">All signals</option>
              <option value="pick">Sports picks</option>
              <option value="signal">Trading signals</option>
            </select>
          </div>
        }
      >
        {signals.isPending ? <p className="text-sm text-slate-300">Loading signals...</p> : null}
        {signals.isError ? <Alert tone="error">{signals.error.message}</Alert> : null}
        {signals.isSuccess && items.length === 0 ? (
          <p className="text-sm text-slate-300">Nothing published yet.</p>
        ) : null}
        {items.length > 0 ? (
          <ul className="space-y-3">
            {items.map((signal) => (
              <li key={signal.id}>
                <SignalCard signal={signal}>
                  {signal.status === 'open' ? <SignalActions signal={signal} run={run} /> : null}
                </SignalCard>
              </li>
            ))}
          </ul>
        ) : null}
        {signals.hasNextPage ? (
          <Button
            variant="secondary"
            className="mt-4"
            onClick={() => void signals.fetchNextPage()}
            disabled={signals.isFetchingNextPage}
          >
            {signals.isFetchingNextPage ? 'Loading...' : 'Show older signals'}
          </Button>
        ) : null}
      </Panel>
    </div>
  )
}
