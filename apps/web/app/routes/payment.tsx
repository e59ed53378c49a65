import {
  checkoutMessages,
  cryptoMessages,
  formatMoney,
  intervalText,
  type Plan,
  paths,
} from '@edgeclub/shared'
import { type FormEvent, useEffect, useRef, useState } from 'react'
import { Link, Navigate, useLocation, useNavigate } from 'react-router'
import { Button, ButtonLink } from '../components/ui/button'
import { CardField } from '../components/ui/card-field'
import { Alert, TextInput } from '../components/ui/field'
import { CheckIcon } from '../components/ui/icons'
import { Badge } from '../components/ui/layout'
import { StripeGate } from '../components/ui/stripe-gate'
import {
  confirmPayment,
  confirmTrial,
  createCryptoCheckout,
  createPaymentIntent,
  fetchPromoQuote,
  type PaymentSessionState,
  useCryptoEnabled,
} from '../lib/checkout-api'
import {
  type CheckoutRequest,
  type CheckoutStartState,
  type DashboardState,
  type FlashState,
  flashOf,
  type LoginState,
  normalizeCode,
} from '../lib/navigation-state'
import { formatDay } from '../lib/plan-actions'
import { seo } from '../lib/seo'
import { useStripeLoad } from '../lib/stripe-loader'
import { CardFlowError, useCardPayment } from '../lib/use-card-payment'
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
    value?.paymentIntent?.clientSecret &&
      (value.paymentIntent.paymentIntentId || value.paymentIntent.setupIntentId) &&
      value.plan?.name,
  )
}

function checkoutRequestOf(state: unknown): CheckoutRequest | null {
  const request = (state as Partial<CheckoutStartState> | null)?.checkout
  return typeof request?.planId === 'string' ? request : null
}

/** The state a paid checkout leaves in its history entry: going Back or Forward to it never pays or celebrates twice. */
interface CompletedState {
  completed: true
}
function isCompleted(state: unknown): boolean {
  return (state as Partial<CompletedState> | null)?.completed === true
}

/** What the member has just done: paid, or started a free trial (the success screen says which). */
interface Done {
  plan: Plan
  trial: boolean
}

/**
 * The payment page: the plan summary, a promo code, the card form and the 'Pay {amount}' button.
 * It starts from a checkout (the navigation state) or from a plan to check out (from Pricing,
 * sign-in or registration), for which it opens the checkout first.
 */
export default function Payment() {
  const location = useLocation()
  const navigate = useNavigate()
  const { isAuthenticated } = useSession()
  const [done, setDone] = useState<Done | null>(null)
  const request = checkoutRequestOf(location.state)
  const completed = isCompleted(location.state)
  const valid = isPaymentSession(location.state)
  const stripe = useStripeLoad(isAuthenticated && valid)

  useEffect(() => {
    if (!isAuthenticated || valid || request || completed || done) return
    const state: DashboardState = { message: checkoutMessages.selectPlan, type: 'warning' }
    const timer = setTimeout(() => navigate(paths.dashboard, { replace: true, state }), REDIRECT_MS)
    return () => clearTimeout(timer)
  }, [isAuthenticated, valid, request, completed, done, navigate])

  useEffect(() => {
    if (!done) return
    const state: DashboardState = {
      message: done.trial
        ? `Your free trial of the ${done.plan.name} plan has started!`
        : `Successfully subscribed to ${done.plan.name} plan!`,
      type: 'success',
    }
    const timer = setTimeout(() => navigate(paths.dashboard, { replace: true, state }), REDIRECT_MS)
    return () => clearTimeout(timer)
  }, [done, navigate])

  if (!isAuthenticated) {
    const state: LoginState = {
      message: checkoutMessages.signInToPay,
      type: 'info',
      ...(request ? { from: paths.pricing, planId: request.planId, code: request.code } : {}),
    }
    return <Navigate to={paths.login} replace state={state} />
  }

  // Paid here: the success screen, and nothing more to pay (the entry itself no longer holds a checkout).
  if (done) {
    return (
      <Frame>
        <section
          aria-labelledby="done-heading"
          className="mx-auto max-w-lg rounded-2xl border border-emerald-400/40 bg-slate-900/80 p-8 text-center"
        >
          <div role="status" className="space-y-2">
            <h1 id="done-heading" className="text-2xl font-bold text-emerald-300">
              {done.trial ? 'Free trial started!' : 'Payment Successful!'}
            </h1>
            <p className="text-sm text-slate-300">Taking you to your dashboard...</p>
          </div>
        </section>
      </Frame>
    )
  }

  // Back (or Forward) to a checkout paid earlier: nothing to pay and nothing to celebrate again.
  if (completed) return <Navigate to={`${paths.dashboard}?tab=subscription`} replace />

  if (request) return <CheckoutStarter request={request} flash={flashOf(location.state)} />

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

  const session = location.state as PaymentSessionState
  const { paymentIntent, plan } = session
  const finish = (trial: boolean) => {
    setDone({ plan, trial })
    const state: CompletedState = { completed: true }
    navigate(paths.payment, { replace: true, state })
  }
  const replaceSession = (next: PaymentSessionState) =>
    navigate(paths.payment, { replace: true, state: next })
  return (
    <Frame>
      <div className="grid gap-8 lg:grid-cols-2">
        <div className="space-y-6">
          <PlanSummary session={session} />
          <PromoCodeForm session={session} onApplied={replaceSession} />
        </div>
        <section
          aria-labelledby="card-heading"
          className="rounded-2xl border border-slate-800 bg-slate-900/80 p-6"
        >
          <h2 id="card-heading" className="text-lg font-semibold text-white">
            {paymentIntent.setupIntentId ? 'Add a card for your trial' : 'Pay by card'}
          </h2>
          <StripeGate stripe={stripe} className="mt-4">
            <CardPaymentForm session={session} onDone={finish} />
          </StripeGate>
          <CryptoOption plan={plan} promoCode={paymentIntent.promo?.code} />
          <ButtonLink to={paths.pricing} variant="ghost" className="mt-4 w-full">
            Back to Pricing
          </ButtonLink>
        </section>
      </div>
    </Frame>
  )
}

/**
 * Opens the checkout of a plan chosen on Pricing (with the code it carried) and replaces this
 * history entry with it, so Back and reloads find the same checkout.
 */
function CheckoutStarter({ request, flash }: { request: CheckoutRequest; flash: FlashState | null }) {
  const navigate = useNavigate()
  const [error, setError] = useState<string | null>(null)
  const started = useRef(false)

  useEffect(() => {
    if (started.current) return
    started.current = true
    void (async () => {
      let result = await createPaymentIntent(request.planId, request.code)
      // A code that does not apply still leaves the checkout at the full price, with the reason shown.
      let codeRefused: string | undefined
      if (!result.success && request.code && result.status !== undefined && result.code !== 'NOT_FOUND') {
        codeRefused = result.error
        result = await createPaymentIntent(request.planId)
      }
      if (!result.success || !result.data?.plan) {
        setError(
          result.status === undefined
            ? checkoutMessages.unexpected
            : result.code === 'NOT_FOUND'
              ? checkoutMessages.planNotFound
              : (result.error ?? checkoutMessages.intentFailed),
        )
        return
      }
      const state: PaymentSessionState & FlashState = {
        paymentIntent: result.data,
        plan: result.data.plan,
        ...(codeRefused
          ? { message: `${request.code}: ${codeRefused}`, type: 'warning' as const }
          : flash?.message
            ? flash
            : {}),
      }
      navigate(paths.payment, { replace: true, state })
    })()
  }, [request, flash, navigate])

  return (
    <Frame>
      {error ? (
        <div className="space-y-4">
          <Alert tone="error">{error}</Alert>
          <Link to={paths.pricing} className="inline-block font-semibold text-emerald-300 hover:underline">
            Return to Pricing
          </Link>
        </div>
      ) : (
        <p role="status" className="text-slate-300">
          Preparing your checkout...
        </p>
      )}
    </Frame>
  )
}

/** Beside the card: pay the same plan with crypto through BTCPay (when the server offers it), code included. */
function CryptoOption({ plan, promoCode }: { plan: Plan; promoCode?: string }) {
  const enabled = useCryptoEnabled()
  const [error, setError] = useState<string | null>(null)
  const [opening, setOpening] = useState(false)
  if (!enabled) return null
  const open = async () => {
    setOpening(true)
    setError(null)
    const result = await createCryptoCheckout(plan.id, promoCode)
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

function PlanSummary({ session }: { session: PaymentSessionState & FlashState }) {
  const { plan, paymentIntent } = session
  const { amount, currency, promo, trialEndsAt } = paymentIntent
  const shown = plan.features.slice(0, 3)
  const more = plan.features.length - shown.length
  const interval = intervalText(plan)
  return (
    <section
      aria-labelledby="summary-heading"
      className="rounded-2xl border border-slate-800 bg-slate-900/80 p-6"
    >
      {session.message ? (
        <div className="mb-4">
          <Alert tone={session.type ?? 'info'}>{session.message}</Alert>
        </div>
      ) : null}
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
      {promo ? (
        <p className="mt-6 flex items-baseline justify-between border-t border-slate-800 pt-4 text-sm">
          <span className="text-emerald-300">
            Code {promo.code}: {promo.description}
          </span>
          <span className="text-slate-400 line-through">{formatMoney(promo.fullAmount, currency)}</span>
        </p>
      ) : null}
      <p
        className={`flex items-baseline justify-between ${promo ? 'mt-2' : 'mt-6 border-t border-slate-800 pt-4'}`}
      >
        <span className="text-slate-300">{trialEndsAt ? 'Due today' : 'Total'}</span>
        <span className="text-2xl font-bold text-white">{formatMoney(amount, currency)}</span>
      </p>
      {trialEndsAt ? (
        <p className="mt-2 text-sm text-slate-300">
          Free trial: your trial ends {formatDay(trialEndsAt)}, then{' '}
          {formatMoney(promo ? promo.fullAmount : plan.price, currency)}
          {interval ? ` ${interval}` : ''}. Cancel before then and you pay nothing.
        </p>
      ) : null}
    </section>
  )
}

/**
 * "Have a code?": Apply shows the new total (the server's quote) and reopens the checkout with the
 * code, or says why the code is refused (the server's words).
 */
function PromoCodeForm({
  session,
  onApplied,
}: {
  session: PaymentSessionState
  onApplied: (next: PaymentSessionState) => void
}) {
  const applied = session.paymentIntent.promo?.code
  const [code, setCode] = useState(applied ?? '')
  const [error, setError] = useState<string | null>(null)
  const [working, setWorking] = useState(false)

  const apply = async (event: FormEvent) => {
    event.preventDefault()
    const wanted = normalizeCode(code)
    if (!wanted) {
      setError('Enter a code')
      return
    }
    setWorking(true)
    setError(null)
    const quote = await fetchPromoQuote(wanted, session.plan.id)
    if (!quote.success || !quote.data) {
      setWorking(false)
      setError(quote.error ?? checkoutMessages.unexpected)
      return
    }
    const result = await createPaymentIntent(session.plan.id, wanted)
    setWorking(false)
    if (!result.success || !result.data) {
      setError(result.error ?? checkoutMessages.intentFailed)
      return
    }
    onApplied({ paymentIntent: result.data, plan: result.data.plan ?? session.plan })
  }

  return (
    <form
      onSubmit={apply}
      noValidate
      aria-labelledby="promo-heading"
      className="rounded-2xl border border-slate-800 bg-slate-900/80 p-6"
    >
      <h2 id="promo-heading" className="text-sm font-semibold text-white">
        Promo code
      </h2>
      <div className="mt-3 flex gap-3">
        <label htmlFor="promo-code" className="sr-only">
          Promo code
        </label>
        <TextInput
          id="promo-code"
          name="promoCode"
          autoComplete="off"
          value={code}
          error={error ?? undefined}
          onChange={(event) => {
            setCode(event.target.value)
            setError(null)
          }}
          className="uppercase"
        />
        <Button type="submit" variant="secondary" disabled={working || !code.trim()}>
          {working ? 'Applying...' : 'Apply'}
        </Button>
      </div>
      {error ? (
        <p id="promo-code-error" role="alert" className="mt-2 text-sm text-rose-300">
          {error}
        </p>
      ) : applied ? (
        <p role="status" className="mt-2 text-sm text-emerald-300">
          Code {applied} applied. New total:{' '}
          {formatMoney(session.paymentIntent.amount, session.paymentIntent.currency)}
        </p>
      ) : null}
    </form>
  )
}

function CardPaymentForm({
  session: paymentSession,
  onDone,
}: {
  session: PaymentSessionState
  onDone: (trial: boolean) => void
}) {
  const [error, setError] = useState<string | null>(null)
  const [notice, setNotice] = useState<string | null>(null)
  const { paymentIntent } = paymentSession
  const trial = Boolean(paymentIntent.setupIntentId)
  const card = useCardPayment({
    stripeNotLoaded: checkoutMessages.stripeNotLoaded,
    cardMissing: checkoutMessages.stripeNotLoaded,
    declined: checkoutMessages.unexpected,
    notSuccessful: checkoutMessages.notSuccessful,
    unexpected: checkoutMessages.unexpected,
  })

  const serverCheck = async (body: Promise<Awaited<ReturnType<typeof confirmPayment>>>) => {
    const result = await body
    if (!result.success || !result.data) throw new CardFlowError(result.error ?? checkoutMessages.unexpected)
    return result.data
  }

  const pay = async (event: FormEvent) => {
    event.preventDefault()
    setError(null)
    if (!trial) {
      // Stripe, not the browser, decides: the server checks the payment before granting access.
      const result = await card.confirm(paymentIntent.clientSecret, async () => {
        await serverCheck(confirmPayment(paymentIntent.paymentIntentId))
      })
      if (result.ok) onDone(false)
      else setError(result.message)
      return
    }
    // A trial: save the card (SetupIntent), then the server starts the trial. A card that had a trial
    // already pays at once; when its bank asks, the member confirms that payment here too.
    let payNow: { clientSecret: string; paymentIntentId: string; message: string } | null = null
    let started = false
    const saved = await card.confirmSetup(paymentIntent.clientSecret, async () => {
      const confirmation = await serverCheck(confirmTrial(paymentIntent.setupIntentId ?? ''))
      payNow = confirmation.payNow
      started = Boolean(confirmation.trialEndsAt)
    })
    if (!saved.ok) {
      setError(saved.message)
      return
    }
    const due = payNow as { clientSecret: string; paymentIntentId: string; message: string } | null
    if (!due) {
      onDone(started)
      return
    }
    setNotice(due.message)
    const paid = await card.confirmSaved(due.clientSecret, async () => {
      await serverCheck(confirmPayment(due.paymentIntentId))
    })
    if (paid.ok) onDone(false)
    else setError(paid.message)
  }

  return (
    <form onSubmit={pay} className="mt-4 space-y-4" noValidate>
      {error ? <Alert tone="error">{error}</Alert> : null}
      {notice ? <Alert tone="warning">{notice}</Alert> : null}
      <CardField onChange={card.onCardChange} />
      {card.cardError ? (
        <p className="text-sm text-rose-300" role="alert">
          {card.cardError}
        </p>
      ) : null}
      <Button type="submit" className="w-full" disabled={card.paying || !card.ready}>
        {card.paying
          ? 'Processing...'
          : trial
            ? 'Start free trial'
            : `Pay ${formatMoney(paymentIntent.amount, paymentIntent.currency)}`}
      </Button>
      <p className="text-xs text-slate-400">
        {trial
          ? `Nothing is charged today; your trial ends ${formatDay(paymentIntent.trialEndsAt)}.`
          : 'Payments are processed securely by Stripe. We never see your card number.'}
      </p>
    </form>
  )
}
