import { checkoutMessages, fromMinorUnits, type TipCreate, toMinorUnits } from '@edgeclub/shared'
import type Stripe from 'stripe'
import type { UserRow } from '../../db/types'
import type { Clock } from '../../lib/clock'
import { AppError, notFound } from '../../lib/errors'
import type { CheckoutService } from '../payments/checkout-service'
import type { PaymentsRepository } from '../payments/payments-repository'

/** Tips: a one-off PaymentIntent for the amount the member chose (validated on the server too). */
export function createTipsService(deps: {
  stripe: Stripe | undefined
  payments: PaymentsRepository
  checkout: CheckoutService
  clock: Clock
}) {
  const view = (row: {
    id: string
    amount_minor: number
    currency: string
    message: string | null
    status: string
    created_at: Date
  }) => ({
    id: row.id,
    _id: row.id,
    amount: fromMinorUnits(row.amount_minor, row.currency),
    currency: row.currency,
    message: row.message ?? '',
    status: row.status,
    createdAt: new Date(row.created_at).toISOString(),
  })

  return {
    async create(user: UserRow, input: TipCreate) {
      if (!deps.stripe)
        throw new AppError('PAYMENT_ERROR', checkoutMessages.paymentsUnavailable, { statusCode: 503 })
      const amountMinor = toMinorUnits(input.amount, input.currency)
      const row = await deps.payments.insert({
        user_id: user.id,
        plan_id: null,
        kind: 'tip',
        provider: 'stripe',
        status: 'pending',
        amount_minor: amountMinor,
        currency: input.currency,
        message: input.message || null,
      })
      const customer = await deps.checkout.ensureCustomer(user)
      const intent = await deps.stripe.paymentIntents.create(
        {
          amount: amountMinor,
          currency: input.currency.toLowerCase(),
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
      return {
        clientSecret: intent.client_secret ?? '',
        paymentIntentId: intent.id,
        tipId: row.id,
        amount: input.amount,
        currency: input.currency,
        message: input.message ?? '',
      }
    },

    /** GET /tips/status/{id} (our tip id or its PaymentIntent id): own tips only, synced with Stripe. */
    async status(user: UserRow, id: string) {
      const row = await deps.checkout.ownPayment(user.id, id)
      if (row.kind !== 'tip') throw notFound('Tip not found')
      if (row.status === 'pending' && row.stripe_payment_intent_id && deps.stripe) {
        await deps.checkout.syncIntent(
          row,
          await deps.stripe.paymentIntents.retrieve(row.stripe_payment_intent_id),
        )
      }
      return view((await deps.payments.findById(row.id)) ?? row)
    },
  }
}
export type TipsService = ReturnType<typeof createTipsService>
