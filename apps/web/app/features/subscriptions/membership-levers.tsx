import {
  CANCEL_REASON_LABELS,
  CANCEL_REASONS,
  type CancelRequest,
  PAUSE_PERIODS,
  type RetentionOffer,
  type SubscriptionView,
} from '@edgeclub/shared'
import { type FormEvent, useState } from 'react'
import { Button } from '../../components/ui/button'
import { Alert, Field, SelectInput, TextArea } from '../../components/ui/field'
import { formatDay } from '../../lib/plan-actions'
import { acceptRetention, fetchRetentionOffer } from './subscriptions-api'

type Reason = NonNullable<CancelRequest['reason']>

/** "Trial — ends {date}", "Paused — resumes {date}", "Switches to {plan} on {date}": the lines under the status. */
export function membershipNotes(
  subscription: Pick<SubscriptionView, 'status' | 'trialEndsAt' | 'resumesAt' | 'scheduledChange'> | null,
): { trial?: string; paused?: string; switches?: string } {
  if (!subscription) return {}
  return {
    ...(subscription.status === 'trialing' && subscription.trialEndsAt
      ? { trial: `Trial — ends ${formatDay(subscription.trialEndsAt)}` }
      : {}),
    ...(subscription.resumesAt ? { paused: `Paused — resumes ${formatDay(subscription.resumesAt)}` } : {}),
    ...(subscription.scheduledChange
      ? {
          switches: `Switches to ${subscription.scheduledChange.planName} on ${formatDay(subscription.scheduledChange.effectiveAt)}`,
        }
      : {}),
  }
}

function periodsLabel(periods: number, interval: string): string {
  return `${periods} ${interval}${periods === 1 ? '' : 's'}`
}

/** Pause for 1, 2 or 3 billing periods, from the end of the paid one. */
export function PauseForm({
  interval,
  working,
  onPause,
  onClose,
}: {
  interval: string
  working: boolean
  onPause: (periods: 1 | 2 | 3) => void
  onClose: () => void
}) {
  const [periods, setPeriods] = useState<1 | 2 | 3>(1)
  return (
    <form
      className="mt-4 flex flex-wrap items-end gap-3 rounded-xl border border-slate-800 p-4"
      onSubmit={(event) => {
        event.preventDefault()
        onPause(periods)
      }}
    >
      <div className="min-w-48">
        <Field id="pause-periods" label="Pause for">
          <SelectInput
            id="pause-periods"
            value={String(periods)}
            onChange={(event) => setPeriods(Number(event.target.value) as 1 | 2 | 3)}
          >
            {PAUSE_PERIODS.map((value) => (
              <option key={value} value={value}>
                {periodsLabel(value, interval)}
              </option>
            ))}
          </SelectInput>
        </Field>
      </div>
      <Button type="submit" disabled={working}>
        Pause membership
      </Button>
      <Button type="button" variant="ghost" onClick={onClose} disabled={working}>
        Keep it running
      </Button>
      <p className="w-full text-xs text-slate-400">
        Nothing is charged while paused. You keep access until the end of this period, and can resume any
        time.
      </p>
    </form>
  )
}

/**
 * Cancelling: first why (a short list and free text), then, when the owner set one, the offer to
 * stay (a code on the plan, or a pause), then the confirmation.
 */
export function CancelFlow({
  working,
  onCancel,
  onKept,
  onClose,
}: {
  working: boolean
  onCancel: (reason: CancelRequest) => void
  onKept: (message: string) => void
  onClose: () => void
}) {
  const [reason, setReason] = useState<Reason | ''>('')
  const [detail, setDetail] = useState('')
  const [error, setError] = useState<string | null>(null)
  const [offer, setOffer] = useState<RetentionOffer | null>(null)
  const [busy, setBusy] = useState(false)
  const [periods, setPeriods] = useState<1 | 2 | 3>(1)

  const answer = (): CancelRequest => ({
    ...(reason ? { reason } : {}),
    ...(detail.trim() ? { detail: detail.trim() } : {}),
  })

  const next = async (event: FormEvent) => {
    event.preventDefault()
    if (!reason) {
      setError('Choose a reason')
      return
    }
    setError(null)
    setBusy(true)
    const result = await fetchRetentionOffer()
    setBusy(false)
    const offered = result.success && result.data && (result.data.code || result.data.pause)
    if (offered && result.data) setOffer(result.data)
    else onCancel(answer())
  }

  const stay = async (kind: 'code' | 'pause') => {
    setBusy(true)
    setError(null)
    const result = await acceptRetention({
      offer: kind,
      ...(kind === 'pause' ? { periods } : {}),
      ...answer(),
    })
    setBusy(false)
    if (!result.success || !result.data) {
      setError(result.error ?? 'Something went wrong')
      return
    }
    onKept(
      kind === 'pause' && result.data.resumesAt
        ? `Paused — resumes ${formatDay(result.data.resumesAt)}`
        : (result.message ?? 'Glad you stay!'),
    )
  }

  if (offer) {
    return (
      <section
        aria-labelledby="stay-heading"
        className="mt-4 space-y-4 rounded-xl border border-emerald-400/30 bg-emerald-400/5 p-4"
      >
        <h3 id="stay-heading" className="font-semibold text-white">
          Before you go
        </h3>
        {error ? <Alert tone="error">{error}</Alert> : null}
        {offer.code ? (
          <div className="flex flex-wrap items-center gap-3">
            <p className="text-sm text-slate-200">
              Stay with code <strong>{offer.code.code}</strong>: {offer.code.description}.
            </p>
            <Button onClick={() => stay('code')} disabled={busy || working}>
              Stay with {offer.code.code}
            </Button>
          </div>
        ) : null}
        {offer.pause ? (
          <div className="flex flex-wrap items-end gap-3">
            <div className="min-w-48">
              <Field id="stay-pause-periods" label="Or take a break for">
                <SelectInput
                  id="stay-pause-periods"
                  value={String(periods)}
                  onChange={(event) => setPeriods(Number(event.target.value) as 1 | 2 | 3)}
                >
                  {PAUSE_PERIODS.map((value) => (
                    <option key={value} value={value}>
                      {value} billing period{value === 1 ? '' : 's'}
                    </option>
                  ))}
                </SelectInput>
              </Field>
            </div>
            <Button variant="secondary" onClick={() => stay('pause')} disabled={busy || working}>
              Pause instead
            </Button>
          </div>
        ) : null}
        <div className="flex flex-wrap gap-3 border-t border-slate-800 pt-4">
          <Button variant="danger" onClick={() => onCancel(answer())} disabled={busy || working}>
            Yes, cancel renewal
          </Button>
          <Button variant="ghost" onClick={onClose} disabled={busy || working}>
            Keep my plan
          </Button>
        </div>
      </section>
    )
  }

  return (
    <form onSubmit={next} noValidate className="mt-4 space-y-4 rounded-xl border border-slate-800 p-4">
      <p className="text-sm text-slate-200">Stop renewing? You keep access until the end of this period.</p>
      <fieldset>
        <legend className="mb-2 text-sm font-medium text-slate-200">Why are you leaving?</legend>
        <div className="grid gap-2 sm:grid-cols-2">
          {CANCEL_REASONS.map((value) => (
            <label key={value} className="flex items-center gap-2 text-sm text-slate-200">
              <input
                type="radio"
                name="cancel-reason"
                value={value}
                checked={reason === value}
                onChange={() => {
                  setReason(value)
                  setError(null)
                }}
                className="h-4 w-4 accent-emerald-400"
              />
              {CANCEL_REASON_LABELS[value]}
            </label>
          ))}
        </div>
        {error ? (
          <p role="alert" className="mt-2 text-sm text-rose-300">
            {error}
          </p>
        ) : null}
      </fieldset>
      <Field id="cancel-detail" label="Anything else? (optional)">
        <TextArea
          id="cancel-detail"
          rows={2}
          maxLength={500}
          value={detail}
          onChange={(event) => setDetail(event.target.value)}
        />
      </Field>
      <div className="flex flex-wrap gap-3">
        <Button type="submit" variant="danger" disabled={busy || working}>
          {busy ? 'One moment...' : 'Continue to cancel'}
        </Button>
        <Button type="button" variant="ghost" onClick={onClose} disabled={busy || working}>
          Keep my plan
        </Button>
      </div>
    </form>
  )
}
