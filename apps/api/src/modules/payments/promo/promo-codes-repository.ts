import { type Insertable, type Kysely, sql, type Transaction } from 'kysely'
import { transactionRunner } from '../../../db/transaction'
import type { DB, PromoCodeRow, PromoCodesTable } from '../../../db/types'

type Executor = Kysely<DB> | Transaction<DB>

/** Promo codes and their redemptions; queries only. */
export function createPromoCodesRepository(db: Kysely<DB>) {
  return {
    transaction: transactionRunner(db),

    insert(code: Insertable<PromoCodesTable>, trx: Executor = db): Promise<PromoCodeRow> {
      return trx.insertInto('promo_codes').values(code).returningAll().executeTakeFirstOrThrow()
    },

    setStripeIds(id: string, ids: { couponId: string; promotionCodeId: string }, trx: Executor = db) {
      return trx
        .updateTable('promo_codes')
        .set({ stripe_coupon_id: ids.couponId, stripe_promotion_code_id: ids.promotionCodeId })
        .where('id', '=', id)
        .execute()
    },

    findById(id: string, trx: Executor = db): Promise<PromoCodeRow | undefined> {
      return trx.selectFrom('promo_codes').selectAll().where('id', '=', id).executeTakeFirst()
    },

    /** Codes are matched without regard to case (the unique index is on upper(code)). */
    findByCode(code: string, trx: Executor = db): Promise<PromoCodeRow | undefined> {
      return trx
        .selectFrom('promo_codes')
        .selectAll()
        .where(sql`upper(code)`, '=', code.toUpperCase())
        .executeTakeFirst()
    },

    /** The code's row, held until `trx` ends: redemptions of one code are counted one at a time. */
    lockById(id: string, trx: Transaction<DB>): Promise<PromoCodeRow | undefined> {
      return trx.selectFrom('promo_codes').selectAll().where('id', '=', id).forUpdate().executeTakeFirst()
    },

    deactivate(id: string, at: Date, trx: Executor = db) {
      return trx
        .updateTable('promo_codes')
        .set({ active: false, deactivated_at: at })
        .where('id', '=', id)
        .returningAll()
        .executeTakeFirst()
    },

    /** Every code with its redemptions and what redeeming members paid since. */
    async listWithFigures() {
      const codes = await db.selectFrom('promo_codes').selectAll().orderBy('created_at', 'desc').execute()
      const redeemed = await db
        .selectFrom('promo_redemptions')
        .select(['promo_code_id', (eb) => eb.fn.countAll<number>().as('n')])
        .where('status', '=', 'redeemed')
        .groupBy('promo_code_id')
        .execute()
      // What each redeeming member paid from their redemption on (renewals included), net of refunds.
      const revenue = await db
        .selectFrom('promo_redemptions')
        .innerJoin('payments', 'payments.user_id', 'promo_redemptions.user_id')
        .select([
          'promo_redemptions.promo_code_id',
          'payments.currency',
          sql<number>`sum(payments.amount_minor - payments.amount_refunded_minor)::int8`.as('minor'),
        ])
        .where('promo_redemptions.status', '=', 'redeemed')
        .where('payments.status', 'in', ['completed', 'partially_refunded'])
        .where(sql<boolean>`payments.completed_at >= promo_redemptions.redeemed_at - interval '1 minute'`)
        .groupBy(['promo_redemptions.promo_code_id', 'payments.currency'])
        .execute()
      return { codes, redeemed, revenue }
    },

    /** This member's redemption of this code, if any. */
    findRedemption(codeId: string, userId: string, trx: Executor = db) {
      return trx
        .selectFrom('promo_redemptions')
        .leftJoin('payments', 'payments.id', 'promo_redemptions.payment_id')
        .select([
          'promo_redemptions.id',
          'promo_redemptions.status',
          'promo_redemptions.payment_id',
          'promo_redemptions.redeemed_at',
          'payments.status as payment_status',
        ])
        .where('promo_redemptions.promo_code_id', '=', codeId)
        .where('promo_redemptions.user_id', '=', userId)
        .executeTakeFirst()
    },

    /**
     * Redemptions that count against the code's limit: redeemed ones, and those held by a checkout that
     * can still be paid (other members' only: a member's own hold is replaced, not added).
     */
    async countLive(codeId: string, exceptUserId: string, trx: Executor = db): Promise<number> {
      const row = await trx
        .selectFrom('promo_redemptions')
        .leftJoin('payments', 'payments.id', 'promo_redemptions.payment_id')
        .select((eb) => eb.fn.countAll<number>().as('n'))
        .where('promo_redemptions.promo_code_id', '=', codeId)
        .where('promo_redemptions.user_id', '!=', exceptUserId)
        .where((eb) =>
          eb.or([
            eb('promo_redemptions.status', '=', 'redeemed'),
            eb.and([eb('promo_redemptions.status', '=', 'held'), eb('payments.status', '=', 'pending')]),
          ]),
        )
        .executeTakeFirstOrThrow()
      return Number(row.n)
    },

    /** Holds (or moves) the member's redemption to this checkout. */
    hold(codeId: string, userId: string, paymentId: string | null, trx: Executor = db) {
      return trx
        .insertInto('promo_redemptions')
        .values({ promo_code_id: codeId, user_id: userId, payment_id: paymentId, status: 'held' })
        .onConflict((oc) =>
          oc
            .columns(['promo_code_id', 'user_id'])
            .doUpdateSet({ payment_id: paymentId, status: 'held' })
            .where('promo_redemptions.status', '!=', 'redeemed'),
        )
        .execute()
    },

    /** The checkout's payment went through: its redemption is used. */
    redeem(paymentId: string, at: Date, trx: Executor = db) {
      return trx
        .updateTable('promo_redemptions')
        .set({ status: 'redeemed', redeemed_at: at })
        .where('payment_id', '=', paymentId)
        .where('status', '=', 'held')
        .execute()
    },

    redeemMember(codeId: string, userId: string, at: Date, trx: Executor = db) {
      return trx
        .updateTable('promo_redemptions')
        .set({ status: 'redeemed', redeemed_at: at })
        .where('promo_code_id', '=', codeId)
        .where('user_id', '=', userId)
        .execute()
    },

    /** Codes this member redeemed, for discounts that go on (a crypto member's later payments). */
    redeemedBy(userId: string, trx: Executor = db) {
      return trx
        .selectFrom('promo_redemptions')
        .innerJoin('promo_codes', 'promo_codes.id', 'promo_redemptions.promo_code_id')
        .selectAll('promo_codes')
        .select('promo_redemptions.redeemed_at')
        .where('promo_redemptions.user_id', '=', userId)
        .where('promo_redemptions.status', '=', 'redeemed')
        .orderBy('promo_redemptions.redeemed_at', 'desc')
        .execute()
    },

    /** Whether the member ever paid for a plan (not a tip, not a trial's $0 start, not a free grant). */
    async hasPaid(userId: string, trx: Executor = db): Promise<boolean> {
      const row = await trx
        .selectFrom('payments')
        .select('id')
        .where('user_id', '=', userId)
        .where('status', 'in', ['completed', 'refunded', 'partially_refunded'])
        .where('kind', 'in', ['subscription', 'renewal', 'lifetime', 'upgrade'])
        .where('amount_minor', '>', 0)
        .limit(1)
        .executeTakeFirst()
      return Boolean(row)
    },

    /** Whether the member ever had a subscription (access at some time). */
    async hadSubscription(userId: string, trx: Executor = db): Promise<boolean> {
      const row = await trx
        .selectFrom('subscriptions')
        .select('id')
        .where('user_id', '=', userId)
        .limit(1)
        .executeTakeFirst()
      return Boolean(row)
    },
  }
}
export type PromoCodesRepository = ReturnType<typeof createPromoCodesRepository>
