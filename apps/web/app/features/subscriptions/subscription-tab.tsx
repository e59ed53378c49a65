import {
  type CancelRequest,
  checkoutMessages,
  cryptoMessages,
  messages,
  type Plan,
  paths,
  sortPlansBySlug,
  UPDATE_CARD_ACTION,
} from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { lazy, Suspense, useEffect, useState } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { Button } from '../../components/ui/button'
import { Alert } from '../../components/ui/field'
import { PlanGrid } from '../../components/ui/plan-grid'
import {
  createCryptoCheckout,
  createPaymentIntent,
  type PaymentSessionState,
  useCryptoEnabled,
} from '../../lib/checkout-api'
import { daysRemaining } from '../../lib/days-remaining'
import { useActivePlans } from '../../lib/member-plans-api'
import { changeLabel, planAction, planNote } from '../../lib/plan-actions'
import { isActive, subscriptionKeys, useSubscriptionStatus } from '../../lib/subscription-status-api'
import { CancelFlow, membershipNotes, PauseForm } from './membership-levers'
import {
  cancelSubscription,
  pauseSubscription,
  resumeSubscription,
  undoPlanChange,
  unpauseSubscription,
} from './subscriptions-api'

// The card panels (Stripe's card field and its loader) load only when the address opens one, not
// with the tab: most visits never show them.
const UpdateCardPanel = lazy(() => import('./card-panels').then((m) => ({ default: m.UpdateCardPanel })))
const ChangePlanPanel = lazy(() => import('./card-panels').then((m) => ({ default: m.ChangePlanPanel })))

/** The subscribe message lasts 5 seconds. */
const MESSAGE_MS = 5_000

/**
 * The Subscription tab: status, days remaining, trial, pause and scheduled change; buying a plan or
 * changing to another; pause and resume; a new card; cancel (with a reason and the owner's offer).
 * The address opens a panel: `&action=update-card` the card form (the failed-renewal email's
 * button), `&change={planId}` the change to that plan (from Pricing).
 */
export function SubscriptionTab() {
  const navigate = useNavigate()
  const [params, setParams] = useSearchParams()
  const queryClient = useQueryClient()
  const status = useSubscriptionStatus()
  const plans = useActivePlans()
  const [processing, setProcessing] = useState<string | null>(null)
  const [message, setMessage] = useState<string | null>(null)
  const [notice, setNotice] = useState<{ text: string; tone: 'success' | 'warning' } | null>(null)
  const [confirmCancel, setConfirmCancel] = useState(false)
  const [pausing, setPausing] = useState(false)
  const [working, setWorking] = useState(false)
  const cryptoEnabled = useCryptoEnabled(!status.isPending && !plans.isPending)
  const updatingCard = params.get('action') === UPDATE_CARD_ACTION
  const changingTo = params.get('change')

  /** Opens or closes a panel kept in the address (so a link or a reload opens it too). */
  const setPanel = (panel: { action?: string; change?: string } | null) => {
    const next = new URLSearchParams(params)
    next.delete('action')
    next.delete('change')
    if (panel?.action) next.set('action', panel.action)
    if (panel?.change) next.set('change', panel.change)
    setParams(next, { replace: true })
  }

  useEffect(() => {
    if (!message) return
    const timer = setTimeout(() => setMessage(null), MESSAGE_MS)
    return () => clearTimeout(timer)
  }, [message])

  const subscribe = async (plan: Plan) => {
    setProcessing(plan.id)
    setMessage(null)
    try {
      const result = await createPaymentIntent(plan.id)
      if (!result.success || !result.data) {
        const reason =
          result.status === undefined
            ? checkoutMessages.unexpected
            : result.code === 'NOT_FOUND'
              ? checkoutMessages.planNotFound
              : result.code === 'CONFLICT'
                ? result.error
                : checkoutMessages.intentFailed
        setMessage(`Failed to subscribe to ${plan.name}. ${reason}`)
        return
      }
      const state: PaymentSessionState = { paymentIntent: result.data, plan }
      navigate(paths.payment, { state })
    } catch {
      setMessage(`Failed to subscribe to ${plan.name}. ${checkoutMessages.unexpected}`)
    } finally {
      setProcessing(null)
    }
  }

  const payWithCrypto = async (plan: Plan) => {
    setProcessing(plan.id)
    setMessage(null)
    const result = await createCryptoCheckout(plan.id)
    if (result.success && result.data) {
      // BTCPay's checkout; it sends the member back to Payment History when done.
      window.location.assign(result.data.checkoutUrl)
      return
    }
    setProcessing(null)
    setMessage(
      `Failed to subscribe to ${plan.name}. ${result.status === undefined ? checkoutMessages.unexpected : (result.error ?? cryptoMessages.startFailed)}`,
    )
  }

  const subscription = status.data?.activeSubscription ?? null
  const active = isActive(status.data)
  const refresh = () => queryClient.invalidateQueries({ queryKey: subscriptionKeys.status })

  const cancel = async (reason?: CancelRequest) => {
    if (!subscription) return
    setWorking(true)
    const result = await cancelSubscription(subscription._id, reason)
    setWorking(false)
    setConfirmCancel(false)
    setMessage(result.success ? null : (result.error ?? 'Could not cancel'))
    await refresh()
  }
  const pause = async (periods: 1 | 2 | 3) => {
    setWorking(true)
    const result = await pauseSubscription(periods)
    setWorking(false)
    setPausing(false)
    setMessage(result.success ? null : `Failed to pause. ${result.error ?? checkoutMessages.unexpected}`)
    await refresh()
  }
  const unpause = async () => {
    setWorking(true)
    const result = await unpauseSubscription()
    setWorking(false)
    setMessage(result.success ? null : `Failed to resume. ${result.error ?? checkoutMessages.unexpected}`)
    if (result.success)
      setNotice({
        text: result.data?.clientSecret
          ? 'Your bank asks you to confirm the payment: complete it in Payment History.'
          : 'Your membership is running again.',
        tone: result.data?.clientSecret ? 'warning' : 'success',
      })
    await refresh()
  }
  const undo = async () => {
    setWorking(true)
    const result = await undoPlanChange()
    setWorking(false)
    setMessage(result.success ? null : `Failed to undo. ${result.error ?? checkoutMessages.unexpected}`)
    await refresh()
  }
  const afterPanel = async (text: string, tone: 'success' | 'warning' = 'success') => {
    setPanel(null)
    setNotice({ text, tone })
    await refresh()
  }
  const resume = async () => {
    if (!subscription) return
    setWorking(true)
    const result = await resumeSubscription(subscription._id)
    setWorking(false)
    setMessage(result.success ? null : (result.error ?? 'Could not resume'))
    await refresh()
  }

  const notes = membershipNotes(subscription)
  const renewingCard =
    Boolean(status.data?.hasAccess) &&
    subscription?.provider === 'stripe' &&
    subscription.endDate !== null &&
    ['active', 'trialing', 'past_due'].includes(subscription.status)
  const paused = Boolean(subscription?.resumesAt)
  const statusLabel = active
    ? 'Active'
    : subscription?.status === 'trialing' && status.data?.hasAccess
      ? 'Trial'
      : subscription?.status === 'paused'
        ? 'Paused'
        : status.data?.hasAccess && subscription?.status === 'past_due'
          ? 'Past due'
          : 'Inactive'
  const changePlanTo = changingTo ? plans.data?.find((plan) => plan.id === changingTo) : undefined

  return (
    <div className="space-y-6">
      <section
        aria-labelledby="membership-heading"
        className="rounded-2xl border border-slate-800 bg-slate-900/70 p-6"
      >
        <h2 id="membership-heading" className="text-lg font-semibold text-white">
          Your membership
        </h2>
        {status.isPending ? (
          <p className="mt-3 text-slate-300">Loading your subscription...</p>
        ) : status.isError ? (
          <div className="mt-3">
            <Alert tone="error">{status.error.message}</Alert>
          </div>
        ) : (
          <dl className="mt-4 grid gap-4 sm:grid-cols-3">
            <div>
              <dt className="text-xs uppercase tracking-wide text-slate-400">Status</dt>
              <dd
                className={`mt-1 text-xl font-bold ${active || statusLabel === 'Trial' ? 'text-emerald-300' : 'text-slate-200'}`}
              >
                {statusLabel}
              </dd>
            </div>
            <div>
              <dt className="text-xs uppercase tracking-wide text-slate-400">Plan</dt>
              <dd className="mt-1 text-xl font-bold text-white">{subscription?.planId.name ?? 'None'}</dd>
            </div>
            <div>
              <dt className="text-xs uppercase tracking-wide text-slate-400">Days remaining</dt>
              <dd className="mt-1 text-xl font-bold text-white">
                {subscription && !subscription.endDate && status.data?.hasAccess
                  ? 'Lifetime'
                  : daysRemaining(subscription?.endDate)}
              </dd>
            </div>
          </dl>
        )}
        {notes.trial || notes.paused || notes.switches ? (
          <div className="mt-4 space-y-2">
            {notes.trial ? <p className="font-semibold text-emerald-200">{notes.trial}</p> : null}
            {notes.paused ? (
              <div className="flex flex-wrap items-center gap-3">
                <p className="font-semibold text-amber-200">{notes.paused}</p>
                <Button variant="secondary" onClick={unpause} disabled={working}>
                  Resume
                </Button>
              </div>
            ) : null}
            {notes.switches ? (
              <div className="flex flex-wrap items-center gap-3">
                <p className="font-semibold text-sky-200">{notes.switches}</p>
                <Button variant="secondary" onClick={undo} disabled={working}>
                  Undo
                </Button>
              </div>
            ) : null}
          </div>
        ) : null}
        {subscription?.provider === 'crypto' && subscription.endDate && status.data?.hasAccess ? (
          daysRemaining(subscription.endDate) <= 3 ? (
            <div className="mt-4">
              <Alert tone="warning">
                Crypto payments do not renew by themselves: your plan ends in{' '}
                {daysRemaining(subscription.endDate)} days. Pay again with crypto below to add another period.
              </Alert>
            </div>
          ) : (
            <p className="mt-4 text-sm text-slate-300">
              Paid with crypto: this plan does not renew by itself. Pay again with crypto at any time to add
              another period after this one.
            </p>
          )
        ) : null}
        {subscription?.status === 'past_due' && status.data?.hasAccess ? (
          <div className="mt-4">
            <Alert tone="warning">
              Your last renewal was declined. Update your card to keep your access: the renewal is charged to
              it at once.
            </Alert>
          </div>
        ) : null}
        {renewingCard && subscription ? (
          <div className="mt-5 flex flex-wrap items-center gap-3">
            {subscription.cancelAtPeriodEnd ? (
              <>
                <p className="text-sm text-amber-200">
                  Your plan will not renew; access ends in {daysRemaining(subscription.endDate)} days.
                </p>
                <Button variant="secondary" onClick={resume} disabled={working}>
                  Resume Subscription
                </Button>
              </>
            ) : (
              <>
                <Button variant="secondary" onClick={() => setPanel({ action: UPDATE_CARD_ACTION })}>
                  Update card
                </Button>
                {!paused && subscription.status !== 'trialing' ? (
                  <Button
                    variant="secondary"
                    onClick={() => {
                      setPausing(true)
                      setConfirmCancel(false)
                    }}
                  >
                    Pause
                  </Button>
                ) : null}
                <Button
                  variant="secondary"
                  onClick={() => {
                    setConfirmCancel(true)
                    setPausing(false)
                  }}
                >
                  Cancel Subscription
                </Button>
              </>
            )}
          </div>
        ) : null}
        {renewingCard && pausing && subscription ? (
          <PauseForm
            interval={subscription.planId.interval}
            working={working}
            onPause={pause}
            onClose={() => setPausing(false)}
          />
        ) : null}
        {renewingCard && confirmCancel && !subscription?.cancelAtPeriodEnd ? (
          <CancelFlow
            working={working}
            onCancel={cancel}
            onClose={() => setConfirmCancel(false)}
            onKept={async (text) => {
              setConfirmCancel(false)
              setNotice({ text, tone: 'success' })
              await refresh()
            }}
          />
        ) : null}
      </section>

      {notice ? <Alert tone={notice.tone}>{notice.text}</Alert> : null}

      <Suspense fallback={null}>
        {updatingCard ? <UpdateCardPanel onClose={() => setPanel(null)} onSaved={afterPanel} /> : null}
        {changePlanTo && !updatingCard ? (
          <ChangePlanPanel plan={changePlanTo} onClose={() => setPanel(null)} onChanged={afterPanel} />
        ) : null}
      </Suspense>

      {message ? (
        <p
          role="alert"
          className={`rounded-lg border px-4 py-3 text-sm ${message.includes('Failed') ? 'border-rose-400/40 bg-rose-500/10 text-rose-200' : 'border-slate-700 text-slate-200'}`}
        >
          {message}
        </p>
      ) : null}

      {/* Once the membership above is known: shown before, the plans moved down as it arrived. */}
      {status.isPending ? null : (
        <section aria-labelledby="plans-heading">
          <h2 id="plans-heading" className="mb-4 text-lg font-semibold text-white">
            {status.data?.hasAccess ? 'Plans' : 'Choose a plan'}
          </h2>
          {plans.isPending ? <p className="text-slate-300">{messages.pricing.loading}</p> : null}
          {plans.isError ? <Alert tone="error">{messages.pricing.failed}</Alert> : null}
          {plans.data ? (
            <PlanGrid
              plans={sortPlansBySlug(plans.data)}
              onChoose={(plan) => {
                if (planAction(plan, status.data) === 'change') setPanel({ change: plan.id })
                else void subscribe(plan)
              }}
              labelFor={(plan) =>
                processing === plan.id
                  ? 'Processing...'
                  : planAction(plan, status.data) === 'change'
                    ? changeLabel(plan)
                    : undefined
              }
              isDisabled={() => processing !== null}
              noteFor={(plan) => planNote(planAction(plan, status.data))}
              secondaryFor={
                cryptoEnabled
                  ? (plan) =>
                      ['subscribe', 'extend'].includes(planAction(plan, status.data))
                        ? { label: cryptoMessages.payWithCrypto, onClick: () => void payWithCrypto(plan) }
                        : undefined
                  : undefined
              }
            />
          ) : null}
        </section>
      )}
    </div>
  )
}
