import { checkoutMessages } from '@edgeclub/shared'
import type Stripe from 'stripe'
import type { PlanRow } from '../../../db/types'
import { AppError } from '../../../lib/errors'
import type { StripeCatalog } from './stripe-catalog'
import { idOf, invoicePaymentIntentId } from './stripe-objects'

/** A renewing card subscription as a plan change, a pause or a card update needs to know it. */
export interface StripeMembership {
  id: string
  customer: string
  itemId: string
  priceId: string
  status: string
  periodStart: Date
  periodEnd: Date
  scheduleId: string | null
  pendingUpdate: boolean
  latestInvoiceId: string | null
}

/** An invoice this change raised: paid, or waiting for the member to confirm it (3-D Secure). */
export interface ChangeInvoice {
  invoiceId: string | null
  paid: boolean
  amountDueMinor: number
  paymentIntentId: string | null
  clientSecret: string | null
}

/**
 * The Stripe side of changing a renewing card plan: previews (Stripe computes the proration), upgrades
 * charged now, downgrades scheduled for the renewal (a subscription schedule), pauses of collection,
 * a new renewal card (a SetupIntent), a retention coupon and free days. Every call carries an
 * idempotency key; none of them writes our database (the caller records what changed).
 */
export function createStripeMembership(deps: { stripe: Stripe; catalog: StripeCatalog }) {
  const { stripe } = deps

  async function load(subscriptionId: string): Promise<StripeMembership> {
    const subscription = await stripe.subscriptions.retrieve(subscriptionId)
    const item = subscription.items.data[0]
    if (!item) throw new AppError('PAYMENT_ERROR', checkoutMessages.unexpected)
    return {
      id: subscription.id,
      customer: idOf(subscription.customer) ?? '',
      itemId: item.id,
      priceId: item.price.id,
      status: subscription.status,
      periodStart: new Date(item.current_period_start * 1000),
      periodEnd: new Date(item.current_period_end * 1000),
      scheduleId: idOf(subscription.schedule),
      pendingUpdate: Boolean(subscription.pending_update),
      latestInvoiceId: idOf(subscription.latest_invoice),
    }
  }

  /** The change of price as Stripe applies it: prorated and invoiced now, a new cycle for a new interval. */
  async function changeDetails(current: StripeMembership, plan: PlanRow, newInterval: boolean) {
    return {
      items: [{ id: current.itemId, price: await deps.catalog.ensurePrice(plan) }],
      proration_behavior: 'always_invoice' as const,
      billing_cycle_anchor: newInterval ? ('now' as const) : ('unchanged' as const),
    }
  }

  function invoiceOutcome(invoice: Stripe.Invoice | null): ChangeInvoice {
    return {
      invoiceId: invoice?.id ?? null,
      paid: invoice?.status === 'paid',
      amountDueMinor: invoice?.amount_due ?? 0,
      paymentIntentId: invoice ? invoicePaymentIntentId(invoice) : null,
      clientSecret: invoice?.confirmation_secret?.client_secret ?? null,
    }
  }

  return {
    load,

    /** What an upgrade would charge now (Stripe's own invoice preview), at `prorationDate`. */
    async previewUpgrade(
      current: StripeMembership,
      plan: PlanRow,
      newInterval: boolean,
      prorationDate: Date,
    ) {
      const details = await changeDetails(current, plan, newInterval)
      const preview = await stripe.invoices.createPreview({
        customer: current.customer,
        subscription: current.id,
        subscription_details: {
          items: details.items,
          proration_behavior: details.proration_behavior,
          proration_date: Math.floor(prorationDate.valueOf() / 1000),
          billing_cycle_anchor: { type: details.billing_cycle_anchor },
        },
      })
      return { amountDueMinor: preview.amount_due }
    },

    /**
     * The upgrade: the new price now, the proration invoiced and charged to the renewal card. Held by
     * Stripe until paid (`pending_if_incomplete`): a card that needs 3-D Secure leaves the plan as it
     * was until the member confirms, and a declined one changes nothing.
     */
    async upgrade(
      current: StripeMembership,
      plan: PlanRow,
      newInterval: boolean,
      prorationDate: Date,
      key: string,
    ): Promise<ChangeInvoice> {
      const details = await changeDetails(current, plan, newInterval)
      const updated = await stripe.subscriptions.update(
        current.id,
        {
          items: details.items,
          proration_behavior: details.proration_behavior,
          proration_date: Math.floor(prorationDate.valueOf() / 1000),
          billing_cycle_anchor: { type: details.billing_cycle_anchor },
          payment_behavior: 'pending_if_incomplete',
          expand: ['latest_invoice.payments', 'latest_invoice.confirmation_secret'],
        },
        { idempotencyKey: `upgrade-${key}` },
      )
      return invoiceOutcome(updated.latest_invoice as Stripe.Invoice | null)
    },

    /** Once an upgrade is paid, the subscription says which plan it is (renewal invoices read it). */
    async recordPlan(subscriptionId: string, plan: PlanRow, key: string) {
      await stripe.subscriptions.update(
        subscriptionId,
        { metadata: { planId: plan.id } },
        { idempotencyKey: `plan-metadata-${key}` },
      )
    },

    /** A downgrade at the renewal: a schedule whose next phase is the new plan. */
    async scheduleDowngrade(current: StripeMembership, plan: PlanRow, key: string): Promise<string> {
      const scheduleId =
        current.scheduleId ??
        (
          await stripe.subscriptionSchedules.create(
            { from_subscription: current.id },
            { idempotencyKey: `schedule-${key}` },
          )
        ).id
      const price = await deps.catalog.ensurePrice(plan)
      await stripe.subscriptionSchedules.update(
        scheduleId,
        {
          end_behavior: 'release',
          phases: [
            {
              items: [{ price: current.priceId, quantity: 1 }],
              start_date: Math.floor(current.periodStart.valueOf() / 1000),
              end_date: Math.floor(current.periodEnd.valueOf() / 1000),
            },
            { items: [{ price, quantity: 1 }], metadata: { planId: plan.id } },
          ],
        },
        { idempotencyKey: `schedule-phases-${key}` },
      )
      return scheduleId
    },

    /** Undo a scheduled downgrade: the subscription goes on as it is. */
    async releaseSchedule(scheduleId: string, key: string) {
      const schedule = await stripe.subscriptionSchedules.retrieve(scheduleId)
      if (schedule.status !== 'active' && schedule.status !== 'not_started') return
      await stripe.subscriptionSchedules.release(scheduleId, {}, { idempotencyKey: `release-${key}` })
    },

    /** No charge until `resumesAt`: renewals meanwhile are voided. Null clears a pause. */
    async pauseCollection(subscriptionId: string, resumesAt: Date | null, key: string) {
      await stripe.subscriptions.update(
        subscriptionId,
        {
          pause_collection: resumesAt
            ? { behavior: 'void', resumes_at: Math.floor(resumesAt.valueOf() / 1000) }
            : '',
        },
        { idempotencyKey: `pause-${key}` },
      )
    },

    /** Resumed in the middle of a pause: a new period starts now, charged now. */
    async restartNow(subscriptionId: string, key: string): Promise<ChangeInvoice> {
      const updated = await stripe.subscriptions.update(
        subscriptionId,
        {
          pause_collection: '',
          billing_cycle_anchor: { type: 'now' },
          proration_behavior: 'none',
          expand: ['latest_invoice.payments', 'latest_invoice.confirmation_secret'],
        },
        { idempotencyKey: `restart-${key}` },
      )
      return invoiceOutcome(updated.latest_invoice as Stripe.Invoice | null)
    },

    /** Free days before the next charge: the charge moves to `until` (a trial end, nothing credited). */
    async moveNextCharge(subscriptionId: string, until: Date, key: string) {
      await stripe.subscriptions.update(
        subscriptionId,
        { trial_end: Math.floor(until.valueOf() / 1000), proration_behavior: 'none' },
        { idempotencyKey: `free-days-${key}` },
      )
    },

    /** The owner's retention code, on the subscription from its next invoice. */
    async applyPromotionCode(subscriptionId: string, promotionCodeId: string, key: string) {
      await stripe.subscriptions.update(
        subscriptionId,
        { discounts: [{ promotion_code: promotionCodeId }] },
        { idempotencyKey: `retention-${key}` },
      )
    },

    /** A SetupIntent for a new renewal card (the card form confirms it). */
    async startCardSetup(customer: string, metadata: Record<string, string>, key: string) {
      const setup = await stripe.setupIntents.create(
        { customer, usage: 'off_session', allowed_payment_method_types: ['card'], metadata },
        { idempotencyKey: `card-setup-${key}` },
      )
      return { setupIntentId: setup.id, clientSecret: setup.client_secret ?? '' }
    },

    retrieveSetup: (setupIntentId: string) => stripe.setupIntents.retrieve(setupIntentId),

    /** The saved card pays the renewals (the customer's default and the subscription's). */
    async useCard(customer: string, subscriptionId: string, paymentMethod: string, key: string) {
      await stripe.customers.update(
        customer,
        { invoice_settings: { default_payment_method: paymentMethod } },
        { idempotencyKey: `use-card-customer-${key}` },
      )
      await stripe.subscriptions.update(
        subscriptionId,
        { default_payment_method: paymentMethod },
        { idempotencyKey: `use-card-sub-${key}` },
      )
    },

    /** The subscription's open (unpaid) invoice, if a renewal failed. */
    async openInvoice(subscriptionId: string): Promise<Stripe.Invoice | undefined> {
      const invoices = await stripe.invoices.list({ subscription: subscriptionId, status: 'open', limit: 1 })
      return invoices.data[0]
    },

    /** Pays an open invoice with the card now; what came of it. */
    async payInvoice(invoiceId: string, paymentMethod: string, key: string): Promise<ChangeInvoice> {
      try {
        const paid = await stripe.invoices.pay(
          invoiceId,
          { payment_method: paymentMethod, expand: ['payments', 'confirmation_secret'] },
          { idempotencyKey: `pay-open-${key}` },
        )
        return invoiceOutcome(paid)
      } catch (error) {
        const invoice = await stripe.invoices.retrieve(invoiceId, {
          expand: ['payments', 'confirmation_secret'],
        })
        const outcome = invoiceOutcome(invoice)
        if (outcome.paymentIntentId) {
          const intent = await stripe.paymentIntents.retrieve(outcome.paymentIntentId)
          if (intent.status === 'requires_action') return { ...outcome, clientSecret: intent.client_secret }
        }
        throw error
      }
    },
  }
}
export type StripeMembershipChanges = ReturnType<typeof createStripeMembership>
