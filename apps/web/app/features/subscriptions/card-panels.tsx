import {
  billingMessages,
  type ChangePlanPreview,
  checkoutMessages,
  formatMoney,
  type Plan,
} from '@edgeclub/shared'
import { type FormEvent, type ReactNode, useEffect, useRef, useState } from 'react'
import { Button } from '../../components/ui/button'
import { CardField } from '../../components/ui/card-field'
import { Alert } from '../../components/ui/field'
import { StripeGate } from '../../components/ui/stripe-gate'
import { confirmPayment } from '../../lib/checkout-api'
import { formatDay } from '../../lib/plan-actions'
import { useStripeLoad } from '../../lib/stripe-loader'
import { CardFlowError, type CardResult, useCardPayment } from '../../lib/use-card-payment'
import { changePlan, finishCardUpdate, previewPlanChange, startCardUpdate } from './subscriptions-api'

const cardMessages = {
  stripeNotLoaded: checkoutMessages.stripeNotLoaded,
  cardMissing: checkoutMessages.stripeNotLoaded,
  declined: checkoutMessages.unexpected,
  notSuccessful: checkoutMessages.notSuccessful,
  unexpected: checkoutMessages.unexpected,
}

function Panel({ title, id, children }: { title: string; id: string; children: ReactNode }) {
  return (
    <section aria-labelledby={id} className="rounded-2xl border border-emerald-400/30 bg-slate-900/80 p-6">
      <h2 id={id} className="text-lg font-semibold text-white">
        {title}
      </h2>
      {children}
    </section>
  )
}

/** The card form's submit: the card typed in Stripe's element, confirmed with `run`. */
function CardForm({
  submitLabel,
  run,
  onCancel,
}: {
  submitLabel: string
  run: (card: ReturnType<typeof useCardPayment>) => Promise<CardResult>
  onCancel: () => void
}) {
  const card = useCardPayment(cardMessages)
  const [error, setError] = useState<string | null>(null)
  const submit = async (event: FormEvent) => {
    event.preventDefault()
    setError(null)
    const result = await run(card)
    if (!result.ok) setError(result.message)
  }
  return (
    <form onSubmit={submit} noValidate className="mt-4 space-y-4">
      {error ? <Alert tone="error">{error}</Alert> : null}
      <CardField onChange={card.onCardChange} />
      {card.cardError ? (
        <p className="text-sm text-rose-300" role="alert">
          {card.cardError}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-3">
        <Button type="submit" disabled={card.paying || !card.ready}>
          {card.paying ? 'Processing...' : submitLabel}
        </Button>
        <Button type="button" variant="ghost" onClick={onCancel} disabled={card.paying}>
          Cancel
        </Button>
      </div>
    </form>
  )
}

/**
 * "Update card": a SetupIntent from the server, confirmed in the card form, becomes the card the
 * renewals are charged to; an open renewal invoice is retried with it at once and the answer shown.
 */
export function UpdateCardPanel({
  onClose,
  onSaved,
}: {
  onClose: () => void
  onSaved: (message: string, tone: 'success' | 'warning') => void
}) {
  const [setup, setSetup] = useState<{ clientSecret: string; setupIntentId: string } | null>(null)
  const [error, setError] = useState<string | null>(null)
  const stripe = useStripeLoad(setup !== null)
  const asked = useRef(false)

  useEffect(() => {
    if (asked.current) return
    asked.current = true
    startCardUpdate().then((result) => {
      if (result.success && result.data) setSetup(result.data)
      else setError(result.error ?? billingMessages.cardSetupFailed)
    })
  }, [])

  return (
    <Panel title="Update card" id="update-card-heading">
      <p className="mt-1 text-sm text-slate-300">
        The new card is used for your renewals; an unpaid renewal is charged to it at once.
      </p>
      {error ? (
        <div className="mt-4 space-y-3">
          <Alert tone="error">{error}</Alert>
          <Button variant="ghost" onClick={onClose}>
            Close
          </Button>
        </div>
      ) : !setup ? (
        <p role="status" className="mt-4 text-sm text-slate-300">
          Loading secure card form...
        </p>
      ) : (
        <StripeGate stripe={stripe} className="mt-4">
          <CardForm
            submitLabel="Save card"
            onCancel={onClose}
            run={async (card) => {
              let message = ''
              let tone: 'success' | 'warning' = 'success'
              const saved = await card.confirmSetup(setup.clientSecret, async () => {
                const result = await finishCardUpdate(setup.setupIntentId)
                if (!result.success || !result.data)
                  throw new CardFlowError(result.error ?? billingMessages.cardSetupFailed)
                message = result.data.message
                if (result.data.retried === 'failed') tone = 'warning'
                // The retried renewal needs the bank's confirmation: ask for it here.
                if (result.data.retried === 'requires_action' && result.data.clientSecret) {
                  const secret = result.data.clientSecret
                  const stripeJs = card
                  const confirmed = await stripeJs.confirmSaved(secret, async () => undefined)
                  if (!confirmed.ok) throw new CardFlowError(confirmed.message)
                }
              })
              if (saved.ok) onSaved(message || 'Your card is updated.', tone)
              return saved
            }}
          />
        </StripeGate>
      )}
    </Panel>
  )
}

/**
 * Changing plan: first the exact amount due today (Stripe's invoice preview with proration), then
 * the change. An upgrade is paid at once with the saved card, or confirmed in the card form when the
 * bank asks (3-D Secure); a downgrade waits for the renewal ("Switches to {plan} on {date}").
 */
export function ChangePlanPanel({
  plan,
  onClose,
  onChanged,
}: {
  plan: Plan
  onClose: () => void
  onChanged: (message: string) => void
}) {
  const [preview, setPreview] = useState<ChangePlanPreview | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [working, setWorking] = useState(false)
  const [confirmation, setConfirmation] = useState<{ clientSecret: string; paymentIntentId: string } | null>(
    null,
  )
  const stripe = useStripeLoad(confirmation !== null)

  useEffect(() => {
    let current = true
    setPreview(null)
    setError(null)
    previewPlanChange(plan.id).then((result) => {
      if (!current) return
      if (result.success && result.data) setPreview(result.data)
      else setError(result.error ?? checkoutMessages.unexpected)
    })
    return () => {
      current = false
    }
  }, [plan.id])

  const switched = `You are now on the ${plan.name} plan.`
  const confirm = async () => {
    if (!preview) return
    setWorking(true)
    setError(null)
    const result = await changePlan(plan.id, preview.prorationDate)
    setWorking(false)
    if (!result.success || !result.data) {
      setError(result.error ?? checkoutMessages.unexpected)
      return
    }
    const changed = result.data
    if (changed.scheduled) onChanged(`Switches to ${plan.name} on ${formatDay(changed.effectiveAt)}`)
    else if (changed.clientSecret && changed.paymentIntentId)
      setConfirmation({ clientSecret: changed.clientSecret, paymentIntentId: changed.paymentIntentId })
    else onChanged(switched)
  }

  const dueNow = preview ? formatMoney(preview.amountDueNow, preview.currency) : ''
  return (
    <Panel title={`Change to ${plan.name}`} id="change-plan-heading">
      {error ? (
        <div className="mt-4">
          <Alert tone="error">{error}</Alert>
        </div>
      ) : null}
      {!preview && !error ? (
        <p role="status" className="mt-4 text-sm text-slate-300">
          Working out the amount...
        </p>
      ) : null}
      {preview && !confirmation ? (
        <div className="mt-4 space-y-4">
          {preview.kind === 'downgrade' ? (
            <p className="text-slate-200">
              Your plan switches to {plan.name} on {formatDay(preview.effectiveAt)}, at your renewal. Nothing
              is due today.
            </p>
          ) : (
            <p className="text-slate-200">
              Due today: <strong className="text-xl text-white">{dueNow}</strong>
              <span className="block text-sm text-slate-400">
                {plan.name} starts now; the unused part of your current plan is taken off.
              </span>
            </p>
          )}
          <div className="flex flex-wrap gap-3">
            <Button onClick={confirm} disabled={working}>
              {working
                ? 'Processing...'
                : preview.kind === 'downgrade'
                  ? `Switch on ${formatDay(preview.effectiveAt)}`
                  : `Pay ${dueNow} and switch`}
            </Button>
            <Button variant="ghost" onClick={onClose} disabled={working}>
              Keep my plan
            </Button>
          </div>
        </div>
      ) : null}
      {confirmation ? (
        <>
          <p className="mt-3 text-sm text-amber-200">
            Your bank asks you to confirm this payment with your card.
          </p>
          <StripeGate stripe={stripe} className="mt-4">
            <CardForm
              submitLabel={`Pay ${dueNow}`}
              onCancel={onClose}
              run={async (card) => {
                const paid = await card.confirm(confirmation.clientSecret, async () => {
                  const result = await confirmPayment(confirmation.paymentIntentId)
                  if (!result.success) throw new CardFlowError(result.error ?? checkoutMessages.unexpected)
                })
                if (paid.ok) onChanged(switched)
                return paid
              }}
            />
          </StripeGate>
        </>
      ) : null}
    </Panel>
  )
}
