import { fromMinorUnits } from '@edgeclub/shared'
import type { Transaction } from 'kysely'
import type { DB, PaymentRow, PlanRow } from '../../../db/types'
import type { Clock } from '../../../lib/clock'
import { notFound } from '../../../lib/errors'
import { isUuid } from '../../../lib/ids'
import { pages } from '../../../lib/pagination'
import type { Jobs } from '../../../queue/job-runner'
import type { AccessService } from '../../subscriptions/access-service'
import { toPaymentView } from './payment-views'
import type { PaymentListQuery, PaymentsRepository } from './payments-repository'

/** The ledger as members read it, and the refund bookkeeping every rail shares. */
export function createPaymentsService(deps: {
  repo: PaymentsRepository
  access: Pick<AccessService, 'endPaidBy'>
  jobs: Pick<Jobs, 'enqueue'>
  clock: Clock
}) {
  const { repo } = deps

  return {
    /** A member's own payment by our id or its PaymentIntent id, or NOT_FOUND (never another member's). */
    async ownOrThrow(userId: string, id: string): Promise<PaymentRow> {
      const row = isUuid(id) ? await repo.findById(id) : await repo.findByPaymentIntent(id)
      if (!row || row.user_id !== userId) throw notFound('Payment not found')
      return row
    },

    /** A payment by our id (admins), or undefined. */
    findById: (id: string) => (isUuid(id) ? repo.findById(id) : Promise.resolve(undefined)),

    /** Admin list: every member's payments (or one member's), with their email. */
    async list(query: PaymentListQuery) {
      const { rows, total } = await repo.list(query)
      return {
        items: rows.map((row) => toPaymentView(row, { includeEmail: true })),
        pagination: pages(query.page, query.limit, total),
      }
    },

    /** The zero payment behind complimentary access an admin grants, in the grant's transaction. */
    recordComplimentary(
      trx: Transaction<DB>,
      grant: { userId: string; plan: Pick<PlanRow, 'id' | 'currency'>; note: string },
    ): Promise<PaymentRow> {
      const now = deps.clock.now()
      return repo.insert(
        {
          user_id: grant.userId,
          plan_id: grant.plan.id,
          kind: 'grant',
          provider: 'admin',
          status: 'completed',
          amount_minor: 0,
          currency: grant.plan.currency,
          message: grant.note,
          completed_at: now,
        },
        trx,
      )
    },

    /** Money a processor holds that the ledger could not place (the reconciliation sweep's findings). */
    openReconciliationIssues: (limit: number) => repo.listOpenReconciliationIssues(limit),

    async history(userId: string, query: Omit<PaymentListQuery, 'userId'>) {
      const { rows, total } = await repo.memberPage(userId, query)
      return {
        items: rows.map((row) => toPaymentView(row)),
        pagination: pages(query.page, query.limit, total),
      }
    },

    /** Total spent (completed payments) per currency. */
    async summary(userId: string) {
      const rows = await repo.completedTotals(userId)
      return {
        totals: rows.map((row) => ({
          currency: row.currency,
          amount: fromMinorUnits(Number(row.total), row.currency),
        })),
        completedCount: rows.reduce((sum, row) => sum + Number(row.count), 0),
      }
    },

    /**
     * A refund as the processor reports it (the total refunded so far). A full refund ends the access
     * it paid for (docs/decisions/008-refunds-and-access.md); a partial one keeps it. Safe to repeat:
     * only a changed refunded amount writes anything, and what follows is keyed by the payment.
     */
    async applyRefund(paymentId: string, refund: { amountRefundedMinor: number; full: boolean }) {
      const now = deps.clock.now()
      return repo.transaction(async (trx) => {
        const locked = await repo.findByIdForUpdate(paymentId, trx)
        if (!locked || locked.amount_refunded_minor === refund.amountRefundedMinor) return
        await repo.update(
          locked.id,
          {
            status: refund.full ? 'refunded' : 'partially_refunded',
            amount_refunded_minor: refund.amountRefundedMinor,
            updated_at: now,
          },
          trx,
        )
        if (!refund.full) return
        const ended = await deps.access.endPaidBy(trx, locked.id)
        if (ended?.stripe_subscription_id)
          await deps.jobs.enqueue(
            'stripe.cancel-subscription',
            { stripeSubscriptionId: ended.stripe_subscription_id },
            { trx, key: `refund:${locked.id}` },
          )
      })
    },
  }
}
export type PaymentsService = ReturnType<typeof createPaymentsService>
