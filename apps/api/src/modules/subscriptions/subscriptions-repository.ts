import { type Insertable, type Kysely, sql, type Transaction, type Updateable } from 'kysely'
import type { DB, SubscriptionRow, SubscriptionsTable } from '../../db/types'
import { totalOf } from '../../lib/pagination'
import { hasAccessAt, hasAccessSql } from './access-rule'

type Executor = Kysely<DB> | Transaction<DB>

export const SUBSCRIPTION_SORTS = {
  createdAt: 'subscriptions.created_at',
  startDate: 'subscriptions.start_date',
  endDate: 'subscriptions.end_date',
  status: 'subscriptions.status',
} as const
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
      .where('subscriptions.user_id', '=', userId)
      .where((eb) => hasAccessAt(eb, now))
      .orderBy(sql`subscriptions.end_date is null`, 'desc')
      .orderBy('subscriptions.end_date', 'desc')
      .execute()
  }

  return {
    transaction: <T>(work: (trx: Transaction<DB>) => Promise<T>) => db.transaction().execute(work),

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

    /** Active subscriptions past their end, and past-due ones past their grace: access is over. */
    expireEnded(now: Date, trx: Executor = db) {
      return trx
        .updateTable('subscriptions')
        .set({ status: 'expired', ended_at: now, updated_at: now })
        .where((eb) =>
          eb.or([
            eb.and([eb('status', '=', 'active'), eb('end_date', 'is not', null), eb('end_date', '<=', now)]),
            eb.and([eb('status', '=', 'past_due'), eb('grace_until', '<=', now)]),
          ]),
        )
        .returning(['id', 'user_id'])
        .execute()
    },

    async list(query: SubscriptionListQuery) {
      let base = db.selectFrom('subscriptions')
      if (query.userId) base = base.where('subscriptions.user_id', '=', query.userId)
      if (query.status) base = base.where('subscriptions.status', '=', query.status as 'active')
      if (query.search) {
        const term = query.search.toLowerCase()
        base = base.where((eb) =>
          eb.or([
            eb(
              'subscriptions.user_id',
              'in',
              eb
                .selectFrom('users')
                .select('id')
                .where((inner) =>
                  inner.or([
                    inner(sql`lower(email)`, 'like', `%${term}%`),
                    inner(sql`lower(discord_username)`, 'like', `%${term}%`),
                  ]),
                ),
            ),
            eb(
              'subscriptions.plan_id',
              'in',
              eb.selectFrom('plans').select('id').where(sql`lower(name)`, '=', term),
            ),
            eb(sql`subscriptions.status::text`, '=', term),
          ]),
        )
      }
      const rows = await base
        .innerJoin('plans', 'plans.id', 'subscriptions.plan_id')
        .innerJoin('users', 'users.id', 'subscriptions.user_id')
        .selectAll('subscriptions')
        .select([
          'plans.name as plan_name',
          'plans.slug as plan_slug',
          'plans.interval as plan_interval',
          'users.email as user_email',
        ])
        .orderBy(SUBSCRIPTION_SORTS[query.sortBy], query.sortOrder)
        .orderBy('subscriptions.id', query.sortOrder)
        .limit(query.limit)
        .offset((query.page - 1) * query.limit)
        .execute()
      const total = await totalOf(query.page, query.limit, rows.length, async () =>
        Number(
          (await base.select((eb) => eb.fn.countAll<number>().as('count')).executeTakeFirstOrThrow()).count,
        ),
      )
      return { rows, total }
    },
  }
}
export type SubscriptionsRepository = ReturnType<typeof createSubscriptionsRepository>
