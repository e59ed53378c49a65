import {
  type CryptoCheckout,
  cryptoMessages,
  dashboardTab,
  fromMinorUnits,
  minorUnitDigits,
  site,
} from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { TransactionRunner } from '../../../db/transaction'
import type { PaymentRow, PlanRow, UserRow } from '../../../db/types'
import {
  type BtcpayClient,
  BtcpayError,
  type BtcpayInvoice,
  type BtcpayWebhookEvent,
} from '../../../integrations/btcpay/btcpay-client'
import { addMs, type Clock, MINUTE } from '../../../lib/clock'
import { AppError, conflict } from '../../../lib/errors'
import type { PlansService } from '../../plans/plans-service'
import type { AccessService } from '../../subscriptions/access-service'
import type { Fulfilment } from '../common/fulfilment'
import type { PaymentsRepository } from '../common/payments-repository'
import { assertCanBuy } from '../common/purchase-rules'
import { RECONCILE_AFTER, type ReconciliationSource } from '../common/reconciliation'
import type { PromoCodesService } from '../promo/promo-codes-service'

/** How long a member has to pay a crypto invoice. */
const INVOICE_MINUTES = 30
/** An open invoice is handed out again only if this much time is left to pay it. */
const REUSE_MIN_LEFT = 5 * MINUTE

export type SyncOutcome = 'fulfilled' | 'already' | 'failed' | 'open' | 'unknown'

/**
 * Crypto through BTCPay Server: an invoice for our plan's price, a pending payment with
 * provider 'crypto', and the same fulfilment as a card once BTCPay says the invoice settled. BTCPay is
 * the truth for crypto money: webhooks and reconciliation only tell us when to ask it.
 */
export function createCryptoService(deps: {
  btcpay: BtcpayClient | undefined
  storeId: string | undefined
  payments: PaymentsRepository
  access: Pick<AccessService, 'currentAccess'>
  plans: PlansService
  fulfilment: Fulfilment
  promos: Pick<PromoCodesService, 'offer' | 'continuingOffer' | 'hold'>
  transaction: TransactionRunner
  clock: Clock
  appOrigin: string
  log: FastifyBaseLogger
}) {
  const { payments, clock, log } = deps

  function btcpayOrThrow(): BtcpayClient {
    if (!deps.btcpay) throw new AppError('PAYMENT_ERROR', cryptoMessages.unavailable, { statusCode: 503 })
    return deps.btcpay
  }

  /** BTCPay down or refusing: the member gets a clear, safe message; the operator gets the reason. */
  async function upstream<T>(what: string, call: () => Promise<T>): Promise<T> {
    try {
      return await call()
    } catch (error) {
      if (!(error instanceof BtcpayError)) throw error
      log.warn({ status: error.status, code: error.code, reason: error.message }, `BTCPay ${what} failed`)
      throw new AppError('UPSTREAM_ERROR', cryptoMessages.unavailable)
    }
  }

  const view = (row: PaymentRow): CryptoCheckout => ({
    checkoutUrl: row.checkout_url ?? '',
    invoiceId: row.btcpay_invoice_id ?? '',
    paymentId: row.id,
    amount: fromMinorUnits(row.amount_minor, row.currency),
    currency: row.currency,
    expiresAt: row.expires_at ? new Date(row.expires_at).toISOString() : '',
  })

  /** Brings a crypto payment in line with its invoice as BTCPay reports it now (safe to repeat). */
  async function syncInvoice(invoice: BtcpayInvoice): Promise<SyncOutcome> {
    if (invoice.status === 'Settled') {
      const outcome = await deps.fulfilment.fulfilCrypto(invoice.id)
      // Money arrived and we cannot tell whose it is: the operator must look (never silently dropped).
      if (outcome === 'unknown')
        log.error(
          { invoiceId: invoice.id, metadata: invoice.metadata },
          'a settled BTCPay invoice matches no payment',
        )
      return outcome
    }
    const payment = await payments.findByBtcpayInvoice(invoice.id)
    if (!payment) return 'unknown'
    if (payment.status !== 'pending') return 'already'
    const now = clock.now()
    const partial = invoice.additionalStatus === 'PaidPartial'
    if (invoice.status === 'Expired' || invoice.status === 'Invalid') {
      const reason =
        invoice.status === 'Invalid'
          ? cryptoMessages.invalid
          : partial
            ? cryptoMessages.expiredUnderpaid
            : cryptoMessages.expired
      const failed = await payments.updatePending(payment.id, {
        status: 'failed',
        failure_message: reason,
        updated_at: now,
      })
      return failed ? 'failed' : 'already'
    }
    // New or Processing: still open; say where it stands (underpaid, or waiting for confirmations).
    const note =
      invoice.status === 'Processing' ? cryptoMessages.processing : partial ? cryptoMessages.underpaid : null
    if (note !== payment.failure_message)
      await payments.updatePending(payment.id, { failure_message: note, updated_at: now })
    return 'open'
  }

  /** A new invoice for a pending payment; a concurrent request that got there first wins. */
  async function openInvoice(btcpay: BtcpayClient, row: PaymentRow, user: UserRow, plan: PlanRow) {
    const digits = minorUnitDigits(row.currency)
    const invoice = await upstream('invoice creation', () =>
      btcpay.createInvoice({
        // Our price, never the client's: the amount comes from the plan row, as a decimal string.
        amount: (row.amount_minor / 10 ** digits).toFixed(digits),
        currency: row.currency,
        metadata: {
          orderId: row.id,
          paymentId: row.id,
          userId: user.id,
          planId: plan.id,
          itemDesc: `${site.name} ${plan.name}`,
        },
        redirectUrl: `${deps.appOrigin}${dashboardTab('payments')}`,
        expirationMinutes: INVOICE_MINUTES,
      }),
    )
    const attached = await payments.attachBtcpayInvoice(row.id, {
      btcpay_invoice_id: invoice.id,
      checkout_url: invoice.checkoutLink,
      expires_at: new Date(invoice.expirationTime * 1000),
      updated_at: clock.now(),
    })
    if (attached) return attached
    // A double click: the other request linked its invoice first; both members' tabs get that one.
    const winner = await payments.findById(row.id)
    if (winner?.status === 'pending' && winner.btcpay_invoice_id) return winner
    throw new AppError('PAYMENT_ERROR', cryptoMessages.startFailed)
  }

  return {
    configured: () => Boolean(deps.btcpay),
    syncInvoice,

    /** POST /payments/create-crypto: an invoice for the plan's price (never the client's), reused while open. */
    /**
     * POST /payments/create-crypto: an invoice for the plan's price, less a promo code's discount (a
     * code typed now, or one redeemed before that goes on for months or for ever), computed here.
     */
    async createCheckout(
      user: UserRow,
      planId: string,
      promoCode?: string,
      attempt = 0,
    ): Promise<CryptoCheckout> {
      const btcpay = btcpayOrThrow()
      const plan = await deps.plans.onSaleOrThrow(planId)
      assertCanBuy(await deps.access.currentAccess(user.id), plan, 'crypto')
      const typed = promoCode ? await deps.promos.offer(user, promoCode, plan) : undefined
      const offer = typed ?? (await deps.promos.continuingOffer(user, plan))
      const created = await payments.insertPendingCheckout({
        user_id: user.id,
        plan_id: plan.id,
        kind: plan.interval === 'lifetime' ? 'lifetime' : 'subscription',
        provider: 'crypto',
        status: 'pending',
        amount_minor: offer?.amountDueMinor ?? plan.price_minor,
        currency: plan.currency,
        // Only a code typed now holds a redemption; one redeemed before just keeps its discount.
        promo_code_id: typed?.promo.id ?? null,
        discount_minor: offer?.discountMinor ?? 0,
      })
      const row = created ?? (await payments.findPendingCheckout(user.id, plan.id, 'crypto'))
      if (!row) throw new AppError('PAYMENT_ERROR', cryptoMessages.startFailed)
      if (row.amount_minor !== (offer?.amountDueMinor ?? plan.price_minor) && row.status === 'pending') {
        // The open invoice was for another price (another code): it is replaced.
        await payments.updatePending(row.id, {
          status: 'cancelled',
          failure_message: cryptoMessages.replaced,
          updated_at: clock.now(),
        })
        if (attempt > 0) throw new AppError('PAYMENT_ERROR', cryptoMessages.startFailed)
        return this.createCheckout(user, planId, promoCode, attempt + 1)
      }
      if (!row.btcpay_invoice_id) {
        if (typed) {
          try {
            await deps.transaction((trx) => deps.promos.hold(trx, typed, user, plan, row.id))
          } catch (error) {
            await payments.updatePending(row.id, { status: 'cancelled', updated_at: clock.now() })
            throw error
          }
        }
        return view(await openInvoice(btcpay, row, user, plan))
      }

      // The member's open invoice for this plan: hand it out again while it can still be paid.
      const invoice = await upstream('invoice lookup', () => btcpay.getInvoice(row.btcpay_invoice_id!))
      const outcome = await syncInvoice(invoice)
      if (outcome === 'fulfilled' || outcome === 'already') {
        const fresh = await payments.findById(row.id)
        if (fresh?.status === 'completed') throw conflict(cryptoMessages.alreadyPaid)
      }
      const timeLeft = invoice.expirationTime * 1000 - clock.now().getTime()
      // Part-paid: the member must send the rest to this very invoice, however little time is left.
      const partlyPaid = invoice.additionalStatus === 'PaidPartial' && timeLeft > 0
      if (outcome === 'open' && (invoice.status === 'Processing' || partlyPaid || timeLeft >= REUSE_MIN_LEFT))
        return view(row)
      if (outcome === 'open') {
        // Nearly expired and nothing paid: a fresh invoice rather than minutes to pay. Should the old one
        // still be paid, its settlement completes this payment all the same (fulfilment accepts it).
        await payments.updatePending(row.id, {
          status: 'cancelled',
          failure_message: cryptoMessages.replaced,
          updated_at: clock.now(),
        })
      }
      if (attempt > 0) throw new AppError('PAYMENT_ERROR', cryptoMessages.startFailed)
      return this.createCheckout(user, planId, promoCode, attempt + 1)
    },

    /**
     * POST /webhooks/btcpay, after the signature: the delivery is recorded (one row per original
     * delivery, redeliveries count attempts), then the invoice is read from BTCPay and acted on.
     */
    async handleWebhook(event: BtcpayWebhookEvent): Promise<SyncOutcome | 'ignored'> {
      const btcpay = btcpayOrThrow()
      const id = event.originalDeliveryId ?? event.deliveryId
      await payments.recordWebhookEvent({ id, provider: 'btcpay', type: event.type })
      if (
        !event.invoiceId ||
        !event.type.startsWith('Invoice') ||
        (event.storeId !== undefined && event.storeId !== deps.storeId)
      ) {
        await payments.finishWebhookEvent(id, { processedAt: clock.now() })
        return 'ignored'
      }
      try {
        let outcome: SyncOutcome
        try {
          outcome = await syncInvoice(await btcpay.getInvoice(event.invoiceId))
        } catch (error) {
          // Not an invoice of our store: nothing to do, and retrying would not change that.
          if (!(error instanceof BtcpayError && error.status === 404)) throw error
          log.warn({ invoiceId: event.invoiceId }, 'BTCPay webhook for an invoice our store does not have')
          outcome = 'unknown'
        }
        await payments.finishWebhookEvent(id, { processedAt: clock.now() })
        return outcome
      } catch (error) {
        await payments.finishWebhookEvent(id, {
          error: error instanceof Error ? error.message : String(error),
        })
        throw error
      }
    },

    /**
     * The member paid this plan by card: their open crypto payment for it is closed here. The invoice
     * itself stays at BTCPay until it expires; coins sent to it anyway still complete the payment.
     */
    async abandonOpenInvoice(userId: string, planId: string): Promise<void> {
      const row = await payments.findPendingCheckout(userId, planId, 'crypto')
      if (!row) return
      await payments.updatePending(row.id, {
        status: 'cancelled',
        failure_message: cryptoMessages.paidByCard,
        updated_at: clock.now(),
      })
    },

    /** A lost webhook loses nothing: crypto payments pending for a while are settled by asking BTCPay. */
    reconciliation: {
      rail: 'crypto',
      async reconcile() {
        if (!deps.btcpay) return { checked: 0, settled: 0 }
        const btcpay = deps.btcpay
        let settled = 0
        const stale = await payments.listStalePendingCrypto(addMs(clock.now(), -RECONCILE_AFTER), 100)
        for (const payment of stale) {
          try {
            const outcome = await syncInvoice(await btcpay.getInvoice(payment.btcpay_invoice_id!))
            // Still open: look again next time, not on every run.
            if (outcome === 'open') await payments.update(payment.id, { updated_at: clock.now() })
            else settled += 1
          } catch (error) {
            log.warn(
              { paymentId: payment.id, reason: error instanceof Error ? error.message : String(error) },
              'crypto reconciliation failed for a payment',
            )
          }
        }
        if (settled > 0) log.info({ settled }, 'crypto reconciliation settled payments a webhook did not')
        return { checked: stale.length, settled }
      },
    } satisfies ReconciliationSource,
  }
}
export type CryptoService = ReturnType<typeof createCryptoService>
