import { checkoutMessages, cryptoMessages, formatMoney, type Plan, paths } from '@edgeclub/shared'
import { type FormEvent, useEffect, useState } from 'react'
import { Link, Navigate, useLocation, useNavigate } from 'react-router'
import { Button, ButtonLink } from '../components/ui/button'
import { CardField } from '../components/ui/card-field'
import { Alert } from '../components/ui/field'
import { CheckIcon } from '../components/ui/icons'
import { Badge } from '../components/ui/layout'
import { StripeGate } from '../components/ui/stripe-gate'
import { confirmPayment } from '../features/payments/payments-api'
import { createCryptoCheckout, type PaymentSessionState, useCryptoEnabled } from '../lib/checkout-api'
import type { DashboardState, LoginState } from '../lib/navigation-state'
import { seo } from '../lib/seo'
import { useStripeLoad } from '../lib/stripe-loader'
import { useCardPayment } from '../lib/use-card-payment'
import { useSession } from '../lib/use-session'

export function meta() {
  return [
    ...seo('Complete your payment', 'Pay for your EdgeClub membership by card.'),
    { name: 'robots', content: 'noindex' },
  ]
}

/** The success redirect waits 3 seconds. */
export const REDIRECT_MS = 3_000

function isPaymentSession(state: unknown): state is PaymentSessionState {
  const value = state as Partial<PaymentSessionState> | null
  return Boolean(
    value?.paymentIntent?.clientSecret && value.paymentIntent.paymentIntentId && value.plan?.name,
  )
}

/** The payment page: the plan summary, the card form and the 'Pay {amount}' button. */
export default function Payment() {
  const location = useLocation()
  const navigate = useNavigate()
  const { isAuthenticated } = useSession()
  const valid = isPaymentSession(location.state)
  const stripe = useStripeLoad(isAuthenticated && valid)

  useEffect(() => {
    if (!isAuthenticated || valid) return
    const state: DashboardState = { message: checkoutMessages.selectPlan, type: 'warning' }
    const timer = setTimeout(() => navigate(paths.dashboard, { replace: true, state }), REDIRECT_MS)
    return () => clearTimeout(timer)
  }, [isAuthenticated, valid, navigate])

  if (!isAuthenticated) {
    const state: LoginState = { message: checkoutMessages.signInToPay, type: 'info' }
    return <Navigate to={paths.login} replace state={state} />
  }

  if (!valid) {
    return (
      <Frame>
        <h1 className="text-2xl font-bold text-white">{checkoutMessages.invalidSession}</h1>
        <p className="mt-2 text-slate-300">Choose a plan first; we will bring you back here to pay.</p>
        <Link to={paths.pricing} className="mt-6 inline-block font-semibold text-emerald-300 hover:underline">
          Return to Pricing
        </Link>
      </Frame>
    )
  }

  const { paymentIntent, plan } = location.state as PaymentSessionState
  return (
    <Frame>
      <div className="grid gap-8 lg:grid-cols-2">
        <PlanSummary plan={plan} amount={paymentIntent.amount} currency={paymentIntent.currency} />
        <section
          aria-labelledby="card-heading"
          className="rounded-2xl border border-slate-800 bg-slate-900/80 p-6"
        >
          <h2 id="card-heading" className="text-lg font-semibold text-white">
            Pay by card
          </h2>
          <StripeGate stripe={stripe} className="mt-4">
            <CardPaymentForm session={location.state as PaymentSessionState} />
          </StripeGate>
          <CryptoOption plan={plan} />
          <ButtonLink to={paths.pricing} variant="ghost" className="mt-4 w-full">
            Back to Pricing
          </ButtonLink>
        </section>
      </div>
    </Frame>
  )
}

/** Beside the card: pay the same plan with crypto through BTCPay (when the server offers it). */
function CryptoOption({ plan }: { plan: Plan }) {
  const enabled = useCryptoEnabled()
  const [error, setError] = useState<string | null>(null)
  const [opening, setOpening] = useState(false)
  if (!enabled) return null
  const open = async () => {
    setOpening(true)
    setError(null)
    const result = await createCryptoCheckout(plan.id)
    if (result.success && result.data) {
      window.location.assign(result.data.checkoutUrl)
      return
    }
    setOpening(false)
    setError(result.error ?? checkoutMessages.unexpected)
  }
  return (
    <div className="mt-6 border-t border-slate-800 pt-4">
      {error ? <Alert tone="error">{error}</Alert> : null}
      <Button variant="secondary" className="mt-2 w-full" onClick={open} disabled={opening}>
        {opening ? 'Opening checkout...' : cryptoMessages.payWithCrypto}
      </Button>
      <p className="mt-2 text-xs text-slate-400">
        Bitcoin through our own BTCPay Server. Crypto plans do not renew by themselves.
      </p>
    </div>
  )
}

function Frame({ children }: { children: React.ReactNode }) {
  return <div className="mx-auto w-full max-w-5xl px-4 py-12">{children}</div>
}

function PlanSummary({ plan, amount, currency }: { plan: Plan; amount: number; currency: string }) {
  const shown = plan.features.slice(0, 3)
  const more = plan.features.length - shown.length
  return (
    <section
      aria-labelledby="summary-heading"
      className="rounded-2xl border border-slate-800 bg-slate-900/80 p-6"
    >
      <p className="text-sm font-semibold uppercase tracking-wider text-emerald-300">Order summary</p>
      <div className="mt-2 flex flex-wrap items-center gap-3">
        <h1 id="summary-heading" className="text-2xl font-bold text-white">
          {plan.name}
        </h1>
        {plan.isPopular ? <Badge>POPULAR</Badge> : null}
      </div>
      {plan.description ? <p className="mt-2 text-slate-300">{plan.description}</p> : null}
      <ul className="mt-5 space-y-2">
        {shown.map((feature) => (
          <li key={feature} className="flex gap-2 text-sm text-slate-200">
            <CheckIcon className="h-5 w-5 shrink-0 text-emerald-300" />
            {feature}
          </li>
        ))}
      </ul>
      {more > 0 ? <p className="mt-2 text-sm text-slate-400">+{more} more features</p> : null}
      <p className="mt-6 flex items-baseline justify-between border-t border-slate-800 pt-4">
        <span className="text-slate-300">Total</span>
        <span className="text-2xl font-bold text-white">{formatMoney(amount, currency)}</span>
      </p>
    </section>
  )
}

function CardPaymentForm({ session: paymentSession }: { session: PaymentSessionState }) {
  const navigate = useNavigate()
  const [error, setError] = useState<string | null>(null)
  const [succeeded, setSucceeded] = useState(false)
  const { paymentIntent, plan } = paymentSession
  const card = useCardPayment({
    stripeNotLoaded: checkoutMessages.stripeNotLoaded,
    cardMissing: checkoutMessages.stripeNotLoaded,
    declined: checkoutMessages.unexpected,
    notSuccessful: checkoutMessages.notSuccessful,
    unexpected: checkoutMessages.unexpected,
  })

  useEffect(() => {
    if (!succeeded) return
    const state: DashboardState = {
      message: `Successfully subscribed to ${plan.name} plan!`,
      type: 'success',
    }
    const timer = setTimeout(() => navigate(paths.dashboard, { replace: true, state }), REDIRECT_MS)
    return () => clearTimeout(timer)
  }, [succeeded, plan.name, navigate])

  const pay = async (event: FormEvent) => {
    event.preventDefault()
    setError(null)
    // Stripe, not the browser, decides: the server checks the payment before granting access.
    const result = await card.confirm(paymentIntent.clientSecret, async () => {
      await confirmPayment(paymentIntent.paymentIntentId)
    })
    if (result.ok) setSucceeded(true)
    else setError(result.message)
  }

  if (succeeded) {
    return (
      <div className="mt-4 space-y-2" role="status">
        <p className="text-xl font-bold text-emerald-300">Payment Successful!</p>
        <p className="text-sm text-slate-300">Taking you to your dashboard...</p>
      </div>
    )
  }

  return (
    <form onSubmit={pay} className="mt-4 space-y-4" noValidate>
      {error ? <Alert tone="error">{error}</Alert> : null}
      <CardField onChange={card.onCardChange} />
      {card.cardError ? (
        <p className="text-sm text-rose-300" role="alert">
          {card.cardError}
        </p>
      ) : null}
      <Button type="submit" className="w-full" disabled={card.paying || !card.ready}>
        {card.paying ? 'Processing...' : `Pay ${formatMoney(paymentIntent.amount, paymentIntent.currency)}`}
      </Button>
      <p className="text-xs text-slate-400">
        Payments are processed securely by Stripe. We never see your card number.
      </p>
    </form>
  )
}
