import { type PaymentView, RefundResultSchema, RefundSchema } from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useId, useState } from 'react'
import { ConfirmButton, failureText, money, type NoticeState, smallInput } from '../../components/ui/console'
import { act } from './admin-api'

/** What the refund needs of a payment, from the member page's list or the payments table alike. */
export type RefundablePayment = Pick<
  PaymentView,
  'id' | 'amount' | 'amountRefunded' | 'currency' | 'status' | 'provider' | 'userEmail'
>

/** Card payments only (the API refunds through Stripe); crypto and complimentary ones are settled elsewhere. */
export const isRefundable = (payment: RefundablePayment) =>
  payment.provider === 'stripe' && (payment.status === 'completed' || payment.status === 'partially_refunded')

/** Refund a card payment, in full (the default) or in part, with an optional reason; asks first. */
export function RefundButton({
  payment,
  onResult,
}: {
  payment: RefundablePayment
  onResult: (notice: NoticeState) => void
}) {
  const queryClient = useQueryClient()
  const ids = useId()
  const [amount, setAmount] = useState('')
  const [reason, setReason] = useState('')
  const [error, setError] = useState<string | null>(null)
  const remaining = Math.round((payment.amount - payment.amountRefunded) * 100) / 100

  const refund = async () => {
    setError(null)
    const parsed = RefundSchema.safeParse({
      amount: amount.trim() === '' ? undefined : Number(amount),
      reason: reason.trim() || undefined,
    })
    if (!parsed.success) {
      setError(parsed.error.issues[0]?.message ?? 'Check the refund')
      return false
    }
    if (parsed.data.amount !== undefined && parsed.data.amount > remaining) {
      setError(`Refund at most ${money(remaining, payment.currency)}`)
      return false
    }
    try {
      const { message } = await act(
        `/admin/payments/${payment.id}/refund`,
        'POST',
        RefundResultSchema,
        parsed.data,
      )
      const refunded = money(parsed.data.amount ?? remaining, payment.currency)
      onResult({
        tone: 'success',
        text: `${message}: ${refunded}${payment.userEmail ? ` to ${payment.userEmail}` : ''}`,
      })
      setAmount('')
      setReason('')
    } catch (failure) {
      onResult({ tone: 'error', text: failureText(failure, 'The refund failed') })
    }
    await queryClient.invalidateQueries({ queryKey: ['admin'] })
    return true
  }

  return (
    <ConfirmButton
      label="Refund"
      confirmLabel="Yes, refund"
      context={`${money(payment.amount, payment.currency)}${payment.userEmail ? ` from ${payment.userEmail}` : ''}`}
      question={`Refund up to ${money(remaining, payment.currency)}? A full refund ends the access it paid for.`}
      // A quiet row action: the question it opens carries the weight (its "Yes, refund" is the red one).
      variant="ghost"
      onConfirm={refund}
    >
      <label className="text-xs text-amber-100">
        <span className="mb-1 block">Amount (blank: all of it)</span>
        <input
          className={`${smallInput} w-28`}
          inputMode="decimal"
          placeholder={remaining.toFixed(2)}
          value={amount}
          aria-invalid={error ? true : undefined}
          aria-describedby={error ? `${ids}-error` : undefined}
          onChange={(event) => {
            setAmount(event.target.value.replace(/[^\d.]/g, ''))
            setError(null)
          }}
        />
      </label>
      <label className="text-xs text-amber-100">
        <span className="mb-1 block">Reason (optional)</span>
        <input
          className={`${smallInput} w-44`}
          maxLength={300}
          value={reason}
          onChange={(event) => setReason(event.target.value)}
        />
      </label>
      {error ? (
        <p id={`${ids}-error`} role="alert" className="w-full text-sm text-rose-200">
          {error}
        </p>
      ) : null}
    </ConfirmButton>
  )
}
