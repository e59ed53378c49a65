import type Stripe from 'stripe'
import type { StripeApi } from './api'
import type { Catalog } from './catalog'
import { changedFields, type Env, inCustomerTime } from './env'
import { invalidRequest, missingParam, noSuch } from './errors'
import type { Params } from './form'
import { newId, randomCode } from './ids'
import { addMonths } from './periods'
import { createdFilter } from './render'

/**
 * Coupons, promotion codes and the discounts they grant. A coupon says how much comes off
 * (`percent_off` or `amount_off`) and for how long (`once`, `repeating` for N months, `forever`); a
 * promotion code is a customer-facing code for a coupon with its own restrictions. Redeeming one on
 * a subscription creates a Discount (`di_...`), which invoices then apply to their discountable lines.
 */

export interface Redeemable {
  coupon: Stripe.Coupon
  promotionCode: Stripe.PromotionCode | null
}

export interface DiscountAmount {
  amount: number
  discount: string
}

export interface DiscountableLine {
  amount: number
  product: string
  discountable: boolean
}

const PROMOTION_CODE_PATTERN = /^[A-Za-z0-9-]+$/

export class Discounts {
  constructor(
    private readonly env: Env,
    private readonly catalog: Catalog,
  ) {}

  // ---- Coupons ----

  coupon(id: string, param = 'id'): Stripe.Coupon {
    const coupon = this.env.store.coupons.get(id)
    if (!coupon || this.env.store.couponState.get(id)?.deleted) throw noSuch('coupon', id, param)
    return this.refresh(coupon)
  }

  /** A coupon even after deletion: discounts already granted keep their terms. */
  couponOf(discount: Stripe.Discount): Stripe.Coupon {
    const id = discount.source.coupon as string
    const coupon = this.env.store.coupons.get(id)
    if (!coupon) throw new Error(`discount ${discount.id} has no coupon ${id}`)
    return coupon
  }

  private appliesTo(couponId: string): string[] | null {
    return this.env.store.couponState.get(couponId)?.appliesTo ?? null
  }

  /** `valid` follows `redeem_by` and `max_redemptions`; recomputed whenever a coupon is read. */
  private refresh(coupon: Stripe.Coupon): Stripe.Coupon {
    const expired = coupon.redeem_by !== null && this.env.clock.now() >= coupon.redeem_by
    const usedUp = coupon.max_redemptions !== null && coupon.times_redeemed >= coupon.max_redemptions
    coupon.valid = !expired && !usedUp && !this.env.store.couponState.get(coupon.id)?.deleted
    return coupon
  }

  createCoupon(params: Params): Stripe.Coupon {
    const id = params.str('id') || randomCode(8)
    if (this.env.store.coupons.has(id)) {
      throw invalidRequest('Coupon already exists.', { param: 'id', code: 'resource_already_exists' })
    }
    const percentOff = numberParam(params, 'percent_off')
    const amountOff = params.int('amount_off')
    const currency = params.str('currency')?.toLowerCase()
    if (percentOff === undefined && amountOff === undefined) {
      throw invalidRequest('You must pass either `percent_off` or `amount_off`.', {
        param: 'percent_off',
        code: 'parameter_missing',
      })
    }
    if (percentOff !== undefined && amountOff !== undefined) {
      throw invalidRequest('You may only specify one of these parameters: amount_off, percent_off.', {
        param: 'amount_off',
        code: 'parameters_exclusive',
      })
    }
    if (percentOff !== undefined && (percentOff <= 0 || percentOff > 100)) {
      throw invalidRequest('Invalid percent_off: must be greater than 0 and at most 100.', {
        param: 'percent_off',
      })
    }
    if (amountOff !== undefined) {
      if (amountOff <= 0) throw invalidRequest('Invalid positive integer', { param: 'amount_off' })
      if (!currency) {
        throw invalidRequest('You must pass `currency` when passing `amount_off`.', {
          param: 'currency',
          code: 'parameter_missing',
        })
      }
    }
    const duration = params.oneOf('duration', ['once', 'repeating', 'forever'] as const) ?? 'once'
    const months = params.int('duration_in_months')
    if (duration === 'repeating' && (months === undefined || months < 1)) {
      throw invalidRequest('You must pass `duration_in_months` when `duration` is `repeating`.', {
        param: 'duration_in_months',
        code: 'parameter_missing',
      })
    }
    if (duration !== 'repeating' && months !== undefined) {
      throw invalidRequest('`duration_in_months` can only be set when `duration` is `repeating`.', {
        param: 'duration_in_months',
      })
    }
    const maxRedemptions = params.int('max_redemptions')
    if (maxRedemptions !== undefined && maxRedemptions < 1) {
      throw invalidRequest('Invalid positive integer', { param: 'max_redemptions' })
    }
    const redeemBy = params.int('redeem_by')
    const now = this.env.clock.now()
    if (redeemBy !== undefined && redeemBy <= now) {
      throw invalidRequest('Invalid redeem_by: must be in the future.', { param: 'redeem_by' })
    }
    const appliesToParams = params.obj('applies_to')
    const products = appliesToParams?.strList('products')
    appliesToParams?.rejectUnknown()
    for (const [index, product] of (products ?? []).entries()) {
      this.catalog.product(product, `applies_to[products][${index}]`)
    }
    const coupon: Stripe.Coupon = {
      id,
      object: 'coupon',
      amount_off: amountOff ?? null,
      created: now,
      currency: amountOff !== undefined ? (currency ?? null) : null,
      duration,
      duration_in_months: months ?? null,
      livemode: false,
      max_redemptions: maxRedemptions ?? null,
      metadata: params.metadata() ?? {},
      name: params.nullableStr('name') ?? null,
      percent_off: percentOff ?? null,
      redeem_by: redeemBy ?? null,
      times_redeemed: 0,
      valid: true,
    }
    params.rejectUnknown()
    this.env.store.coupons.set(id, coupon)
    this.env.store.couponState.set(id, { appliesTo: products ?? null, deleted: false })
    this.env.events.emit('coupon.created', coupon)
    return coupon
  }

  updateCoupon(coupon: Stripe.Coupon, params: Params): Stripe.Coupon {
    const before = structuredClone(coupon)
    const name = params.nullableStr('name')
    if (name !== undefined) coupon.name = name
    const metadata = params.metadata(coupon.metadata ?? {})
    if (metadata) coupon.metadata = metadata
    params.rejectUnknown()
    const previous = changedFields(before, coupon, ['name', 'metadata'])
    if (Object.keys(previous).length > 0) this.env.events.emit('coupon.updated', coupon, previous)
    return coupon
  }

  deleteCoupon(coupon: Stripe.Coupon): Stripe.DeletedCoupon {
    const state = this.env.store.couponState.get(coupon.id)
    if (state) state.deleted = true
    this.refresh(coupon)
    // Codes for a deleted coupon can no longer be redeemed, so Stripe turns them off.
    for (const code of this.env.store.promotionCodes.values()) {
      if (code.promotion.coupon === coupon.id && code.active) {
        code.active = false
        this.env.events.emit('promotion_code.updated', code, { active: true })
      }
    }
    this.env.events.emit('coupon.deleted', coupon)
    return { id: coupon.id, object: 'coupon', deleted: true }
  }

  // ---- Promotion codes ----

  promotionCode(id: string, param = 'id'): Stripe.PromotionCode {
    const code = this.env.store.promotionCodes.get(id)
    if (!code) throw noSuch('promotion code', id, param)
    return code
  }

  createPromotionCode(params: Params): Stripe.PromotionCode {
    const promotion = params.obj('promotion')
    if (!promotion) throw missingParam('promotion')
    if (!promotion.oneOf('type', ['coupon'] as const)) throw missingParam(promotion.name('type'))
    const couponId = promotion.requireStr('coupon')
    promotion.rejectUnknown()
    const coupon = this.coupon(couponId, 'promotion[coupon]')
    if (!coupon.valid) {
      throw invalidRequest(
        `Coupon ${coupon.id} is no longer valid and cannot be used for new promotion codes.`,
        {
          param: 'promotion[coupon]',
        },
      )
    }
    const code = params.str('code') || randomCode(8)
    if (!PROMOTION_CODE_PATTERN.test(code)) {
      throw invalidRequest('Promotion codes may only contain letters, digits and dashes.', { param: 'code' })
    }
    const customer = params.str('customer')
    if (customer) this.catalog.customer(customer, 'customer')
    const active = params.bool('active') ?? true
    const clash = [...this.env.store.promotionCodes.values()].find(
      (other) =>
        other.active &&
        other.code.toLowerCase() === code.toLowerCase() &&
        (other.customer === null || customer === undefined || other.customer === customer),
    )
    if (active && clash) {
      throw invalidRequest(`An active promotion code with \`code: ${code}\` already exists.`, {
        param: 'code',
        code: 'resource_already_exists',
      })
    }
    const now = this.env.clock.now()
    const expiresAt = params.int('expires_at')
    if (expiresAt !== undefined) {
      if (expiresAt <= now)
        throw invalidRequest('Invalid expires_at: must be in the future.', { param: 'expires_at' })
      if (coupon.redeem_by !== null && expiresAt > coupon.redeem_by) {
        throw invalidRequest("The promotion code's `expires_at` cannot be after the coupon's `redeem_by`.", {
          param: 'expires_at',
        })
      }
    }
    const maxRedemptions = params.int('max_redemptions')
    if (maxRedemptions !== undefined) {
      if (maxRedemptions < 1) throw invalidRequest('Invalid positive integer', { param: 'max_redemptions' })
      if (coupon.max_redemptions !== null && maxRedemptions > coupon.max_redemptions) {
        throw invalidRequest(
          "The promotion code's `max_redemptions` cannot be greater than the coupon's `max_redemptions`.",
          { param: 'max_redemptions' },
        )
      }
    }
    const restrictionParams = params.obj('restrictions')
    const firstTime = restrictionParams?.bool('first_time_transaction') ?? false
    const minimumAmount = restrictionParams?.int('minimum_amount')
    const minimumCurrency = restrictionParams?.str('minimum_amount_currency')?.toLowerCase()
    restrictionParams?.rejectUnknown()
    if (minimumAmount !== undefined && !minimumCurrency) {
      throw invalidRequest('You must pass `minimum_amount_currency` when passing `minimum_amount`.', {
        param: 'restrictions[minimum_amount_currency]',
        code: 'parameter_missing',
      })
    }
    const promotionCode: Stripe.PromotionCode = {
      id: newId('promo'),
      object: 'promotion_code',
      active,
      code,
      created: now,
      customer: customer ?? null,
      customer_account: null,
      expires_at: expiresAt ?? null,
      livemode: false,
      max_redemptions: maxRedemptions ?? null,
      metadata: params.metadata() ?? {},
      promotion: { coupon: coupon.id, type: 'coupon' },
      restrictions: {
        first_time_transaction: firstTime,
        minimum_amount: minimumAmount ?? null,
        minimum_amount_currency: minimumAmount !== undefined ? (minimumCurrency ?? null) : null,
      },
      times_redeemed: 0,
    }
    params.rejectUnknown()
    this.env.store.promotionCodes.set(promotionCode.id, promotionCode)
    this.env.events.emit('promotion_code.created', promotionCode)
    return promotionCode
  }

  updatePromotionCode(code: Stripe.PromotionCode, params: Params): Stripe.PromotionCode {
    const before = structuredClone(code)
    const active = params.bool('active')
    const metadata = params.metadata(code.metadata ?? {})
    params.obj('restrictions')?.rejectUnknown(['currency_options'])
    params.rejectUnknown()
    if (active === true && !code.active) {
      const coupon = this.refresh(
        this.env.store.coupons.get(code.promotion.coupon as string) as Stripe.Coupon,
      )
      if (!coupon.valid) {
        throw invalidRequest(
          'This promotion code cannot be reactivated because its coupon is no longer valid.',
          {
            param: 'active',
          },
        )
      }
      if (code.expires_at !== null && code.expires_at <= this.env.clock.now()) {
        throw invalidRequest('This promotion code cannot be reactivated because it has expired.', {
          param: 'active',
        })
      }
    }
    if (active !== undefined) code.active = active
    if (metadata) code.metadata = metadata
    const previous = changedFields(before, code, ['active', 'metadata'])
    if (Object.keys(previous).length > 0) this.env.events.emit('promotion_code.updated', code, previous)
    return code
  }

  // ---- Redemption ----

  /**
   * Reads `discounts[i][coupon|promotion_code]` and checks each can be redeemed by this customer now,
   * with Stripe's refusals. Nothing is redeemed yet (previews use this alone).
   */
  resolve(
    entries: Params[] | undefined,
    context: { customerId: string; param?: string; subtotal?: number; currency?: string },
  ): Redeemable[] {
    if (!entries) return []
    const prefix = context.param ?? 'discounts'
    const seen = new Set<string>()
    return entries.map((entry, index) => {
      const couponId = entry.str('coupon')
      const promotionCodeId = entry.str('promotion_code')
      const discountId = entry.str('discount')
      entry.rejectUnknown()
      if (discountId) {
        throw invalidRequest('The emulator redeems coupons and promotion codes, not existing discounts.', {
          param: `${prefix}[${index}][discount]`,
        })
      }
      if (Boolean(couponId) === Boolean(promotionCodeId)) {
        throw invalidRequest('Each discount must have exactly one of `coupon` or `promotion_code`.', {
          param: `${prefix}[${index}]`,
        })
      }
      let redeemable: Redeemable
      if (promotionCodeId) {
        const param = `${prefix}[${index}][promotion_code]`
        const code = this.promotionCode(promotionCodeId, param)
        this.checkPromotionCode(code, context, param)
        redeemable = {
          coupon: this.env.store.coupons.get(code.promotion.coupon as string) as Stripe.Coupon,
          promotionCode: code,
        }
      } else {
        const param = `${prefix}[${index}][coupon]`
        const coupon = this.coupon(couponId as string, param)
        this.checkCoupon(coupon, param)
        redeemable = { coupon, promotionCode: null }
      }
      this.checkCurrency(redeemable.coupon, context.currency, `${prefix}[${index}]`)
      if (seen.has(redeemable.coupon.id)) {
        throw invalidRequest('The same coupon cannot be applied more than once.', {
          param: `${prefix}[${index}]`,
        })
      }
      seen.add(redeemable.coupon.id)
      return redeemable
    })
  }

  private checkCoupon(coupon: Stripe.Coupon, param: string): void {
    this.refresh(coupon)
    if (coupon.redeem_by !== null && this.env.clock.now() >= coupon.redeem_by) {
      throw invalidRequest(`Coupon expired: ${coupon.id}`, { param, code: 'coupon_expired' })
    }
    if (!coupon.valid) {
      throw invalidRequest(`Coupon ${coupon.id} has been redeemed the maximum number of times.`, {
        param,
        code: 'coupon_expired',
      })
    }
  }

  private checkCurrency(coupon: Stripe.Coupon, currency: string | undefined, param: string): void {
    if (coupon.amount_off !== null && currency && coupon.currency !== currency) {
      throw invalidRequest(
        `The coupon's currency (${coupon.currency}) does not match the currency of the subscription (${currency}).`,
        { param },
      )
    }
  }

  private checkPromotionCode(
    code: Stripe.PromotionCode,
    context: { customerId: string; subtotal?: number; currency?: string },
    param: string,
  ): void {
    const refuse = (reason: string, errorCode?: string) =>
      invalidRequest(`This promotion code cannot be redeemed because ${reason}`, {
        param,
        ...(errorCode ? { code: errorCode } : {}),
      })
    const coupon = this.refresh(this.env.store.coupons.get(code.promotion.coupon as string) as Stripe.Coupon)
    if (!code.active || this.env.store.couponState.get(coupon.id)?.deleted) throw refuse('it is inactive.')
    if (code.expires_at !== null && this.env.clock.now() >= code.expires_at) throw refuse('it has expired.')
    if (
      (code.max_redemptions !== null && code.times_redeemed >= code.max_redemptions) ||
      (coupon.max_redemptions !== null && coupon.times_redeemed >= coupon.max_redemptions)
    ) {
      throw refuse('it has been used the maximum number of times.')
    }
    if (coupon.redeem_by !== null && this.env.clock.now() >= coupon.redeem_by) throw refuse('it has expired.')
    if (code.customer !== null && code.customer !== context.customerId) {
      throw refuse('it is restricted to a different customer.')
    }
    if (code.restrictions.first_time_transaction && this.hasPriorTransactions(context.customerId)) {
      throw refuse(
        'the associated customer has prior transactions.',
        'promotion_code_customer_not_first_time',
      )
    }
    const minimum = code.restrictions.minimum_amount
    if (minimum !== null && context.subtotal !== undefined && context.subtotal < minimum) {
      throw refuse('the associated purchase does not meet the minimum amount requirement.')
    }
  }

  /** Stripe's "first-time transaction": no successful payment and no paid invoice with an amount yet. */
  private hasPriorTransactions(customerId: string): boolean {
    for (const charge of this.env.store.charges.values()) {
      if (charge.customer === customerId && charge.status === 'succeeded') return true
    }
    for (const invoice of this.env.store.invoices.values()) {
      if (invoice.customer === customerId && invoice.status === 'paid' && invoice.amount_paid > 0) return true
    }
    return false
  }

  /** Redeems what `resolve` accepted: Discount objects for the subscription, redemptions counted. */
  grant(redeemables: Redeemable[], target: { customer: string; subscription: string }): Stripe.Discount[] {
    return inCustomerTime(this.env, target.customer, () =>
      redeemables.map(({ coupon, promotionCode }) => {
        const discount = this.newDiscount(coupon, promotionCode, target)
        coupon.times_redeemed += 1
        this.refresh(coupon)
        if (promotionCode) promotionCode.times_redeemed += 1
        this.env.store.discounts.set(discount.id, discount)
        this.env.events.emit('customer.discount.created', discount)
        return discount
      }),
    )
  }

  /**
   * Discounts a preview shows: nothing is redeemed and no subscription holds them; they are kept
   * only so that `expand[]=discounts` on the preview works.
   */
  previewDiscounts(redeemables: Redeemable[], target: { customer: string; subscription: string | null }) {
    return redeemables.map(({ coupon, promotionCode }) => {
      const discount = this.newDiscount(coupon, promotionCode, target)
      this.env.store.discounts.set(discount.id, discount)
      return discount
    })
  }

  private newDiscount(
    coupon: Stripe.Coupon,
    promotionCode: Stripe.PromotionCode | null,
    target: { customer: string; subscription: string | null },
  ): Stripe.Discount {
    const start = this.env.clock.now()
    return {
      id: newId('di'),
      object: 'discount',
      checkout_session: null,
      customer: target.customer,
      customer_account: null,
      end:
        coupon.duration === 'repeating' && coupon.duration_in_months
          ? addMonths(start, coupon.duration_in_months)
          : null,
      invoice: null,
      invoice_item: null,
      promotion_code: promotionCode?.id ?? null,
      source: { coupon: coupon.id, type: 'coupon' },
      start,
      subscription: target.subscription,
      subscription_item: null,
    }
  }

  discount(id: string): Stripe.Discount | undefined {
    return this.env.store.discounts.get(id)
  }

  /** Whether a discount still applies to an invoice created at `at`. */
  activeAt(discount: Stripe.Discount, at: number): boolean {
    return discount.start <= at && (discount.end === null || at < discount.end)
  }

  /** Announces a discount leaving its subscription (`repeating` ran out, `once` used). */
  retire(discount: Stripe.Discount): void {
    this.env.events.emit('customer.discount.deleted', discount)
  }

  /**
   * What each discount takes off each line, in order: `percent_off` per line (rounded), `amount_off`
   * once per invoice, spread over the lines it applies to in proportion to their amounts. Lines
   * that are not discountable (prorations) and products outside `applies_to` get nothing.
   */
  amounts(lines: DiscountableLine[], discounts: Stripe.Discount[]): DiscountAmount[][] {
    const remaining = lines.map((line) => (line.discountable ? Math.max(0, line.amount) : 0))
    const result: DiscountAmount[][] = lines.map(() => [])
    for (const discount of discounts) {
      const coupon = this.couponOf(discount)
      const products = this.appliesTo(coupon.id)
      const eligible = lines
        .map((line, index) => ({ line, index }))
        .filter(
          ({ line, index }) => (remaining[index] ?? 0) > 0 && (!products || products.includes(line.product)),
        )
        .map(({ index }) => index)
      const take = (index: number, amount: number) => {
        const capped = Math.min(amount, remaining[index] ?? 0)
        if (capped <= 0) return
        remaining[index] = (remaining[index] ?? 0) - capped
        result[index]?.push({ amount: capped, discount: discount.id })
      }
      if (coupon.percent_off !== null) {
        for (const index of eligible)
          take(index, Math.round(((remaining[index] ?? 0) * coupon.percent_off) / 100))
      } else if (coupon.amount_off !== null) {
        const total = eligible.reduce((sum, index) => sum + (remaining[index] ?? 0), 0)
        const off = Math.min(coupon.amount_off, total)
        let given = 0
        eligible.forEach((index, position) => {
          const share =
            position === eligible.length - 1
              ? off - given
              : Math.round((off * (remaining[index] ?? 0)) / total)
          given += share
          take(index, share)
        })
      }
    }
    return result
  }

  routes(api: StripeApi): void {
    const render = this.env.renderer
    render.include('coupon', 'applies_to', (coupon) => {
      const products = this.appliesTo(String(coupon.id))
      return products ? { products } : undefined
    })

    api.post('/v1/coupons', (r) => r.render(this.createCoupon(r.params)))
    api.get('/v1/coupons', (r) => {
      const created = createdFilter(r.params)
      const list = [...this.env.store.coupons.values()]
        .reverse()
        .filter((c) => !this.env.store.couponState.get(c.id)?.deleted && created(c.created))
        .map((c) => this.refresh(c))
      return render.list(list, r.params, '/v1/coupons', r.expand)
    })
    api.get('/v1/coupons/:id', (r) => r.render(this.coupon(r.path.id ?? '')))
    api.post('/v1/coupons/:id', (r) => r.render(this.updateCoupon(this.coupon(r.path.id ?? ''), r.params)))
    api.delete('/v1/coupons/:id', (r) => this.deleteCoupon(this.coupon(r.path.id ?? '')))

    api.post('/v1/promotion_codes', (r) => r.render(this.createPromotionCode(r.params)))
    api.get('/v1/promotion_codes', (r) => {
      const active = r.params.bool('active')
      const code = r.params.str('code')?.toLowerCase()
      const coupon = r.params.str('coupon')
      const customer = r.params.str('customer')
      const created = createdFilter(r.params)
      const list = [...this.env.store.promotionCodes.values()]
        .reverse()
        .filter(
          (p) =>
            (active === undefined || p.active === active) &&
            (!code || p.code.toLowerCase() === code) &&
            (!coupon || p.promotion.coupon === coupon) &&
            (!customer || p.customer === customer) &&
            created(p.created),
        )
      return render.list(list, r.params, '/v1/promotion_codes', r.expand)
    })
    api.get('/v1/promotion_codes/:id', (r) => r.render(this.promotionCode(r.path.id ?? '')))
    api.post('/v1/promotion_codes/:id', (r) =>
      r.render(this.updatePromotionCode(this.promotionCode(r.path.id ?? ''), r.params)),
    )
  }
}

/** Stripe's `percent_off` is a float. */
function numberParam(params: Params, key: string): number | undefined {
  const value = params.str(key)
  if (value === undefined || value === '') return undefined
  if (!/^\d+(\.\d+)?$/.test(value)) {
    throw invalidRequest(`Invalid decimal: ${value}`, { param: params.name(key) })
  }
  return Number(value)
}
