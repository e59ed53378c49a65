import type { PaymentStatusValue, PaymentView } from '@edgeclub/shared'

const tones: Record<PaymentStatusValue, string> = {
  completed: 'bg-emerald-400/15 text-emerald-200',
  pending: 'bg-amber-400/15 text-amber-200',
  failed: 'bg-rose-500/15 text-rose-200',
  cancelled: 'bg-slate-700 text-slate-200',
  refunded: 'bg-sky-400/15 text-sky-200',
  partially_refunded: 'bg-sky-400/15 text-sky-200',
}

const labels: Partial<Record<PaymentStatusValue, string>> = { partially_refunded: 'partially refunded' }

export function PaymentStatusBadge({ status }: { status: PaymentStatusValue }) {
  return (
    <span
      className={`rounded-full px-2.5 py-0.5 text-xs font-semibold capitalize ${tones[status] ?? 'bg-slate-700 text-slate-200'}`}
    >
      {labels[status] ?? status}
    </span>
  )
}

export function paymentTitle(payment: Pick<PaymentView, 'kind' | 'planId'>): string {
  if (payment.kind === 'tip') return 'Tip'
  const name = payment.planId?.name ?? 'Membership'
  return payment.kind === 'renewal' ? `${name} renewal` : `${name} plan`
}
