import type { Transaction } from 'kysely'
import type { DB, PlanRow, SubscriptionRow } from '../../db/types'
import { addMs, type Clock, DAY } from '../../lib/clock'
import { cancellationEmail, cryptoRenewalReminderEmail, renewalFailedEmail } from '../../mail/billing-emails'
import type { MailQueue } from '../../mail/mail-queue'
import type { SubscriptionsRepository } from './subscriptions-repository'

/**
 * Something that must follow a change of a member's access (their Discord role, later other
 * communities), recorded in the transaction of the change (the outbox). `key` names the change, so the
 * same change queues its effect once however often it is replayed.
 */
export type AccessListener = (change: { userId: string; key: string }, trx: Transaction<DB>) => Promise<void>

/** Stripe's view of one of its subscriptions, as far as access is concerned. */
export interface StripeSubscriptionState {
  status: string
  cancelAtPeriodEnd: boolean
  endedAt: Date | null
}

/** Crypto-paid periods get a renewal reminder this long before they end (crypto does not renew by itself). */
const CRYPTO_REMINDER_BEFORE = 3 * DAY

/**
 * The one writer of access: every change to `subscriptions` and `subscription_periods` is one of these
 * operations, and each records what follows it ("access changed", notices) in the caller's
 * transaction. Payments (card, crypto), admin grants, refunds and the subscription lifecycle call
 * them; nothing else writes those tables (`npm run lint` checks).
 */
export function createAccessService(deps: {
  repo: SubscriptionsRepository
  plans: { findById(id: string, trx?: Transaction<DB>): Promise<PlanRow | undefined> }
  mail: Pick<MailQueue, 'enqueue'>
  clock: Clock
  graceDays: number
  appOrigin: string
  /** Told of every change of a member's access, inside its transaction. */
  onAccessChanged: readonly AccessListener[]
}) {
  const { repo, clock } = deps

  async function accessChanged(trx: Transaction<DB>, userId: string, key: string) {
    for (const listener of deps.onAccessChanged) await listener({ userId, key }, trx)
  }

  /** The member and plan a notice names, read in the change's transaction. */
  async function noticeContext(trx: Transaction<DB>, row: SubscriptionRow) {
    const user = await trx
      .selectFrom('users')
      .select(['email', 'first_name'])
      .where('id', '=', row.user_id)
      .executeTakeFirst()
    const plan = await deps.plans.findById(row.plan_id, trx)
    return user ? { user, planName: plan?.name ?? 'EdgeClub' } : undefined
  }

  async function sendCancellationNotice(trx: Transaction<DB>, row: SubscriptionRow) {
    if (!row.end_date) return
    const context = await noticeContext(trx, row)
    if (!context) return
    await deps.mail.enqueue(
      cancellationEmail({
        to: context.user.email,
        firstName: context.user.first_name,
        planName: context.planName,
        endDate: new Date(row.end_date),
        appOrigin: deps.appOrigin,
      }),
      { trx, key: `cancel-notice:${row.id}:${new Date(row.cancelled_at ?? clock.now()).valueOf()}` },
    )
  }

  /** Stops renewal on the row unless stopped already; of concurrent callers only one sends the notice. */
  async function markCancelling(trx: Transaction<DB>, id: string) {
    const marked = await repo.markCancelling(id, clock.now(), trx)
    if (marked) await sendCancellationNotice(trx, marked)
    return marked
  }

  return {
    /** The subscription that gives access now (lifetime first, then the latest end), if any. */
    currentAccess: (userId: string, trx?: Transaction<DB>) => repo.currentAccess(userId, clock.now(), trx),

    findById: (id: string) => repo.findById(id),
    findByStripeId: (stripeSubscriptionId: string, trx?: Transaction<DB>) =>
      repo.findByStripeId(stripeSubscriptionId, trx),

    /**
     * One paid period that does not renew by itself (crypto, lifetime, an admin grant): a new
     * subscription, or with `extend` the member's running subscription of the same plan and rail
     * gets the period appended after its end (docs/decisions/009-crypto-renewal.md), and a running
     * subscription of another plan on that rail is followed by the new plan from its end.
     */
    async grantPeriod(
      trx: Transaction<DB>,
      grant: {
        userId: string
        plan: Pick<PlanRow, 'id'>
        provider: SubscriptionRow['provider']
        paymentId: string
        start: Date
        /** Where the period ends, from its start (lifetime: null). */
        endFrom: (start: Date) => Date | null
        extend?: boolean
      },
    ): Promise<SubscriptionRow> {
      const now = clock.now()
      const current = grant.extend
        ? (await repo.listCurrent(grant.userId, now, trx)).filter(
            (row) => row.provider === grant.provider && row.status === 'active' && row.end_date,
          )
        : []
      const running = current.find((row) => row.plan_id === grant.plan.id)
      // Another plan on the same rail: the new one starts when the paid period ends (a plan change).
      const other = running ? undefined : current[0]
      let row: SubscriptionRow
      if (other?.end_date) {
        const start = new Date(other.end_date)
        row = await repo.insertWithPeriod(
          {
            user_id: grant.userId,
            plan_id: grant.plan.id,
            provider: grant.provider,
            status: 'active',
            start_date: start,
            end_date: grant.endFrom(start),
          },
          grant.paymentId,
          trx,
        )
      } else if (running?.end_date) {
        const start = new Date(running.end_date)
        const end = grant.endFrom(start)
        row = (await repo.update(running.id, { end_date: end, updated_at: now }, trx)) ?? running
        await repo.insertPeriod({ subscriptionId: running.id, paymentId: grant.paymentId, start, end }, trx)
      } else {
        row = await repo.insertWithPeriod(
          {
            user_id: grant.userId,
            plan_id: grant.plan.id,
            provider: grant.provider,
            status: 'active',
            start_date: grant.start,
            end_date: grant.endFrom(grant.start),
          },
          grant.paymentId,
          trx,
        )
      }
      await accessChanged(trx, grant.userId, `access:${grant.paymentId}`)
      return row
    },

    /**
     * A paid Stripe invoice: its period, on the one local row of that Stripe subscription (created by
     * the first). The row takes the invoice's plan (an upgrade, or a downgrade reaching its renewal),
     * and a paid period ends a pause.
     */
    async recordStripePeriod(
      trx: Transaction<DB>,
      period: {
        userId: string
        planId: string
        stripeSubscriptionId: string
        paymentId: string
        start: Date
        end: Date
        /** A trial's first period: when it ends. */
        trialEndsAt?: Date | null
      },
    ): Promise<SubscriptionRow> {
      const subscription = await repo.upsertStripe(
        {
          user_id: period.userId,
          plan_id: period.planId,
          provider: 'stripe',
          status: 'active',
          start_date: period.start,
          end_date: period.end,
          stripe_subscription_id: period.stripeSubscriptionId,
          trial_ends_at: period.trialEndsAt ?? null,
          updated_at: clock.now(),
        },
        trx,
      )
      await repo.insertPeriod(
        {
          subscriptionId: subscription.id,
          paymentId: period.paymentId,
          start: period.start,
          end: period.end,
        },
        trx,
      )
      await accessChanged(trx, period.userId, `access:${period.paymentId}`)
      return subscription
    },

    /** A full refund: the subscription the payment paid a period of ends now (undefined if already over). */
    async endPaidBy(trx: Transaction<DB>, paymentId: string): Promise<SubscriptionRow | undefined> {
      const ended = await repo.endPaidBy(paymentId, clock.now(), trx)
      if (ended) await accessChanged(trx, ended.user_id, `refund:${paymentId}`)
      return ended
    },

    /** Ends access that ran out, even when no event told us (the expiry job). */
    async expireEnded(): Promise<number> {
      const now = clock.now()
      return repo.transaction(async (trx) => {
        const ended = await repo.expireEnded(now, trx)
        for (const row of ended) await accessChanged(trx, row.user_id, `expired:${row.id}`)
        return ended.length
      })
    },

    /** The member stops renewal (PUT /subscriptions/{id}/cancel); Stripe's event may race it. */
    stopRenewal: (id: string) => repo.transaction((trx) => markCancelling(trx, id)),

    /** The member resumes a cancelling subscription before its end. */
    resumeRenewal: (id: string) =>
      repo.update(id, { cancel_at_period_end: false, cancelled_at: null, updated_at: clock.now() }),

    /** A failed renewal: past due, with a grace period and a notice; the expiry job ends it after that. */
    async renewalFailed(stripeSubscriptionId: string): Promise<void> {
      const now = clock.now()
      await repo.transaction(async (trx) => {
        const local = await repo.findByStripeIdForUpdate(stripeSubscriptionId, trx)
        if (local?.status !== 'active') return
        const graceUntil = addMs(local.end_date ? new Date(local.end_date) : now, deps.graceDays * DAY)
        const updated = await repo.update(
          local.id,
          { status: 'past_due', grace_until: graceUntil, updated_at: now },
          trx,
        )
        if (!updated) return
        const context = await noticeContext(trx, updated)
        if (!context) return
        await deps.mail.enqueue(
          renewalFailedEmail({
            to: context.user.email,
            firstName: context.user.first_name,
            planName: context.planName,
            graceUntil,
            appOrigin: deps.appOrigin,
          }),
          { trx, key: `renewal-failed:${local.id}:${new Date(local.end_date ?? now).valueOf()}` },
        )
      })
    },

    /**
     * Stripe's current state of one of its subscriptions: ended (cancelled, expired unpaid) ends access
     * at the paid end; a renewal switched off or on at Stripe (e.g. in its dashboard) follows here.
     */
    async applyStripeState(stripeSubscriptionId: string, state: StripeSubscriptionState): Promise<void> {
      const now = clock.now()
      await repo.transaction(async (trx) => {
        const local = await repo.findByStripeIdForUpdate(stripeSubscriptionId, trx)
        if (!local) return
        if (
          state.status === 'canceled' ||
          state.status === 'incomplete_expired' ||
          state.status === 'unpaid'
        ) {
          if (local.status === 'cancelled' || local.status === 'expired') return
          const endedAt = state.endedAt ?? now
          const endDate =
            local.end_date && new Date(local.end_date) < endedAt ? new Date(local.end_date) : endedAt
          await repo.update(
            local.id,
            {
              status: endDate > now ? 'active' : 'cancelled',
              end_date: endDate,
              cancel_at_period_end: true,
              ended_at: endDate > now ? null : endedAt,
              updated_at: now,
            },
            trx,
          )
          await accessChanged(trx, local.user_id, `stripe-ended:${local.id}`)
          return
        }
        if (state.cancelAtPeriodEnd && !local.cancel_at_period_end) await markCancelling(trx, local.id)
        else if (!state.cancelAtPeriodEnd && local.cancel_at_period_end) {
          await repo.update(
            local.id,
            { cancel_at_period_end: false, cancelled_at: null, updated_at: now },
            trx,
          )
        }
      })
    },

    /** Daily: crypto-paid periods ending within three days get one reminder each (the end date is the key). */
    async remindCryptoRenewals(): Promise<number> {
      const now = clock.now()
      const due = await repo.listCryptoEndingBetween(now, addMs(now, CRYPTO_REMINDER_BEFORE))
      let sent = 0
      for (const row of due) {
        if (!row.end_date) continue
        const endDate = new Date(row.end_date)
        const reminded = await repo.transaction(async (trx) => {
          const context = await noticeContext(trx, row)
          if (!context) return false
          await deps.mail.enqueue(
            cryptoRenewalReminderEmail({
              to: context.user.email,
              firstName: context.user.first_name,
              planName: row.plan_name,
              endDate,
              appOrigin: deps.appOrigin,
            }),
            { trx, key: `crypto-reminder:${row.id}:${endDate.valueOf()}` },
          )
          await repo.update(row.id, { renewal_reminder_for: endDate, updated_at: now }, trx)
          return true
        })
        if (reminded) sent += 1
      }
      return sent
    },
  }
}
export type AccessService = ReturnType<typeof createAccessService>
