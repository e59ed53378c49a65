import { formatMoment, formatMoney, type PaymentView, type Plan, paths } from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useRef } from 'react'
import { useNavigate } from 'react-router'
import { Button, buttonClasses } from '../../components/ui/button'
import { Alert } from '../../components/ui/field'
import { PaymentStatusBadge, paymentTitle } from '../../components/ui/payment-status'
import type { PaymentSessionState } from '../../lib/checkout-api'
import { useActivePlans } from '../../lib/member-plans-api'
import { usePaymentHistory } from '../../lib/payment-history-api'
import { subscriptionKeys } from '../../lib/subscription-status-api'
import { cryptoState } from './crypto-state'

const noteTones = { info: 'text-slate-300', warning: 'text-amber-200', error: 'text-rose-300' } as const

/** When a crypto payment the member was waiting for completes, the membership shown elsewhere follows. */
function useAccessFollowsCrypto(payments: PaymentView[] | undefined) {
  const queryClient = useQueryClient()
  const waiting = useRef(new Set<string>())
  useEffect(() => {
    if (!payments) return
    const completed = payments.some(
      (payment) => waiting.current.has(payment._id) && payment.status === 'completed',
    )
    waiting.current = new Set(
      payments
        .filter((payment) => payment.provider === 'crypto' && payment.status === 'pending')
        .map((payment) => payment._id),
    )
    if (completed) void queryClient.invalidateQueries({ queryKey: subscriptionKeys.status })
  }, [payments, queryClient])
}

function canComplete(payment: PaymentView, plans: Plan[] | undefined): Plan | undefined {
  if (payment.status !== 'pending' || !payment.stripeClientSecret || !payment.stripePaymentIntentId)
    return undefined
  return plans?.find((plan) => plan.id === payment.planId?._id)
}

/** Payment History: the newest payments, 'Complete Payment' for unfinished card ones, and a banner for the first. */
export function PaymentHistoryTab() {
  const navigate = useNavigate()
  const history = usePaymentHistory()
  const plans = useActivePlans()
  useAccessFollowsCrypto(history.data)

  const complete = (payment: PaymentView, plan: Plan) => {
    const state: PaymentSessionState = {
      paymentIntent: {
        clientSecret: payment.stripeClientSecret!,
        paymentIntentId: payment.stripePaymentIntentId!,
        amount: payment.amount,
        currency: payment.currency,
      },
      plan,
    }
    navigate(paths.payment, { state })
  }

  if (history.isPending) return <p className="text-slate-300">Loading your payments...</p>
  if (history.isError) return <Alert tone="error">{history.error.message}</Alert>
  const payments = history.data
  const firstPending = payments.find((payment) => canComplete(payment, plans.data))
  const pendingPlan = firstPending ? canComplete(firstPending, plans.data) : undefined

  return (
    <div className="space-y-6">
      {firstPending && pendingPlan ? (
        <div
          role="status"
          className="flex flex-wrap items-center justify-between gap-3 rounded-xl border border-amber-400/40 bg-amber-500/10 px-4 py-3"
        >
          <p className="text-sm text-amber-100">
            You have an unfinished payment of{' '}
            <strong>{formatMoney(firstPending.amount, firstPending.currency)}</strong> for the{' '}
            {pendingPlan.name} plan.
          </p>
          <Button onClick={() => complete(firstPending, pendingPlan)}>Complete Payment</Button>
        </div>
      ) : null}
      <section
        aria-labelledby="history-heading"
        className="rounded-2xl border border-slate-800 bg-slate-900/70"
      >
        <h2 id="history-heading" className="px-6 pt-6 text-lg font-semibold text-white">
          Your payments
        </h2>
        {payments.length === 0 ? (
          <p className="px-6 pb-6 pt-3 text-slate-300">
            No payments yet. Choose a plan in the Subscription tab to get started.
          </p>
        ) : (
          <ul className="mt-3 divide-y divide-slate-800">
            {payments.map((payment) => {
              const plan = canComplete(payment, plans.data)
              const crypto = cryptoState(payment)
              return (
                <li key={payment._id} className="flex flex-wrap items-center justify-between gap-3 px-6 py-4">
                  <div className="min-w-0">
                    <p className="font-medium text-white">{paymentTitle(payment)}</p>
                    <p className="text-xs text-slate-400">
                      {formatMoment(payment.createdAt)} · by{' '}
                      {payment.provider === 'crypto'
                        ? 'crypto'
                        : payment.provider === 'admin'
                          ? 'EdgeClub'
                          : 'card'}
                    </p>
                    {crypto ? (
                      <p className={`text-xs ${noteTones[crypto.tone]}`}>{crypto.note}</p>
                    ) : payment.failureMessage && payment.status === 'failed' ? (
                      <p className="text-xs text-rose-300">{payment.failureMessage}</p>
                    ) : null}
                  </div>
                  <div className="flex items-center gap-3">
                    <span className="font-semibold tabular-nums text-white">
                      {formatMoney(payment.amount, payment.currency)}
                    </span>
                    <PaymentStatusBadge status={payment.status} />
                    {plan ? (
                      <Button
                        variant="secondary"
                        className="px-3 py-1.5"
                        onClick={() => complete(payment, plan)}
                      >
                        Complete Payment
                      </Button>
                    ) : null}
                    {payment.checkoutUrl && crypto?.canReopen ? (
                      <a href={payment.checkoutUrl} className={buttonClasses('secondary', 'px-3 py-1.5')}>
                        Open Checkout
                      </a>
                    ) : null}
                  </div>
                </li>
              )
            })}
          </ul>
        )}
      </section>
    </div>
  )
}
