import type { Transaction } from 'kysely'
import { monthlyMinor, recordBillingMovement } from '../../db/rollups'
import type { DB, PlanRow, SubscriptionRow } from '../../db/types'
import { addMs, type Clock, DAY } from '../../lib/clock'
import {
  cancellationEmail,
  cryptoRenewalReminderEmail,
  renewalFailedEmail,
  resumeReminderEmail,
  trialEndingEmail,
  upcomingRenewalEmail,
} from '../../mail/billing-emails'
import type { MailQueue } from '../../mail/mail-queue'
import type { SubscriptionsRepository } from './subscriptions-repository'

/**
 * Something that must follow a change of a member's access (their Discord role, later other
 * communities), recorded in the transaction of the change (the outbox). `key` names the change, so the
 * same change queues its effect once however often it is replayed.
 */
export type AccessListener = (change: { userId: string; key: string }, trx: Transaction<DB>) => Promise<void>

/**
 * A notice a member gets besides its email (a failed renewal, a renewal reminder), e.g. by Telegram,
 * recorded in the transaction that queues the email; `key` names it as the email's key does.
 */
export type NoticeListener = (
  notice: {
    userId: string
    key: string
    kind: 'renewal-failed' | 'renewal-reminder'
    planName: string
    /** The grace period's end, or the period's end. */
    date: Date
  },
  trx: Transaction<DB>,
) => Promise<void>

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
  /** Told of the notices mailed to a member, inside the same transaction. */
  onNotice?: readonly NoticeListener[]
}) {
  const { repo, clock } = deps

  /** A card subscription's monthly amount, for the owner's MRR movements (USD plans only). */
  async function mrrOf(planId: string, trx: Transaction<DB>): Promise<number> {
    const plan = await deps.plans.findById(planId, trx)
    return plan && plan.currency === 'USD' ? monthlyMinor(plan) : 0
  }

  /** A renewing card subscription stopped giving access: churn, or a trial that was never paid. */
  async function lost(trx: Transaction<DB>, row: SubscriptionRow) {
    if (row.provider !== 'stripe' || !row.stripe_subscription_id) return
    const now = clock.now()
    if (row.trial_ends_at && !(await repo.hasPaidPeriod(row.id, trx)))
      await recordBillingMovement(trx, { kind: 'trial_ended', at: now })
    else
      await recordBillingMovement(trx, { kind: 'churned', at: now, mrrMinor: await mrrOf(row.plan_id, trx) })
  }

  async function accessChanged(trx: Transaction<DB>, userId: string, key: string) {
    for (const listener of deps.onAccessChanged) await listener({ userId, key }, trx)
  }

  async function noticed(trx: Transaction<DB>, notice: Parameters<NoticeListener>[0]) {
    for (const listener of deps.onNotice ?? []) await listener(notice, trx)
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
    /** The member's card subscriptions that still renew (a lifetime purchase stops them). */
    renewingCardSubscriptions: (userId: string) => repo.renewingCard(userId, clock.now()),
    /** The member's latest card subscription that is paused (or pausing), for Resume. */
    findLatestPaused: (userId: string) => repo.findLatest(userId, { paused: true }),
    /** The member's latest card subscription, whatever its state (a new card after access lapsed). */
    findLatestCard: (userId: string) => repo.findLatest(userId, { paused: false }),
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
        /** What the invoice took (0 for a trial's start). */
        amountPaidMinor?: number
      },
    ): Promise<SubscriptionRow> {
      const now = clock.now()
      const before = await repo.findByStripeId(period.stripeSubscriptionId, trx)
      const paid = (period.amountPaidMinor ?? 0) > 0
      if (!before) {
        if (period.trialEndsAt) await recordBillingMovement(trx, { kind: 'trial_started', at: now })
        else if (paid)
          await recordBillingMovement(trx, {
            kind: (await repo.hadOtherSubscription(period.userId, trx)) ? 'reactivated' : 'new',
            at: now,
            mrrMinor: await mrrOf(period.planId, trx),
          })
      } else if (paid) {
        if (before.trial_ends_at && !(await repo.hasPaidPeriod(before.id, trx))) {
          await recordBillingMovement(trx, { kind: 'trial_converted', at: now })
          await recordBillingMovement(trx, {
            kind: 'new',
            at: now,
            mrrMinor: await mrrOf(period.planId, trx),
          })
        } else if (before.status === 'expired' || before.status === 'cancelled') {
          await recordBillingMovement(trx, {
            kind: 'reactivated',
            at: now,
            mrrMinor: await mrrOf(period.planId, trx),
          })
        } else if (before.plan_id !== period.planId) {
          const change = (await mrrOf(period.planId, trx)) - (await mrrOf(before.plan_id, trx))
          if (change !== 0)
            await recordBillingMovement(trx, {
              kind: change > 0 ? 'expansion' : 'contraction',
              at: now,
              mrrMinor: Math.abs(change),
            })
        }
      }
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
      if (ended) {
        await lost(trx, ended)
        await accessChanged(trx, ended.user_id, `refund:${paymentId}`)
      }
      return ended
    },

    /** Ends access that ran out, even when no event told us (the expiry job). */
    async expireEnded(): Promise<number> {
      const now = clock.now()
      return repo.transaction(async (trx) => {
        const ended = await repo.expireEnded(now, trx)
        for (const row of ended) {
          // A pause is not a loss: the member comes back at the resume date.
          if (row.status === 'expired') await lost(trx, row)
          await accessChanged(trx, row.user_id, `expired:${row.id}`)
        }
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
        await noticed(trx, {
          userId: updated.user_id,
          key: `renewal-failed:${local.id}:${new Date(local.end_date ?? now).valueOf()}`,
          kind: 'renewal-failed',
          planName: context.planName,
          date: graceUntil,
        })
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
          if (local.status === 'active' || local.status === 'past_due') await lost(trx, local)
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

    /** A downgrade waits for the renewal (a Stripe schedule); shown as "Switches to {plan} on {date}". */
    scheduleChange: (id: string, change: { planId: string; at: Date; scheduleId: string }) =>
      repo.update(id, {
        scheduled_plan_id: change.planId,
        scheduled_change_at: change.at,
        stripe_schedule_id: change.scheduleId,
        updated_at: clock.now(),
      }),

    clearScheduledChange: (id: string) =>
      repo.update(id, {
        scheduled_plan_id: null,
        scheduled_change_at: null,
        stripe_schedule_id: null,
        updated_at: clock.now(),
      }),

    /** Paused: access until the end of the paid period, none from then until `resumesAt`. */
    pause: (id: string, pause: { from: Date; resumesAt: Date }) =>
      repo.transaction((trx) =>
        repo.update(id, { paused_at: pause.from, resumes_at: pause.resumesAt, updated_at: clock.now() }, trx),
      ),

    /** Resumed before its paid period ended: as if it had never paused. */
    unpause: (id: string) => repo.update(id, { paused_at: null, resumes_at: null, updated_at: clock.now() }),

    /** Free days an admin gives: access runs to `end` (the next charge moved there at Stripe). */
    async extendTo(id: string, end: Date, key: string): Promise<SubscriptionRow | undefined> {
      return repo.transaction(async (trx) => {
        const updated = await repo.update(id, { end_date: end, updated_at: clock.now() }, trx)
        if (updated) await accessChanged(trx, updated.user_id, `free-days:${key}`)
        return updated
      })
    },

    /** Why a member cancelled (or stayed, won by an offer): the owner's numbers read these. */
    recordCancelReason: (entry: {
      userId: string
      subscriptionId: string | null
      reason: string
      detail: string | null
      offer: 'code' | 'pause' | null
      outcome: 'cancelled' | 'kept'
    }) => repo.insertCancelReason({ ...entry, at: clock.now() }),

    /** The owner's offer at cancel. */
    billingSettings: () => repo.billingSettings(),
    saveBillingSettings: (settings: { retentionPromoCodeId: string | null; retentionOffersPause: boolean }) =>
      repo.transaction((trx) => repo.saveBillingSettings(settings, clock.now(), trx)),

    /** A paused member's plan resumes in three days: one reminder (the resume date is the key). */
    async remindResumes(): Promise<number> {
      const now = clock.now()
      const due = await repo.listResumingBetween(now, addMs(now, 3 * DAY))
      let sent = 0
      for (const row of due) {
        if (!row.resumes_at) continue
        const resumesAt = new Date(row.resumes_at)
        await repo.transaction(async (trx) => {
          const context = await noticeContext(trx, row)
          if (!context) return
          await deps.mail.enqueue(
            resumeReminderEmail({
              to: context.user.email,
              firstName: context.user.first_name,
              planName: context.planName,
              resumesAt,
              appOrigin: deps.appOrigin,
            }),
            { trx, key: `resume-reminder:${row.id}:${resumesAt.valueOf()}` },
          )
        })
        sent += 1
      }
      return sent
    },

    /** Stripe says a trial ends in three days: the member hears when and what will be charged. */
    async trialEndsSoon(stripeSubscriptionId: string, trialEnd: Date, amountLabel: string): Promise<void> {
      await repo.transaction(async (trx) => {
        const local = await repo.findByStripeId(stripeSubscriptionId, trx)
        if (!local) return
        const context = await noticeContext(trx, local)
        if (!context) return
        await deps.mail.enqueue(
          trialEndingEmail({
            to: context.user.email,
            firstName: context.user.first_name,
            planName: context.planName,
            trialEnd,
            amountLabel,
            appOrigin: deps.appOrigin,
          }),
          { trx, key: `trial-ending:${local.id}:${trialEnd.valueOf()}` },
        )
      })
    },

    /** A yearly member is charged in a week (Stripe's invoice.upcoming): one reminder per renewal. */
    async renewalComingUp(stripeSubscriptionId: string, chargeAt: Date, amountLabel: string): Promise<void> {
      await repo.transaction(async (trx) => {
        const local = await repo.findByStripeId(stripeSubscriptionId, trx)
        if (!local || local.cancel_at_period_end || local.resumes_at) return
        const plan = await deps.plans.findById(local.plan_id, trx)
        if (plan?.interval !== 'year') return
        const context = await noticeContext(trx, local)
        if (!context) return
        await deps.mail.enqueue(
          upcomingRenewalEmail({
            to: context.user.email,
            firstName: context.user.first_name,
            planName: context.planName,
            chargeAt,
            amountLabel,
            appOrigin: deps.appOrigin,
          }),
          { trx, key: `upcoming-renewal:${local.id}:${chargeAt.valueOf()}` },
        )
      })
    },

    /** During the grace after a failed renewal: one reminder on its last day (the grace end is the key). */
    async remindGraceEnding(): Promise<number> {
      const now = clock.now()
      const due = await repo.listGraceEndingBetween(now, addMs(now, DAY))
      let sent = 0
      for (const row of due) {
        if (!row.grace_until) continue
        const graceUntil = new Date(row.grace_until)
        await repo.transaction(async (trx) => {
          const context = await noticeContext(trx, row)
          if (!context) return
          await deps.mail.enqueue(
            renewalFailedEmail({
              to: context.user.email,
              firstName: context.user.first_name,
              planName: context.planName,
              graceUntil,
              appOrigin: deps.appOrigin,
              reminder: true,
            }),
            { trx, key: `grace-reminder:${row.id}:${graceUntil.valueOf()}` },
          )
        })
        sent += 1
      }
      return sent
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
          await noticed(trx, {
            userId: row.user_id,
            key: `crypto-reminder:${row.id}:${endDate.valueOf()}`,
            kind: 'renewal-reminder',
            planName: row.plan_name,
            date: endDate,
          })
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
