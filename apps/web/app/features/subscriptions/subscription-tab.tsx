import {
  checkoutMessages,
  cryptoMessages,
  messages,
  type Plan,
  paths,
  sortPlansBySlug,
} from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef, useState } from 'react'
import { useLocation, useNavigate } from 'react-router'
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
import type { DashboardState } from '../../lib/navigation-state'
import { isActive, subscriptionKeys, useSubscriptionStatus } from '../../lib/subscription-status-api'
import { cancelSubscription, resumeSubscription } from './subscriptions-api'

/** The subscribe message lasts 5 seconds. */
const MESSAGE_MS = 5_000

/** The Subscription tab: status, days remaining, buying a plan, cancel and resume. */
export function SubscriptionTab() {
  const navigate = useNavigate()
  const location = useLocation()
  const queryClient = useQueryClient()
  const status = useSubscriptionStatus()
  const plans = useActivePlans()
  const [processing, setProcessing] = useState<string | null>(null)
  const [message, setMessage] = useState<string | null>(null)
  const [confirmCancel, setConfirmCancel] = useState(false)
  const [working, setWorking] = useState(false)
  const resumed = useRef(false)
  const cryptoEnabled = useCryptoEnabled()

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

  // Coming from Pricing through sign-in: carry on with the plan the visitor picked (once).
  const pendingPlanId = (location.state as DashboardState | null)?.planId
  useEffect(() => {
    if (!pendingPlanId || resumed.current || !plans.data || !status.data) return
    resumed.current = true
    const plan = plans.data.find((candidate) => candidate.id === pendingPlanId)
    if (!plan) {
      setMessage(`Failed to subscribe to your plan. ${checkoutMessages.planNotFound}`)
      return
    }
    if (!status.data.hasAccess) void subscribe(plan)
  })

  const subscription = status.data?.activeSubscription ?? null
  const active = isActive(status.data)
  const refresh = () => queryClient.invalidateQueries({ queryKey: subscriptionKeys.status })

  const cancel = async () => {
    if (!subscription) return
    setWorking(true)
    const result = await cancelSubscription(subscription._id)
    setWorking(false)
    setConfirmCancel(false)
    setMessage(result.success ? null : (result.error ?? 'Could not cancel'))
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
              <dd className={`mt-1 text-xl font-bold ${active ? 'text-emerald-300' : 'text-slate-200'}`}>
                {active ? 'Active' : 'Inactive'}
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
              Your last renewal was declined. Pay from Payment History to keep your access.
            </Alert>
          </div>
        ) : null}
        {active && subscription?.endDate && subscription.provider === 'stripe' ? (
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
            ) : confirmCancel ? (
              <>
                <p className="text-sm text-slate-200">
                  Stop renewing? You keep access until the end of this period.
                </p>
                <Button variant="danger" onClick={cancel} disabled={working}>
                  Yes, cancel renewal
                </Button>
                <Button variant="ghost" onClick={() => setConfirmCancel(false)} disabled={working}>
                  Keep my plan
                </Button>
              </>
            ) : (
              <Button variant="secondary" onClick={() => setConfirmCancel(true)}>
                Cancel Subscription
              </Button>
            )}
          </div>
        ) : null}
      </section>

      {message ? (
        <p
          role="alert"
          className={`rounded-lg border px-4 py-3 text-sm ${message.includes('Failed') ? 'border-rose-400/40 bg-rose-500/10 text-rose-200' : 'border-slate-700 text-slate-200'}`}
        >
          {message}
        </p>
      ) : null}

      <section aria-labelledby="plans-heading">
        <h2 id="plans-heading" className="mb-4 text-lg font-semibold text-white">
          {status.data?.hasAccess ? 'Plans' : 'Choose a plan'}
        </h2>
        {plans.isPending ? <p className="text-slate-300">{messages.pricing.loading}</p> : null}
        {plans.isError ? <Alert tone="error">{messages.pricing.failed}</Alert> : null}
        {plans.data ? (
          <PlanGrid
            plans={sortPlansBySlug(plans.data)}
            onChoose={subscribe}
            labelFor={(plan) => (processing === plan.id ? 'Processing...' : undefined)}
            isDisabled={() => processing !== null}
            secondaryFor={
              cryptoEnabled
                ? (plan) => ({ label: cryptoMessages.payWithCrypto, onClick: () => void payWithCrypto(plan) })
                : undefined
            }
          />
        ) : null}
      </section>
    </div>
  )
}
