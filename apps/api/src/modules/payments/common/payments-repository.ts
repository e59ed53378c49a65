import {
  type Insertable,
  type Kysely,
  type SelectQueryBuilder,
  sql,
  type Transaction,
  type Updateable,
} from 'kysely'
import { deferredPage } from '../../../db/paged-query'
import { createRollups, noMatch, termCondition, termMatch } from '../../../db/rollups'
import { transactionRunner } from '../../../db/transaction'
import type { DB, PaymentRow, PaymentsTable } from '../../../db/types'
import { countRows } from '../../../lib/pagination'

type Executor = Kysely<DB> | Transaction<DB>

/** Each sort's columns (the id breaks ties); every one has an index ending in the id. */
export const PAYMENT_SORTS = {
  createdAt: ['payments.created_at'],
  amount: ['payments.amount_minor'],
  // Within a status, the newest first (or last).
  status: ['payments.status', 'payments.created_at'],
} as const
export type PaymentSort = keyof typeof PAYMENT_SORTS

export interface PaymentListQuery {
  page: number
  limit: number
  search?: string
  sortBy: PaymentSort
  sortOrder: 'asc' | 'desc'
  provider?: string
  status?: string
  userId?: string
}

/** What a search term may name besides a member (the columns' allowed values). */
const PAYMENT_NAMES = {
  statuses: ['pending', 'completed', 'failed', 'cancelled', 'refunded', 'partially_refunded'],
  kinds: ['subscription', 'renewal', 'lifetime', 'tip', 'grant'],
}

/** The columns a payment's view shows (payment-views.ts): all a member's history reads. */
export const PAYMENT_VIEW_COLUMNS = [
  'id',
  'plan_id',
  'kind',
  'provider',
  'status',
  'amount_minor',
  'amount_refunded_minor',
  'currency',
  'message',
  'failure_message',
  'stripe_payment_intent_id',
  'stripe_client_secret',
  'checkout_url',
  'expires_at',
  'created_at',
  'completed_at',
] as const satisfies readonly (keyof PaymentRow)[]
export type PaymentViewColumn = (typeof PAYMENT_VIEW_COLUMNS)[number]

/** The filters a payments list and a member's history share. */
function filteredBy(
  qb: SelectQueryBuilder<DB, 'payments', object>,
  query: Pick<PaymentListQuery, 'userId' | 'provider' | 'status'>,
) {
  let next = qb
  if (query.userId) next = next.where('payments.user_id', '=', query.userId)
  if (query.provider) next = next.where('payments.provider', '=', query.provider as 'stripe')
  if (query.status) next = next.where('payments.status', '=', query.status as 'completed')
  return next
}

export function createPaymentsRepository(db: Kysely<DB>) {
  const rollups = createRollups(db)
  return {
    transaction: transactionRunner(db),

    findById(id: string, trx: Executor = db): Promise<PaymentRow | undefined> {
      return trx.selectFrom('payments').selectAll().where('id', '=', id).executeTakeFirst()
    },

    findByIdForUpdate(id: string, trx: Transaction<DB>): Promise<PaymentRow | undefined> {
      return trx.selectFrom('payments').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    },

    findByPaymentIntent(paymentIntentId: string, trx: Executor = db): Promise<PaymentRow | undefined> {
      return trx
        .selectFrom('payments')
        .selectAll()
        .where('stripe_payment_intent_id', '=', paymentIntentId)
        .executeTakeFirst()
    },

    findByPaymentIntentForUpdate(
      paymentIntentId: string,
      trx: Transaction<DB>,
    ): Promise<PaymentRow | undefined> {
      return trx
        .selectFrom('payments')
        .selectAll()
        .where('stripe_payment_intent_id', '=', paymentIntentId)
        .forUpdate()
        .executeTakeFirst()
    },

    findByInvoice(invoiceId: string, trx: Executor = db): Promise<PaymentRow | undefined> {
      return trx
        .selectFrom('payments')
        .selectAll()
        .where('stripe_invoice_id', '=', invoiceId)
        .executeTakeFirst()
    },

    findByInvoiceForUpdate(invoiceId: string, trx: Transaction<DB>): Promise<PaymentRow | undefined> {
      return trx
        .selectFrom('payments')
        .selectAll()
        .where('stripe_invoice_id', '=', invoiceId)
        .forUpdate()
        .executeTakeFirst()
    },

    findBySetupIntent(setupIntentId: string, trx: Executor = db): Promise<PaymentRow | undefined> {
      return trx
        .selectFrom('payments')
        .selectAll()
        .where('stripe_setup_intent_id', '=', setupIntentId)
        .executeTakeFirst()
    },

    /**
     * One free trial per card: the first member to start a trial with this card keeps it (false when
     * another member did). Inside the trial's claim transaction.
     */
    async claimTrialCard(fingerprint: string, userId: string, trx: Executor = db): Promise<boolean> {
      const claimed = await trx
        .insertInto('trial_cards')
        .values({ fingerprint, user_id: userId })
        .onConflict((oc) => oc.column('fingerprint').doNothing())
        .returning('fingerprint')
        .executeTakeFirst()
      return Boolean(claimed)
    },

    findByBtcpayInvoice(invoiceId: string, trx: Executor = db): Promise<PaymentRow | undefined> {
      return trx
        .selectFrom('payments')
        .selectAll()
        .where('btcpay_invoice_id', '=', invoiceId)
        .executeTakeFirst()
    },

    findByBtcpayInvoiceForUpdate(invoiceId: string, trx: Transaction<DB>): Promise<PaymentRow | undefined> {
      return trx
        .selectFrom('payments')
        .selectAll()
        .where('btcpay_invoice_id', '=', invoiceId)
        .forUpdate()
        .executeTakeFirst()
    },

    /**
     * Changes a payment only while it is still pending: a status read from BTCPay a moment ago must
     * not overwrite a fulfilment that committed in between.
     */
    updatePending(
      id: string,
      changes: Updateable<PaymentsTable>,
      trx: Executor = db,
    ): Promise<PaymentRow | undefined> {
      return trx
        .updateTable('payments')
        .set(changes)
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .returningAll()
        .executeTakeFirst()
    },

    /** Links a BTCPay invoice to a pending payment that has none yet; undefined if another request won. */
    attachBtcpayInvoice(
      id: string,
      invoice: { btcpay_invoice_id: string; checkout_url: string; expires_at: Date; updated_at: Date },
      trx: Executor = db,
    ): Promise<PaymentRow | undefined> {
      return trx
        .updateTable('payments')
        .set(invoice)
        .where('id', '=', id)
        .where('status', '=', 'pending')
        .where('btcpay_invoice_id', 'is', null)
        .returningAll()
        .executeTakeFirst()
    },

    /** Records a webhook delivery (once per id; a repeat counts an attempt). */
    async recordWebhookEvent(event: { id: string; provider: string; type: string }, trx: Executor = db) {
      await trx
        .insertInto('webhook_events')
        .values(event)
        .onConflict((oc) =>
          oc.column('id').doUpdateSet((eb) => ({ attempts: eb('webhook_events.attempts', '+', 1) })),
        )
        .execute()
    },

    async finishWebhookEvent(
      id: string,
      result: { processedAt: Date } | { error: string },
      trx: Executor = db,
    ) {
      await trx
        .updateTable('webhook_events')
        .set(
          'processedAt' in result
            ? { processed_at: result.processedAt, last_error: null }
            : { last_error: result.error.slice(0, 500) },
        )
        .where('id', '=', id)
        .execute()
    },

    /**
     * Records something a processor holds as paid that the ledger cannot match; true when it is new
     * (a repeat sighting only moves last_seen_at).
     */
    async recordReconciliationIssue(
      issue: {
        rail: 'card' | 'crypto'
        objectId: string
        kind: string
        amountMinor: number | null
        currency: string | null
        detail: string
        at: Date
      },
      trx: Kysely<DB> | Transaction<DB> = db,
    ): Promise<boolean> {
      const row = await trx
        .insertInto('reconciliation_issues')
        .values({
          rail: issue.rail,
          object_id: issue.objectId,
          kind: issue.kind,
          amount_minor: issue.amountMinor,
          currency: issue.currency,
          detail: issue.detail,
          first_seen_at: issue.at,
          last_seen_at: issue.at,
        })
        .onConflict((oc) => oc.column('object_id').doUpdateSet({ last_seen_at: issue.at }))
        .returning(sql<boolean>`(xmax = 0)`.as('inserted'))
        .executeTakeFirstOrThrow()
      return Boolean(row.inserted)
    },

    listOpenReconciliationIssues(limit: number) {
      return db
        .selectFrom('reconciliation_issues')
        .selectAll()
        .where('resolved_at', 'is', null)
        .orderBy('first_seen_at', 'desc')
        .limit(limit)
        .execute()
    },

    /** Crypto payments still pending after `olderThan` (reconciliation asks BTCPay about them). */
    listStalePendingCrypto(olderThan: Date, limit: number, trx: Executor = db): Promise<PaymentRow[]> {
      return trx
        .selectFrom('payments')
        .selectAll()
        .where('status', '=', 'pending')
        .where('provider', '=', 'crypto')
        .where('btcpay_invoice_id', 'is not', null)
        .where('updated_at', '<', olderThan)
        .orderBy('updated_at')
        .limit(limit)
        .execute()
    },

    findByCharge(chargeId: string, trx: Executor = db): Promise<PaymentRow | undefined> {
      return trx
        .selectFrom('payments')
        .selectAll()
        .where('stripe_charge_id', '=', chargeId)
        .executeTakeFirst()
    },

    /** The member's open checkout for a plan, if any (at most one, by index). */
    findPendingCheckout(userId: string, planId: string, provider: 'stripe' | 'crypto', trx: Executor = db) {
      return trx
        .selectFrom('payments')
        .selectAll()
        .where('user_id', '=', userId)
        .where('plan_id', '=', planId)
        .where('provider', '=', provider)
        .where('status', '=', 'pending')
        .where('kind', 'in', ['subscription', 'lifetime'])
        .executeTakeFirst()
    },

    /** Inserts a pending checkout unless one is open already (then returns undefined). */
    insertPendingCheckout(
      payment: Insertable<PaymentsTable>,
      trx: Executor = db,
    ): Promise<PaymentRow | undefined> {
      return trx
        .insertInto('payments')
        .values(payment)
        .onConflict((oc) =>
          oc
            .columns(['user_id', 'plan_id', 'provider'])
            .where('status', '=', 'pending')
            .where('kind', 'in', ['subscription', 'lifetime'])
            .doNothing(),
        )
        .returningAll()
        .executeTakeFirst()
    },

    insert(payment: Insertable<PaymentsTable>, trx: Executor = db): Promise<PaymentRow> {
      return trx.insertInto('payments').values(payment).returningAll().executeTakeFirstOrThrow()
    },

    /** For renewals first seen in a webhook: one row per Stripe invoice, however many deliveries race. */
    async insertForInvoiceIfMissing(payment: Insertable<PaymentsTable>, trx: Executor = db): Promise<void> {
      await trx
        .insertInto('payments')
        .values(payment)
        .onConflict((oc) => oc.column('stripe_invoice_id').doNothing())
        .execute()
    },

    update(
      id: string,
      changes: Updateable<PaymentsTable>,
      trx: Executor = db,
    ): Promise<PaymentRow | undefined> {
      return trx.updateTable('payments').set(changes).where('id', '=', id).returningAll().executeTakeFirst()
    },

    /** Card payments still pending after `olderThan` (for reconciliation). */
    listStalePending(olderThan: Date, limit: number, trx: Executor = db): Promise<PaymentRow[]> {
      return trx
        .selectFrom('payments')
        .selectAll()
        .where('status', '=', 'pending')
        .where('provider', '=', 'stripe')
        .where('stripe_payment_intent_id', 'is not', null)
        .where('updated_at', '<', olderThan)
        .orderBy('updated_at')
        .limit(limit)
        .execute()
    },

    /** Completed payments of a member, summed per currency (minor units). */
    async completedTotals(userId: string) {
      return db
        .selectFrom('payments')
        .select([
          'currency',
          (eb) => eb.fn.sum<number>('amount_minor').as('total'),
          (eb) => eb.fn.countAll<number>().as('count'),
        ])
        .where('user_id', '=', userId)
        .where('status', '=', 'completed')
        .groupBy('currency')
        .orderBy('currency')
        .execute()
    },

    /**
     * Search finds a member by email (trigram index), a plan by name, or a status or kind. A term that
     * names no plan, status or kind searches members only, through the payments' member index. The
     * whole ledger's pages take their ids from a sort index alone, then read only their own rows; totals
     * come from the rollups (plus the few rows of found members that the rollups cannot tell apart).
     */
    /**
     * A page of one member's own payments, as their history shows them: only the columns the view
     * needs and the plan's name (every dashboard open reads this; the admin list below also joins the
     * member's email and reads every column). A search goes through the list's term matching.
     */
    async memberPage(userId: string, query: Omit<PaymentListQuery, 'userId'>) {
      if (query.search !== undefined) return this.list({ ...query, userId })
      const base = filteredBy(db.selectFrom('payments'), { ...query, userId })
      const page = deferredPage(db, 'payments', base, PAYMENT_SORTS[query.sortBy], query)
      const rows = await page
        .inOrder(
          base
            .leftJoin('plans', 'plans.id', 'payments.plan_id')
            .select(PAYMENT_VIEW_COLUMNS.map((column) => `payments.${column}` as const))
            .select('plans.name as plan_name'),
        )
        .limit(query.limit)
        .offset((query.page - 1) * query.limit)
        .execute()
      // One member's payments are few: counted only when the page cannot tell their number.
      return page.result(rows, () => countRows(base))
    },

    async list(query: PaymentListQuery) {
      const term = query.search?.toLowerCase()
      const match = term === undefined ? undefined : await termMatch(db, term, PAYMENT_NAMES)
      const members = term
        ? db.selectFrom('users').select('id').where(sql`lower(email)`, 'like', `%${term}%`)
        : undefined
      const filtered = (qb: SelectQueryBuilder<DB, 'payments', object>) => filteredBy(qb, query)
      let base = filtered(db.selectFrom('payments'))
      if (members && match) {
        base = noMatch(match)
          ? base.where('payments.user_id', 'in', members)
          : base.where((eb) =>
              eb.or([eb('payments.user_id', 'in', members), termCondition(match, { kinds: true })]),
            )
      }
      // One member's few payments are read directly; everyone's through a page of ids.
      const page = deferredPage(db, 'payments', base, PAYMENT_SORTS[query.sortBy], query)
      let ordered = page.inOrder(
        (query.userId ? base : page.from)
          .leftJoin('plans', 'plans.id', 'payments.plan_id')
          .innerJoin('users', 'users.id', 'payments.user_id')
          .selectAll('payments')
          .select(['plans.name as plan_name', 'plans.slug as plan_slug', 'users.email as user_email']),
      )
      if (query.userId) ordered = ordered.limit(query.limit).offset((query.page - 1) * query.limit)
      return page.result(await ordered.execute(), async () => {
        // One member's payments are few: count them.
        if (query.userId) return countRows(base)
        if (!members || !match) return rollups.payments({ provider: query.provider, status: query.status })
        // Found members' payments, except those the rollups count below.
        const ofMembers = countRows(
          filtered(db.selectFrom('payments'))
            .where('payments.user_id', 'in', members)
            .where(sql<boolean>`not ${termCondition(match, { kinds: true })}`),
        )
        const named = noMatch(match)
          ? 0
          : rollups.payments({
              provider: query.provider,
              status: query.status,
              also: termCondition(match, { kinds: true }),
            })
        return (await ofMembers) + (await named)
      })
    },
  }
}
export type PaymentsRepository = ReturnType<typeof createPaymentsRepository>
