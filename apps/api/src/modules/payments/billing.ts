import { cryptoMessages } from '@edgeclub/shared'
import type { FastifyBaseLogger, FastifyInstance } from 'fastify'
import type { Kysely } from 'kysely'
import type { Config } from '../../config'
import type { DB, PaymentRow } from '../../db/types'
import { btcpaySettings, createBtcpayClient } from '../../integrations/btcpay/btcpay-client'
import { createStripe } from '../../integrations/stripe/stripe-client'
import type { Jobs } from '../../jobs/boss'
import type { EmailQueue } from '../../jobs/email'
import type { Clock } from '../../lib/clock'
import type { AuthRepository } from '../auth/auth-repository'
import type { PlansRepository } from '../plans/plans-repository'
import { createSubscriptionsRepository } from '../subscriptions/subscriptions-repository'
import { subscriptionRoutes } from '../subscriptions/subscriptions-routes'
import { createSubscriptionsService } from '../subscriptions/subscriptions-service'
import { tipRoutes } from '../tips/tips-routes'
import { createTipsService } from '../tips/tips-service'
import { cancellationEmail, receiptEmail, renewalFailedEmail } from './billing-emails'
import { createCheckoutService } from './checkout-service'
import { btcpayWebhookRoutes, cryptoRoutes } from './crypto-routes'
import { createCryptoService } from './crypto-service'
import { createFulfilment } from './fulfilment'
import { createPaymentsRepository } from './payments-repository'
import { paymentRoutes } from './payments-routes'
import { createReconciliation } from './reconciliation'
import { createStripeCatalog } from './stripe-catalog'
import { stripeWebhookRoutes } from './stripe-webhook-routes'
import { createStripeWebhooks } from './stripe-webhooks'

/** Listeners outside billing that care when someone's access starts or ends (Discord role sync). */
export interface AccessListeners {
  accessChanged(userId: string): Promise<void>
}

/**
 * Wires payments, subscriptions and tips: Stripe (when configured), the access ledger, the one
 * fulfilment, webhooks, the safety-net jobs and the member emails.
 */
export async function createBilling(deps: {
  config: Config
  db: Kysely<DB>
  jobs: Jobs
  email: EmailQueue
  clock: Clock
  users: AuthRepository
  plans: PlansRepository
  log: FastifyBaseLogger
  listeners: AccessListeners
}) {
  const { config, db, clock, log } = deps
  const stripe = createStripe({ secretKey: config.stripe.secretKey, apiBase: config.stripe.apiBase })
  const catalog = stripe ? createStripeCatalog({ db, stripe }) : undefined
  const payments = createPaymentsRepository(db)
  const subscriptionsRepo = createSubscriptionsRepository(db)
  const subscriptions = createSubscriptionsService({ repo: subscriptionsRepo, clock })

  const member = async (userId: string) => deps.users.findUserById(userId)
  const planName = async (planId: string | null) =>
    planId ? ((await deps.plans.findById(planId))?.name ?? 'EdgeClub') : 'EdgeClub'

  const fulfilment = createFulfilment({
    payments,
    subscriptions: subscriptionsRepo,
    plans: deps.plans,
    clock,
    hooks: {
      async paymentCompleted(payment: PaymentRow) {
        const user = await member(payment.user_id)
        if (user) {
          const what =
            payment.kind === 'tip' ? 'your tip — thank you!' : `the ${await planName(payment.plan_id)} plan`
          await deps.email.enqueue(
            receiptEmail({
              to: user.email,
              firstName: user.first_name,
              what,
              amountMinor: payment.amount_minor,
              currency: payment.currency,
              paymentId: payment.id,
              appOrigin: config.appOrigin,
            }),
          )
        }
        if (payment.kind !== 'tip') await deps.listeners.accessChanged(payment.user_id)
        if (payment.plan_id && payment.kind !== 'tip') await closeOtherRail(payment, payment.plan_id)
      },
    },
  })

  /** A plan paid on one rail: the member's unfinished checkout for it on the other rail is closed. */
  const closeOtherRail = async (payment: PaymentRow, planId: string) => {
    try {
      if (payment.provider === 'crypto')
        await checkout.abandonOpenCheckout(payment.user_id, planId, cryptoMessages.paidWithCrypto)
      else if (payment.provider === 'stripe') await crypto.abandonOpenInvoice(payment.user_id, planId)
    } catch (error) {
      // Housekeeping after the commit: access is granted already; the open checkout just stays open.
      log.warn(
        { paymentId: payment.id, reason: error instanceof Error ? error.message : String(error) },
        'could not close the other checkout of a paid plan',
      )
    }
  }

  const sendCancellation = async (subscriptionId: string) => {
    const row = await subscriptionsRepo.findById(subscriptionId)
    const user = row ? await member(row.user_id) : undefined
    if (!row?.end_date || !user) return
    await deps.email.enqueue(
      cancellationEmail({
        to: user.email,
        firstName: user.first_name,
        planName: await planName(row.plan_id),
        endDate: new Date(row.end_date),
        appOrigin: config.appOrigin,
      }),
    )
  }

  const checkout = createCheckoutService({
    stripe,
    catalog,
    payments,
    subscriptions: subscriptionsRepo,
    access: subscriptions,
    plans: deps.plans,
    users: deps.users,
    fulfilment,
    clock,
    graceDays: config.billing.graceDays,
    log,
    hooks: {
      async renewalFailed(subscriptionId, graceUntil) {
        const row = await subscriptionsRepo.findById(subscriptionId)
        const user = row ? await member(row.user_id) : undefined
        if (!row || !user) return
        await deps.email.enqueue(
          renewalFailedEmail({
            to: user.email,
            firstName: user.first_name,
            planName: await planName(row.plan_id),
            graceUntil,
            appOrigin: config.appOrigin,
          }),
        )
      },
      cancelled: sendCancellation,
    },
  })
  const tips = createTipsService({ stripe, payments, checkout, clock })
  const webhooks = stripe
    ? createStripeWebhooks({
        stripe,
        db,
        payments,
        subscriptions: subscriptionsRepo,
        checkout,
        fulfilment,
        clock,
        log,
        hooks: { accessChanged: deps.listeners.accessChanged, cancelledByStripe: sendCancellation },
      })
    : undefined
  const reconciliation = stripe ? createReconciliation({ stripe, payments, checkout, clock, log }) : undefined
  const btcpayConfig = btcpaySettings(config.btcpay)
  const btcpay = btcpayConfig ? createBtcpayClient(btcpayConfig) : undefined
  const crypto = createCryptoService({
    btcpay,
    storeId: btcpayConfig?.storeId,
    payments,
    subscriptions: subscriptionsRepo,
    access: subscriptions,
    checkout,
    fulfilment,
    users: deps.users,
    email: deps.email,
    clock,
    appOrigin: config.appOrigin,
    log,
  })

  const expire = async () => {
    const ended = await subscriptions.expireEnded()
    for (const userId of new Set(ended.map((row) => row.user_id))) await deps.listeners.accessChanged(userId)
    return ended.length
  }

  await deps.jobs.work('subscriptions.expire', async () => {
    await expire()
  })
  await deps.jobs.schedule('subscriptions.expire', '* * * * *')
  if (reconciliation || btcpay) {
    await deps.jobs.work('payments.reconcile', async () => {
      await reconciliation?.run()
      await crypto.reconcile()
    })
    await deps.jobs.schedule('payments.reconcile', '*/5 * * * *')
  }
  if (btcpay) {
    await deps.jobs.work('crypto.reminders', async () => {
      await crypto.sendRenewalReminders()
    })
    // Daily: the reminder window is 3 days wide and each period is reminded once (its end date is the key).
    await deps.jobs.schedule('crypto.reminders', '30 8 * * *')
  }

  return {
    stripe,
    catalog,
    payments,
    subscriptionsRepo,
    subscriptions,
    checkout,
    tips,
    fulfilment,
    webhooks,
    reconciliation,
    crypto,
    expire,
    async registerRoutes(api: FastifyInstance) {
      await api.register(paymentRoutes, { checkout, payments })
      await api.register(subscriptionRoutes, { subscriptions, checkout })
      await api.register(tipRoutes, { tips })
      await api.register(stripeWebhookRoutes, { stripe, secret: config.stripe.webhookSecret, webhooks })
      await api.register(cryptoRoutes, { crypto })
      await api.register(btcpayWebhookRoutes, { secret: btcpayConfig?.webhookSecret, crypto })
    },
  }
}
export type Billing = Awaited<ReturnType<typeof createBilling>>
