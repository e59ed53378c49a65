import {
  type AdminSubscription,
  AdminSubscriptionPageSchema,
  PaymentPageSchema,
  type PaymentView,
} from '@edgeclub/shared'
import { useState } from 'react'
import { Link } from 'react-router'
import {
  day,
  money,
  Notice,
  type NoticeState,
  PROVIDERS,
  providerLabel,
  words,
} from '../../components/ui/console'
import { DataTable } from './data-table'
import { linkClasses, memberHref } from './member-links'
import { isRefundable, RefundButton } from './refund-button'

export function SubscriptionsSection() {
  return (
    <DataTable<AdminSubscription>
      title="Subscriptions"
      path="/admin/subscriptions"
      schema={AdminSubscriptionPageSchema}
      searchLabel="Search member, Discord, plan or status"
      defaultSort="createdAt"
      exportName="subscriptions"
      filters={[
        {
          name: 'status',
          label: 'Status',
          options: ['active', 'past_due', 'cancelled', 'expired'].map((value) => ({
            value,
            label: words(value),
          })),
        },
      ]}
      columns={[
        {
          header: 'Member',
          render: (s) => (
            <Link to={memberHref(s.userId)} className={linkClasses}>
              {s.userEmail}
            </Link>
          ),
        },
        { header: 'Plan', render: (s) => s.planId.name },
        {
          header: 'Status',
          sortKey: 'status',
          render: (s) =>
            `${words(s.status)}${s.cancelAtPeriodEnd && s.status === 'active' ? ' (ends at period end)' : ''}`,
        },
        { header: 'Paid by', render: (s) => providerLabel(s.provider) },
        { header: 'Started', sortKey: 'startDate', render: (s) => day(s.startDate) },
        { header: 'Ends', sortKey: 'endDate', render: (s) => (s.endDate ? day(s.endDate) : 'Lifetime') },
      ]}
    />
  )
}

export function PaymentsSection() {
  const [notice, setNotice] = useState<NoticeState>(null)
  return (
    <div className="space-y-4">
      <Notice notice={notice} />
      <DataTable<PaymentView>
        title="Payments"
        path="/admin/payments"
        schema={PaymentPageSchema}
        searchLabel="Search member, plan, status or kind"
        defaultSort="createdAt"
        exportName="payments"
        filters={[
          { name: 'provider', label: 'Paid by', options: PROVIDERS },
          {
            name: 'status',
            label: 'Status',
            options: ['pending', 'completed', 'failed', 'cancelled', 'refunded', 'partially_refunded'].map(
              (value) => ({ value, label: words(value) }),
            ),
          },
        ]}
        columns={[
          { header: 'Date', sortKey: 'createdAt', render: (p) => day(p.createdAt) },
          {
            header: 'Member',
            render: (p) =>
              p.userEmail ? (
                // Payments carry the member's email, not their id: the members list finds them.
                <Link to={`?section=users&q=${encodeURIComponent(p.userEmail)}`} className={linkClasses}>
                  {p.userEmail}
                </Link>
              ) : (
                '—'
              ),
          },
          {
            header: 'For',
            render: (p) =>
              p.kind === 'tip'
                ? 'Tip'
                : `${p.planId?.name ?? ''} ${p.kind === 'renewal' ? 'renewal' : ''}`.trim(),
          },
          {
            header: 'Amount',
            sortKey: 'amount',
            render: (p) =>
              `${money(p.amount, p.currency)}${p.amountRefunded > 0 ? ` (${money(p.amountRefunded, p.currency)} refunded)` : ''}`,
          },
          { header: 'Status', sortKey: 'status', render: (p) => words(p.status) },
          { header: 'Paid by', render: (p) => providerLabel(p.provider) },
        ]}
        actionsHeader="Refund"
        rowActions={(p) => (isRefundable(p) ? <RefundButton payment={p} onResult={setNotice} /> : null)}
      />
    </div>
  )
}
