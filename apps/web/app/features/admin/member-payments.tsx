import type { PaymentView } from '@edgeclub/shared'
import { day, money, type NoticeState, providerLabel, words } from '../../components/ui/console'
import { isRefundable, RefundButton } from './refund-button'

/** The member's payments with what was refunded; card payments can be refunded from here. */
export function MemberPayments({
  payments,
  onResult,
}: {
  payments: PaymentView[]
  onResult: (notice: NoticeState) => void
}) {
  if (payments.length === 0) return <p className="text-sm text-slate-300">None.</p>
  return (
    <ul className="divide-y divide-slate-800 text-sm">
      {payments.map((p) => (
        <li key={p.id} className="flex flex-wrap items-start justify-between gap-2 py-2 text-slate-200">
          <span>
            {p.kind === 'tip' ? 'Tip' : (p.planId?.name ?? p.kind)}
            {p.kind === 'renewal' ? ' renewal' : ''} · {providerLabel(p.provider)} · {day(p.createdAt)}
            {p.kind === 'grant' && p.message ? (
              <span className="block text-xs text-slate-400">{p.message}</span>
            ) : null}
          </span>
          <span className="flex flex-wrap items-center justify-end gap-3">
            <span>
              {money(p.amount, p.currency)} · {words(p.status)}
              {p.amountRefunded > 0 ? ` (${money(p.amountRefunded, p.currency)} refunded)` : ''}
            </span>
            {isRefundable(p) ? <RefundButton payment={p} onResult={onResult} /> : null}
          </span>
        </li>
      ))}
    </ul>
  )
}
