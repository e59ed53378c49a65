import {
  checkoutMessages,
  fromMinorUnits,
  type Tip,
  type TipCreate,
  type TipIntent,
  tipMessages,
  toMinorUnits,
} from '@edgeclub/shared'
import type Stripe from 'stripe'
import type { PaymentRow, UserRow } from '../../../db/types'
import type { Clock } from '../../../lib/clock'
import { AppError, conflict, notFound } from '../../../lib/errors'
import { type CardCheckoutService, REUSABLE } from '../card/card-checkout-service'
import type { PaymentsRepository } from '../common/payments-repository'
import type { PaymentsService } from '../common/payments-service'
import type { TipDetails, TipsRepository } from './tips-repository'

/**
 * Tips: a one-off PaymentIntent for the amount the member chose (validated on the server too). A tip
 * is one PaymentIntent however often it is asked for: while the member has an unpaid tip with the same
 * amount, currency and message, asking again (a double click, Cancel and Continue, a retry after a
 * network error) answers that tip and its PaymentIntent instead of starting another.
 */
export function createTipsService(deps: {
  stripe: Stripe | undefined
  repo: TipsRepository
  payments: PaymentsRepository
  ledger: PaymentsService
  card: CardCheckoutService
  clock: Clock
}) {
  const view = (row: {
    id: string
    amount_minor: number
    currency: string
    message: string | null
    status: Tip['status']
    created_at: Date
  }): Tip => ({
    id: row.id,
    _id: row.id,
    amount: fromMinorUnits(row.amount_minor, row.currency),
    currency: row.currency,
    message: row.message ?? '',
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
  })

  /** The member's open tip with these details, or a new one. */
  function openTip(user: UserRow, details: TipDetails): Promise<PaymentRow> {
    return deps.repo.transaction(async (trx) => {
      // One member's tip requests take turns here, so the second of two quick clicks finds the
      // tip the first one opened.
      await deps.repo.lockMember(user.id, trx)
      const open = await deps.repo.findOpenTip(user.id, details, trx)
      if (open) return open
      return deps.payments.insert(
        {
          user_id: user.id,
          plan_id: null,
          kind: 'tip',
          provider: 'stripe',
          status: 'pending',
          amount_minor: details.amountMinor,
          currency: details.currency,
          message: details.message,
        },
        trx,
      )
    })
  }

  /**
   * The PaymentIntent that takes this tip: made once (requests that race here send one idempotency
   * key, so Stripe makes one), then reused while it can still be paid. Undefined when this tip is over
   * (paid meanwhile, or cancelled at Stripe), so the caller opens a new one.
   */
  async function intentOf(
    stripe: Stripe,
    user: UserRow,
    row: PaymentRow,
  ): Promise<{ id: string; clientSecret: string } | undefined> {
    if (!row.stripe_payment_intent_id) {
      const customer = await deps.card.ensureCustomer(user)
      const intent = await stripe.paymentIntents.create(
        {
          amount: row.amount_minor,
          currency: row.currency.toLowerCase(),
          customer,
          description: 'EdgeClub tip',
          metadata: { paymentId: row.id, userId: user.id, kind: 'tip' },
          automatic_payment_methods: { enabled: true, allow_redirects: 'never' },
        },
        { idempotencyKey: `tip-${row.id}` },
      )
      await deps.payments.update(row.id, {
        stripe_payment_intent_id: intent.id,
        stripe_client_secret: intent.client_secret,
        updated_at: deps.clock.now(),
      })
      return { id: intent.id, clientSecret: intent.client_secret ?? '' }
    }
    const intent = await stripe.paymentIntents.retrieve(row.stripe_payment_intent_id)
    if (REUSABLE.has(intent.status) && intent.amount === row.amount_minor)
      return { id: intent.id, clientSecret: intent.client_secret ?? row.stripe_client_secret ?? '' }
    const outcome = await deps.card.syncIntent(row, intent)
    // Stripe is still settling it: a second tip of the same kind now is most likely the same one.
    if (outcome === 'open') throw conflict(tipMessages.stillProcessing)
    return undefined
  }

  return {
    async create(user: UserRow, input: TipCreate): Promise<TipIntent> {
      if (!deps.stripe)
        throw new AppError('PAYMENT_ERROR', checkoutMessages.paymentsUnavailable, { statusCode: 503 })
      const details: TipDetails = {
        amountMinor: toMinorUnits(input.amount, input.currency),
        currency: input.currency,
        message: input.message || null,
      }
      // The second pass finds the tip the first one closed gone, and opens a fresh one.
      for (let attempt = 0; attempt < 2; attempt++) {
        const row = await openTip(user, details)
        const intent = await intentOf(deps.stripe, user, row)
        if (intent)
          return {
            clientSecret: intent.clientSecret,
            paymentIntentId: intent.id,
            tipId: row.id,
            amount: input.amount,
            currency: input.currency,
            message: input.message ?? '',
          }
      }
      throw new AppError('PAYMENT_ERROR', tipMessages.created)
    },

    /** GET /tips/status/{id} (our tip id or its PaymentIntent id): own tips only, synced with Stripe. */
    async status(user: UserRow, id: string) {
      const row = await deps.ledger.ownOrThrow(user.id, id)
      if (row.kind !== 'tip') throw notFound('Tip not found')
      if (row.status === 'pending' && row.stripe_payment_intent_id && deps.stripe) {
        await deps.card.syncIntent(
          row,
          await deps.stripe.paymentIntents.retrieve(row.stripe_payment_intent_id),
        )
      }
      return view((await deps.payments.findById(row.id)) ?? row)
    },
  }
}
export type TipsService = ReturnType<typeof createTipsService>
