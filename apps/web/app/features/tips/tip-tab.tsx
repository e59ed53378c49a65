import { formatMoney, TIP_CURRENCIES, TIP_MESSAGE_MAX, type TipIntent, tipMessages } from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { type FormEvent, useEffect, useState } from 'react'
import { Button } from '../../components/ui/button'
import { CardField } from '../../components/ui/card-field'
import { Alert, Field, SelectInput, TextArea, TextField } from '../../components/ui/field'
import { StripeGate } from '../../components/ui/stripe-gate'
import { paymentKeys } from '../../lib/payment-history-api'
import { useStripeLoad } from '../../lib/stripe-loader'
import { useCardPayment } from '../../lib/use-card-payment'
import { readTipForm, tipCardMessages } from './tip-form'
import { checkTip, createTip } from './tips-api'

/** Digits with up to 2 decimals, kept as the member types (anything else is not let in). */
const PARTIAL_AMOUNT = /^\d*(\.\d{0,2})?$/
const SUCCESS_MS = 5_000

/** The tip flow: details, intent, card form with the amount, confirmation, success for 5 seconds. */
export function TipTab() {
  const stripe = useStripeLoad()
  const [amount, setAmount] = useState('')
  const [currency, setCurrency] = useState<string>('USD')
  const [message, setMessage] = useState('')
  const [errors, setErrors] = useState<{ amount?: string; message?: string }>({})
  const [error, setError] = useState<string | null>(null)
  const [intent, setIntent] = useState<TipIntent | null>(null)
  const [creating, setCreating] = useState(false)
  const [success, setSuccess] = useState(false)

  useEffect(() => {
    if (!success) return
    const timer = setTimeout(() => setSuccess(false), SUCCESS_MS)
    return () => clearTimeout(timer)
  }, [success])

  const create = async (event: FormEvent) => {
    event.preventDefault()
    setError(null)
    setSuccess(false)
    const form = readTipForm({ amount, currency, message })
    if (!form.ok) {
      setErrors({ amount: form.errors.amount, message: form.errors.message })
      // The currency is picked from the schema's own list, so this shows only if the two ever part.
      if (form.errors.currency) setError(form.errors.currency)
      return
    }
    setErrors({})
    setCreating(true)
    try {
      const result = await createTip(form.tip)
      if (!result.success || !result.data) {
        setError(result.status === undefined ? tipMessages.createUnexpected : tipMessages.created)
        return
      }
      setIntent(result.data)
    } catch {
      setError(tipMessages.createUnexpected)
    } finally {
      setCreating(false)
    }
  }

  const done = () => {
    setIntent(null)
    setAmount('')
    setCurrency('USD')
    setMessage('')
    setSuccess(true)
  }

  return (
    <section
      aria-labelledby="tip-heading"
      className="max-w-xl rounded-2xl border border-slate-800 bg-slate-900/70 p-6"
    >
      <h2 id="tip-heading" className="text-lg font-semibold text-white">
        Send a tip
      </h2>
      <p className="mt-1 text-sm text-slate-400">Enjoyed a winning pick? Say thanks to the analysts.</p>
      <div className="mt-4 space-y-4">
        {success ? <Alert tone="success">{tipMessages.success}</Alert> : null}
        {error ? <Alert tone="error">{error}</Alert> : null}
        {intent ? (
          <StripeGate stripe={stripe}>
            <TipPayment
              intent={intent}
              onCancel={() => setIntent(null)}
              onError={setError}
              onSuccess={done}
            />
          </StripeGate>
        ) : (
          <form onSubmit={create} noValidate className="space-y-4">
            <div className="grid gap-4 sm:grid-cols-3">
              <div className="sm:col-span-2">
                <TextField
                  id="tip-amount"
                  label="Amount"
                  error={errors.amount}
                  inputMode="decimal"
                  placeholder="5.00"
                  value={amount}
                  onChange={(event) => {
                    if (!PARTIAL_AMOUNT.test(event.target.value)) return
                    setAmount(event.target.value)
                    setErrors((current) => ({ ...current, amount: undefined }))
                  }}
                />
              </div>
              <Field id="tip-currency" label="Currency">
                <SelectInput
                  id="tip-currency"
                  value={currency}
                  onChange={(event) => setCurrency(event.target.value)}
                >
                  {TIP_CURRENCIES.map((code) => (
                    <option key={code} value={code}>
                      {code}
                    </option>
                  ))}
                </SelectInput>
              </Field>
            </div>
            <Field
              id="tip-message"
              label="Message (optional)"
              error={errors.message}
              hint={`${message.length}/${TIP_MESSAGE_MAX}`}
            >
              <TextArea
                id="tip-message"
                rows={3}
                value={message}
                error={errors.message}
                hasHint
                onChange={(event) => {
                  setMessage(event.target.value)
                  setErrors((current) => ({ ...current, message: undefined }))
                }}
              />
            </Field>
            <Button type="submit" disabled={creating}>
              {creating ? 'Preparing...' : 'Continue to Payment'}
            </Button>
          </form>
        )}
      </div>
    </section>
  )
}

function TipPayment({
  intent,
  onCancel,
  onError,
  onSuccess,
}: {
  intent: TipIntent
  onCancel: () => void
  onError: (message: string | null) => void
  onSuccess: () => void
}) {
  const queryClient = useQueryClient()
  const card = useCardPayment(tipCardMessages)

  const pay = async (event: FormEvent) => {
    event.preventDefault()
    onError(null)
    const result = await card.confirm(intent.clientSecret, async () => {
      await checkTip(intent.tipId)
      await queryClient.invalidateQueries({ queryKey: paymentKeys.all })
    })
    if (result.ok) onSuccess()
    else onError(result.message)
  }

  return (
    <form onSubmit={pay} noValidate className="space-y-4">
      <p className="text-sm text-slate-200">
        Tip amount: <strong className="text-white">{formatMoney(intent.amount, intent.currency)}</strong>
        {intent.message ? <span className="block text-slate-400">“{intent.message}”</span> : null}
      </p>
      <CardField onChange={card.onCardChange} />
      {card.cardError ? (
        <p className="text-sm text-rose-300" role="alert">
          {card.cardError}
        </p>
      ) : null}
      <div className="flex flex-wrap gap-3">
        <Button type="submit" disabled={card.paying || !card.ready}>
          {card.paying ? 'Processing...' : `Send ${formatMoney(intent.amount, intent.currency)} Tip`}
        </Button>
        <Button variant="ghost" onClick={onCancel} disabled={card.paying}>
          Cancel
        </Button>
      </div>
    </form>
  )
}
