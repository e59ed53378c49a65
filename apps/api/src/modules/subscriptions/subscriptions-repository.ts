import {
  type Insertable,
  type Kysely,
  type SelectQueryBuilder,
  sql,
  type Transaction,
  type Updateable,
} from 'kysely'
import { deferredPage } from '../../db/paged-query'
import { createRollups, noMatch, termCondition, termMatch } from '../../db/rollups'
import { transactionRunner } from '../../db/transaction'
import type { DB, SubscriptionRow, SubscriptionsTable } from '../../db/types'
import { countRows } from '../../lib/pagination'
import { hasAccessAt, hasAccessSql } from './access-rule'

type Executor = Kysely<DB> | Transaction<DB>

/** The name of the plan a scheduled downgrade moves to, beside the subscription's own plan. */
const scheduledPlanName = sql<
  string | null
>`(select scheduled.name from plans scheduled where scheduled.id = subscriptions.scheduled_plan_id)`.as(
  'scheduled_plan_name',
)

/** Each sort's columns (the id breaks ties); every one has an index ending in the id. */
export const SUBSCRIPTION_SORTS = {
  createdAt: ['subscriptions.created_at'],
  startDate: ['subscriptions.start_date'],
  endDate: ['subscriptions.end_date'],
  // Within a status, the newest first (or last).
  status: ['subscriptions.status', 'subscriptions.created_at'],
} as const

/** What a search term may name besides a member. */
const SUBSCRIPTION_NAMES = { statuses: ['active', 'past_due', 'cancelled', 'expired'] }
export type SubscriptionSort = keyof typeof SUBSCRIPTION_SORTS

export interface SubscriptionListQuery {
  page: number
  limit: number
  search?: string
  sortBy: SubscriptionSort
  sortOrder: 'asc' | 'desc'
  userId?: string
  status?: string
}

export function createSubscriptionsRepository(db: Kysely<DB>) {
  const rollups = createRollups(db)
  /** One access period of a subscription; a payment pays for at most one (a redelivery adds nothing). */
  function insertPeriod(
    period: { subscriptionId: string; paymentId: string; start: Date; end: Date | null },
    trx: Executor = db,
  ) {
    return trx
      .insertInto('subscription_periods')
      .values({
        subscription_id: period.subscriptionId,
        payment_id: period.paymentId,
        start_date: period.start,
        end_date: period.end,
      })
      .onConflict((oc) => oc.column('payment_id').doNothing())
      .execute()
  }

  /** Subscriptions that may give access now, newest end first (lifetime before all). */
  function listCurrent(userId: string, now: Date, trx: Executor = db) {
    return trx
      .selectFrom('subscriptions')
      .innerJoin('plans', 'plans.id', 'subscriptions.plan_id')
      .selectAll('subscriptions')
      .select(['plans.name as plan_name', 'plans.slug as plan_slug', 'plans.interval as plan_interval'])
      .select(scheduledPlanName)
      .where('subscriptions.user_id', '=', userId)
      .where((eb) => hasAccessAt(eb, now))
      .orderBy(sql`subscriptions.end_date is null`, 'desc')
      .orderBy('subscriptions.end_date', 'desc')
      .execute()
  }

  return {
    transaction: transactionRunner(db),

    findById(id: string, trx: Executor = db): Promise<SubscriptionRow | undefined> {
      return trx.selectFrom('subscriptions').selectAll().where('id', '=', id).executeTakeFirst()
    },

    findByStripeId(stripeSubscriptionId: string, trx: Executor = db): Promise<SubscriptionRow | undefined> {
      return trx
        .selectFrom('subscriptions')
        .selectAll()
        .where('stripe_subscription_id', '=', stripeSubscriptionId)
        .executeTakeFirst()
    },

    listCurrent,

    /** The subscription that gives access now (lifetime first, then the latest end), if any. */
    async currentAccess(userId: string, now: Date, trx: Executor = db) {
      return (await listCurrent(userId, now, trx))[0]
    },

    findByStripeIdForUpdate(stripeSubscriptionId: string, trx: Transaction<DB>) {
      return trx
        .selectFrom('subscriptions')
        .selectAll()
        .where('stripe_subscription_id', '=', stripeSubscriptionId)
        .forUpdate()
        .executeTakeFirst()
    },

    /** Ends, now, the subscription a payment paid a period of (a full refund); undefined if already over. */
    async endPaidBy(paymentId: string, now: Date, trx: Transaction<DB>) {
      const paid = await trx
        .selectFrom('subscription_periods')
        .innerJoin('subscriptions', 'subscriptions.id', 'subscription_periods.subscription_id')
        .select(['subscriptions.id', 'subscriptions.status'])
        .where('subscription_periods.payment_id', '=', paymentId)
        .executeTakeFirst()
      if (!paid || paid.status === 'expired' || paid.status === 'cancelled') return undefined
      return trx
        .updateTable('subscriptions')
        .set({ status: 'cancelled', end_date: now, ended_at: now, updated_at: now })
        .where('id', '=', paid.id)
        .returningAll()
        .executeTakeFirst()
    },

    /**
     * In one query, what the member's status shows: the subscription that gives access now (as
     * currentAccess orders them), or else the most recent one, whatever its state; `has_access` says which.
     */
    accessOrLatest(userId: string, now: Date) {
      const access = hasAccessSql(now)
      return (
        db
          .selectFrom('subscriptions')
          .innerJoin('plans', 'plans.id', 'subscriptions.plan_id')
          .selectAll('subscriptions')
          .select(['plans.name as plan_name', 'plans.slug as plan_slug', 'plans.interval as plan_interval'])
          .select(scheduledPlanName)
          .select(sql<boolean>`${access}`.as('has_access'))
          .where('subscriptions.user_id', '=', userId)
          .orderBy(sql`${access}`, 'desc')
          // Among those with access: lifetime first, then the latest end. Otherwise: the newest.
          .orderBy(sql`(${access}) and subscriptions.end_date is null`, 'desc')
          .orderBy(sql`case when ${access} then subscriptions.end_date end`, (ob) => ob.desc().nullsLast())
          .orderBy('subscriptions.created_at', 'desc')
          .executeTakeFirst()
      )
    },

    /** A new subscription and its first access period, paid for by `paymentId`. */
    async insertWithPeriod(
      subscription: Insertable<SubscriptionsTable> & { start_date: Date; end_date: Date | null },
      paymentId: string,
      trx: Executor = db,
    ): Promise<SubscriptionRow> {
      const row = await trx
        .insertInto('subscriptions')
        .values(subscription)
        .returningAll()
        .executeTakeFirstOrThrow()
      await insertPeriod(
        { subscriptionId: row.id, paymentId, start: subscription.start_date, end: subscription.end_date },
        trx,
      )
      return row
    },

    /** One local row per Stripe subscription: created on its first paid invoice, updated afterwards. */
    async upsertStripe(
      subscription: Insertable<SubscriptionsTable> & { stripe_subscription_id: string; end_date: Date },
      trx: Executor = db,
    ): Promise<SubscriptionRow> {
      return trx
        .insertInto('subscriptions')
        .values(subscription)
        .onConflict((oc) =>
          oc.column('stripe_subscription_id').doUpdateSet({
            status: 'active',
            grace_until: null,
            end_date: sql`greatest(subscriptions.end_date, excluded.end_date)`,
            plan_id: sql`excluded.plan_id`,
            // The scheduled plan arrived; a paid period ends a pause.
            scheduled_plan_id: sql`case when subscriptions.scheduled_plan_id = excluded.plan_id then null else subscriptions.scheduled_plan_id end`,
            scheduled_change_at: sql`case when subscriptions.scheduled_plan_id = excluded.plan_id then null else subscriptions.scheduled_change_at end`,
            stripe_schedule_id: sql`case when subscriptions.scheduled_plan_id = excluded.plan_id then null else subscriptions.stripe_schedule_id end`,
            paused_at: null,
            resumes_at: null,
            updated_at: subscription.updated_at ?? new Date(),
          }),
        )
        .returningAll()
        .executeTakeFirstOrThrow()
    },

    update(
      id: string,
      changes: Updateable<SubscriptionsTable>,
      trx: Executor = db,
    ): Promise<SubscriptionRow | undefined> {
      return trx
        .updateTable('subscriptions')
        .set(changes)
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
    },

    /**
     * Marks a subscription as not renewing unless it is marked already: of a member's cancel and
     * Stripe's event about it, only the first gets the row back (and sends the notice).
     */
    markCancelling(id: string, now: Date, trx: Executor = db): Promise<SubscriptionRow | undefined> {
      return trx
        .updateTable('subscriptions')
        .set({ cancel_at_period_end: true, cancelled_at: now, updated_at: now })
        .where('id', '=', id)
        .where('cancel_at_period_end', '=', false)
        .returningAll()
        .executeTakeFirst()
    },

    insertPeriod,

    renewingCard(userId: string, now: Date, trx: Executor = db) {
      return trx
        .selectFrom('subscriptions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('stripe_subscription_id', 'is not', null)
        .where('cancel_at_period_end', '=', false)
        .where('status', 'in', ['active', 'past_due'])
        .where('end_date', '>', now)
        .execute()
    },

    /** The member's newest card subscription (paused or pausing ones only, with `paused`). */
    findLatest(userId: string, options: { paused: boolean }, trx: Executor = db) {
      let query = trx
        .selectFrom('subscriptions')
        .selectAll()
        .where('user_id', '=', userId)
        .where('stripe_subscription_id', 'is not', null)
        .where('status', 'in', ['active', 'past_due', 'paused'])
      if (options.paused) query = query.where('resumes_at', 'is not', null)
      return query.orderBy('created_at', 'desc').limit(1).executeTakeFirst()
    },

    /** Paused subscriptions resuming in the window. */
    listResumingBetween(from: Date, to: Date, trx: Executor = db) {
      return trx
        .selectFrom('subscriptions')
        .selectAll()
        .where('resumes_at', '>', from)
        .where('resumes_at', '<=', to)
        .where('status', 'in', ['active', 'paused'])
        .execute()
    },

    /** Past-due subscriptions whose grace ends in the window. */
    listGraceEndingBetween(from: Date, to: Date, trx: Executor = db) {
      return trx
        .selectFrom('subscriptions')
        .selectAll()
        .where('status', '=', 'past_due')
        .where('grace_until', '>', from)
        .where('grace_until', '<=', to)
        .execute()
    },

    insertCancelReason(
      entry: {
        userId: string
        subscriptionId: string | null
        reason: string
        detail: string | null
        offer: 'code' | 'pause' | null
        outcome: 'cancelled' | 'kept'
        at: Date
      },
      trx: Executor = db,
    ) {
      return trx
        .insertInto('cancellation_reasons')
        .values({
          created_at: entry.at,
          user_id: entry.userId,
          subscription_id: entry.subscriptionId,
          reason: entry.reason,
          detail: entry.detail,
          offer: entry.offer,
          outcome: entry.outcome,
        })
        .execute()
    },

    async billingSettings(trx: Executor = db) {
      const row = await trx.selectFrom('billing_settings').selectAll().executeTakeFirst()
      return {
        retentionPromoCodeId: row?.retention_promo_code_id ?? null,
        retentionOffersPause: row?.retention_offers_pause ?? false,
      }
    },

    async saveBillingSettings(
      settings: { retentionPromoCodeId: string | null; retentionOffersPause: boolean },
      at: Date,
      trx: Executor = db,
    ) {
      await trx
        .insertInto('billing_settings')
        .values({
          id: true,
          retention_promo_code_id: settings.retentionPromoCodeId,
          retention_offers_pause: settings.retentionOffersPause,
          updated_at: at,
        })
        .onConflict((oc) =>
          oc.column('id').doUpdateSet({
            retention_promo_code_id: settings.retentionPromoCodeId,
            retention_offers_pause: settings.retentionOffersPause,
            updated_at: at,
          }),
        )
        .execute()
    },

    /** Crypto-paid periods ending soon whose reminder for this end date was not sent yet. */
    listCryptoEndingBetween(from: Date, to: Date, trx: Executor = db) {
      return trx
        .selectFrom('subscriptions')
        .innerJoin('plans', 'plans.id', 'subscriptions.plan_id')
        .selectAll('subscriptions')
        .select(['plans.name as plan_name'])
        .where('subscriptions.provider', '=', 'crypto')
        .where('subscriptions.status', '=', 'active')
        .where('subscriptions.end_date', '>', from)
        .where('subscriptions.end_date', '<=', to)
        .where((eb) =>
          eb.or([
            eb('subscriptions.renewal_reminder_for', 'is', null),
            eb('subscriptions.renewal_reminder_for', '!=', eb.ref('subscriptions.end_date')),
          ]),
        )
        .execute()
    },

    /**
     * Active subscriptions past their end, and past-due ones past their grace: access is over. One
     * paused from its end waits for its resume date as 'paused'.
     */
    expireEnded(now: Date, trx: Executor = db) {
      return trx
        .updateTable('subscriptions')
        .set({
          status: sql`case when resumes_at > ${now} then 'paused' else 'expired' end`,
          ended_at: sql`case when resumes_at > ${now} then null else ${now}::timestamptz end`,
          updated_at: now,
        })
        .where((eb) =>
          eb.or([
            eb.and([eb('status', '=', 'active'), eb('end_date', 'is not', null), eb('end_date', '<=', now)]),
            eb.and([eb('status', '=', 'past_due'), eb('grace_until', '<=', now)]),
          ]),
        )
        .returningAll()
        .execute()
    },

    /** Whether any period of this subscription was paid with money (a trial's start is not). */
    async hasPaidPeriod(subscriptionId: string, trx: Executor = db): Promise<boolean> {
      const row = await trx
        .selectFrom('subscription_periods')
        .innerJoin('payments', 'payments.id', 'subscription_periods.payment_id')
        .select('subscription_periods.id')
        .where('subscription_periods.subscription_id', '=', subscriptionId)
        .where('payments.amount_minor', '>', 0)
        .limit(1)
        .executeTakeFirst()
      return Boolean(row)
    },

    /** Whether the member had a subscription before (a new one is then a comeback). */
    async hadOtherSubscription(userId: string, trx: Executor = db): Promise<boolean> {
      const row = await trx
        .selectFrom('subscriptions')
        .select('id')
        .where('user_id', '=', userId)
        .limit(1)
        .executeTakeFirst()
      return Boolean(row)
    },

    /**
     * A member's subscriptions, or every member's (admin). A search finds members by email or Discord
     * username (trigram indexes), a plan by name or a status; a term that names no plan or status
     * searches members only. Every member's pages take their ids from a sort index alone; totals come
     * from the rollups (plus the few rows of found members the rollups cannot tell apart).
     */
    async list(query: SubscriptionListQuery) {
      const term = query.search?.toLowerCase()
      const match = term === undefined ? undefined : await termMatch(db, term, SUBSCRIPTION_NAMES)
      const members = term
        ? db
            .selectFrom('users')
            .select('users.id')
            .where(sql`lower(users.email)`, 'like', `%${term}%`)
            .union(
              db
                .selectFrom('users')
                .select('users.id')
                .where(sql`lower(users.discord_username)`, 'like', `%${term}%`),
            )
        : undefined
      const filtered = (qb: SelectQueryBuilder<DB, 'subscriptions', object>) => {
        let next = qb
        if (query.userId) next = next.where('subscriptions.user_id', '=', query.userId)
        if (query.status) next = next.where('subscriptions.status', '=', query.status as 'active')
        return next
      }
      let base = filtered(db.selectFrom('subscriptions'))
      if (members && match) {
        base = noMatch(match)
          ? base.where('subscriptions.user_id', 'in', members)
          : base.where((eb) =>
              eb.or([eb('subscriptions.user_id', 'in', members), termCondition(match, { kinds: false })]),
            )
      }
      // One member's few subscriptions are read directly; everyone's through a page of ids.
      const page = deferredPage(db, 'subscriptions', base, SUBSCRIPTION_SORTS[query.sortBy], query)
      let ordered = page.inOrder(
        (query.userId ? base : page.from)
          .innerJoin('plans', 'plans.id', 'subscriptions.plan_id')
          .innerJoin('users', 'users.id', 'subscriptions.user_id')
          .selectAll('subscriptions')
          .select([
            'plans.name as plan_name',
            'plans.slug as plan_slug',
            'plans.interval as plan_interval',
            'users.email as user_email',
          ])
          .select(scheduledPlanName),
      )
      if (query.userId) ordered = ordered.limit(query.limit).offset((query.page - 1) * query.limit)
      return page.result(await ordered.execute(), async () => {
        if (query.userId) return countRows(base)
        if (!members || !match) return rollups.subscriptions({ status: query.status })
        const ofMembers = countRows(
          filtered(db.selectFrom('subscriptions'))
            .where('subscriptions.user_id', 'in', members)
            .where(sql<boolean>`not ${termCondition(match, { kinds: false })}`),
        )
        const named = noMatch(match)
          ? 0
          : rollups.subscriptions({ status: query.status, also: termCondition(match, { kinds: false }) })
        return (await ofMembers) + (await named)
      })
    },
  }
}
export type SubscriptionsRepository = ReturnType<typeof createSubscriptionsRepository>
