import type Stripe from 'stripe'
import type { StripeApi } from './api'
import { changedFields, type Env, inCustomerTime } from './env'
import { invalidRequest, noSuch } from './errors'
import type { Params } from './form'
import { newId, randomString } from './ids'
import { createdFilter } from './render'

/** Customers, products and prices: plain records with Stripe's shapes, events and list filters. */

type Decimal = NonNullable<Stripe.Price['unit_amount_decimal']>

/** Stripe sends decimal fields as strings; the SDK turns them into its Decimal type on arrival. */
export function decimal(value: number | null): Decimal | null {
  return value === null ? null : (String(value) as unknown as Decimal)
}

export function addressFrom(params: Params | undefined): Stripe.Address | null {
  if (!params) return null
  const address: Stripe.Address = {
    city: params.nullableStr('city') ?? null,
    country: params.nullableStr('country') ?? null,
    line1: params.nullableStr('line1') ?? null,
    line2: params.nullableStr('line2') ?? null,
    postal_code: params.nullableStr('postal_code') ?? null,
    state: params.nullableStr('state') ?? null,
  }
  params.rejectUnknown()
  return address
}

export class Catalog {
  constructor(private readonly env: Env) {}

  customer(id: string, param = 'id'): Stripe.Customer {
    const customer = this.env.store.customers.get(id)
    if (!customer) throw noSuch('customer', id, param)
    return customer
  }

  product(id: string, param = 'id'): Stripe.Product {
    const product = this.env.store.products.get(id)
    if (!product) throw noSuch('product', id, param)
    return product
  }

  price(id: string, param = 'id'): Stripe.Price {
    const price = this.env.store.prices.get(id)
    if (!price) throw noSuch('price', id, param)
    return price
  }

  /** Wired by the payments module: customer `invoice_settings[default_payment_method]` must be attached. */
  checkPaymentMethod: (customerId: string, paymentMethodId: string, param: string) => string = (_c, pm) => pm

  createCustomer(params: Params): Stripe.Customer {
    // A customer on a test clock is created at the clock's time and lives on it from then on.
    const testClock = params.str('test_clock')
    if (testClock && !this.env.store.testClocks.has(testClock)) {
      throw noSuch('test_helpers.test_clock', testClock, 'test_clock')
    }
    return this.env.clock.within(testClock ?? null, () => this.newCustomer(params, testClock ?? null))
  }

  private newCustomer(params: Params, testClock: string | null): Stripe.Customer {
    const now = this.env.clock.now()
    const id = newId('cus')
    const customer: Stripe.Customer = {
      id,
      object: 'customer',
      address: addressFrom(params.obj('address')),
      balance: 0,
      created: now,
      currency: null,
      default_source: null,
      delinquent: false,
      description: params.nullableStr('description') ?? null,
      discount: null,
      email: params.nullableStr('email') ?? null,
      invoice_prefix: randomString(8).toUpperCase(),
      invoice_settings: {
        custom_fields: null,
        default_payment_method: null,
        footer: null,
        rendering_options: null,
      },
      livemode: false,
      metadata: params.metadata() ?? {},
      name: params.nullableStr('name') ?? null,
      next_invoice_sequence: 1,
      phone: params.nullableStr('phone') ?? null,
      preferred_locales: params.strList('preferred_locales') ?? [],
      shipping: null,
      tax_exempt: 'none',
      test_clock: testClock,
    }
    const paymentMethod = params.str('payment_method')
    const invoiceSettings = params.obj('invoice_settings')
    params.rejectUnknown()
    this.env.store.customers.set(id, customer)
    if (paymentMethod) this.attachOnCreate(id, paymentMethod)
    const defaultPm = invoiceSettings?.nullableStr('default_payment_method')
    invoiceSettings?.rejectUnknown()
    if (defaultPm) {
      customer.invoice_settings.default_payment_method = this.checkPaymentMethod(
        id,
        defaultPm,
        'invoice_settings[default_payment_method]',
      )
    }
    this.env.events.emit('customer.created', customer)
    return customer
  }

  /** Wired by the payments module: `payment_method` on customer create attaches it. */
  attachOnCreate: (customerId: string, paymentMethodId: string) => void = () => {}

  updateCustomer(id: string, params: Params): Stripe.Customer {
    const customer = this.customer(id)
    return inCustomerTime(this.env, id, () => this.applyCustomerUpdate(customer, params))
  }

  private applyCustomerUpdate(customer: Stripe.Customer, params: Params): Stripe.Customer {
    const id = customer.id
    const before = structuredClone(customer)
    if (params.has('address')) customer.address = addressFrom(params.obj('address'))
    const description = params.nullableStr('description')
    if (description !== undefined) customer.description = description
    const email = params.nullableStr('email')
    if (email !== undefined) customer.email = email
    const name = params.nullableStr('name')
    if (name !== undefined) customer.name = name
    const phone = params.nullableStr('phone')
    if (phone !== undefined) customer.phone = phone
    const locales = params.strList('preferred_locales')
    if (locales) customer.preferred_locales = locales
    const metadata = params.metadata(customer.metadata)
    if (metadata) customer.metadata = metadata
    const invoiceSettings = params.obj('invoice_settings')
    if (invoiceSettings) {
      const pm = invoiceSettings.nullableStr('default_payment_method')
      invoiceSettings.rejectUnknown()
      if (pm !== undefined) {
        customer.invoice_settings.default_payment_method =
          pm === null ? null : this.checkPaymentMethod(id, pm, 'invoice_settings[default_payment_method]')
      }
    }
    params.rejectUnknown()
    const previous = changedFields(before, customer, Object.keys(customer))
    if (Object.keys(previous).length > 0) this.env.events.emit('customer.updated', customer, previous)
    return customer
  }

  listCustomers(params: Params): Stripe.Customer[] {
    const email = params.str('email')
    const testClock = params.str('test_clock')
    const created = createdFilter(params)
    return [...this.env.store.customers.values()]
      .reverse()
      .filter(
        (c) =>
          (email === undefined || c.email === email) &&
          (testClock === undefined || c.test_clock === testClock) &&
          created(c.created),
      )
  }

  /** Stripe's search query language, for the clauses an app uses: `field:'value'` joined by AND. */
  searchCustomers(params: Params): Stripe.Customer[] {
    const query = params.requireStr('query')
    const clauses = query.split(/\s+AND\s+/i).map((clause) => {
      const match = /^\s*(email|name|phone|metadata\[['"]([^'"]+)['"]\])\s*:\s*['"]([^'"]*)['"]\s*$/.exec(
        clause,
      )
      if (!match)
        throw invalidRequest(`The emulator cannot parse this search query: ${query}`, { param: 'query' })
      return { field: match[1] ?? '', metaKey: match[2], value: match[3] ?? '' }
    })
    return [...this.env.store.customers.values()].reverse().filter((customer) =>
      clauses.every(({ field, metaKey, value }) => {
        if (metaKey) return customer.metadata[metaKey] === value
        return (customer as unknown as Record<string, unknown>)[field] === value
      }),
    )
  }

  createProduct(params: Params): Stripe.Product {
    const now = this.env.clock.now()
    const id = params.str('id') || newId('prod')
    if (this.env.store.products.has(id)) {
      throw invalidRequest(`Product already exists.`, { param: 'id', code: 'resource_already_exists' })
    }
    const product: Stripe.Product = {
      id,
      object: 'product',
      active: params.bool('active') ?? true,
      created: now,
      default_price: null,
      description: params.nullableStr('description') ?? null,
      images: params.strList('images') ?? [],
      livemode: false,
      marketing_features: [],
      metadata: params.metadata() ?? {},
      name: params.requireStr('name'),
      package_dimensions: null,
      shippable: null,
      statement_descriptor: params.nullableStr('statement_descriptor') ?? null,
      tax_code: params.nullableStr('tax_code') ?? null,
      tax_details: null,
      type: 'service',
      unit_label: params.nullableStr('unit_label') ?? null,
      updated: now,
      url: params.nullableStr('url') ?? null,
    }
    params.rejectUnknown()
    this.env.store.products.set(id, product)
    this.env.events.emit('product.created', product)
    return product
  }

  updateProduct(id: string, params: Params): Stripe.Product {
    const product = this.product(id)
    const before = structuredClone(product)
    const active = params.bool('active')
    if (active !== undefined) product.active = active
    const name = params.str('name')
    if (name) product.name = name
    const description = params.nullableStr('description')
    if (description !== undefined) product.description = description
    const images = params.strList('images')
    if (images) product.images = images
    const url = params.nullableStr('url')
    if (url !== undefined) product.url = url
    const metadata = params.metadata(product.metadata)
    if (metadata) product.metadata = metadata
    const defaultPrice = params.nullableStr('default_price')
    if (defaultPrice !== undefined) {
      if (defaultPrice !== null && this.price(defaultPrice, 'default_price').product !== id) {
        throw invalidRequest('The default price must belong to this product.', { param: 'default_price' })
      }
      product.default_price = defaultPrice
    }
    params.rejectUnknown()
    product.updated = this.env.clock.now()
    const previous = changedFields(before, product, Object.keys(product))
    delete previous.updated
    this.env.events.emit('product.updated', product, previous)
    return product
  }

  createPrice(params: Params): Stripe.Price {
    const now = this.env.clock.now()
    const currency = params.requireStr('currency').toLowerCase()
    const productId = params.str('product')
    const productData = params.obj('product_data')
    if (!productId && !productData)
      throw invalidRequest('Missing required param: product.', { param: 'product' })
    if (productId) this.product(productId, 'product')
    const unitAmount = params.int('unit_amount')
    const unitAmountDecimal = params.str('unit_amount_decimal')
    if (unitAmount === undefined && unitAmountDecimal === undefined) {
      throw invalidRequest('Missing required param: unit_amount.', {
        param: 'unit_amount',
        code: 'parameter_missing',
      })
    }
    const amount = unitAmount ?? Math.round(Number(unitAmountDecimal))
    if (amount < 0) throw invalidRequest('Invalid non-negative integer', { param: 'unit_amount' })
    let recurring: Stripe.Price.Recurring | null = null
    const recurringParams = params.obj('recurring')
    if (recurringParams) {
      const interval = recurringParams.oneOf('interval', ['day', 'week', 'month', 'year'] as const)
      if (!interval)
        throw invalidRequest('Missing required param: recurring[interval].', { param: 'recurring[interval]' })
      const count = recurringParams.int('interval_count') ?? 1
      const maxCount = { day: 1095, week: 156, month: 36, year: 3 }[interval]
      if (count < 1 || count > maxCount) {
        throw invalidRequest(`Invalid recurring[interval_count]: must be between 1 and ${maxCount}`, {
          param: 'recurring[interval_count]',
        })
      }
      recurring = {
        interval,
        interval_count: count,
        meter: null,
        trial_period_days: recurringParams.int('trial_period_days') ?? null,
        usage_type: recurringParams.oneOf('usage_type', ['licensed'] as const) ?? 'licensed',
      }
      recurringParams.rejectUnknown()
    }
    const lookupKey = params.nullableStr('lookup_key') ?? null
    const transfer = params.bool('transfer_lookup_key') ?? false
    const price: Stripe.Price = {
      id: newId('price'),
      object: 'price',
      active: params.bool('active') ?? true,
      billing_scheme: 'per_unit',
      created: now,
      currency,
      custom_unit_amount: null,
      livemode: false,
      lookup_key: lookupKey,
      metadata: params.metadata() ?? {},
      nickname: params.nullableStr('nickname') ?? null,
      product: productId ?? '',
      recurring,
      tax_behavior:
        params.oneOf('tax_behavior', ['exclusive', 'inclusive', 'unspecified'] as const) ?? 'unspecified',
      tiers_mode: null,
      transform_quantity: null,
      type: recurring ? 'recurring' : 'one_time',
      unit_amount: amount,
      unit_amount_decimal: decimal(amount),
    }
    params.rejectUnknown()
    if (lookupKey) this.claimLookupKey(lookupKey, transfer)
    if (productData) price.product = this.createProduct(productData).id
    this.env.store.prices.set(price.id, price)
    this.env.events.emit('price.created', price)
    return price
  }

  private claimLookupKey(lookupKey: string, transfer: boolean): void {
    for (const other of this.env.store.prices.values()) {
      if (other.lookup_key !== lookupKey) continue
      if (!transfer) {
        throw invalidRequest(
          `A price (\`${other.id}\`) already uses that lookup key. Set \`transfer_lookup_key\` to true to transfer it.`,
          { param: 'lookup_key' },
        )
      }
      const before = structuredClone(other)
      other.lookup_key = null
      this.env.events.emit('price.updated', other, changedFields(before, other, ['lookup_key']))
    }
  }

  updatePrice(id: string, params: Params): Stripe.Price {
    const price = this.price(id)
    const before = structuredClone(price)
    const active = params.bool('active')
    if (active !== undefined) price.active = active
    const nickname = params.nullableStr('nickname')
    if (nickname !== undefined) price.nickname = nickname
    const metadata = params.metadata(price.metadata)
    if (metadata) price.metadata = metadata
    const lookupKey = params.nullableStr('lookup_key')
    const transfer = params.bool('transfer_lookup_key') ?? false
    if (lookupKey !== undefined && lookupKey !== price.lookup_key) {
      if (lookupKey) this.claimLookupKey(lookupKey, transfer)
      price.lookup_key = lookupKey
    }
    params.rejectUnknown()
    this.env.events.emit('price.updated', price, changedFields(before, price, Object.keys(price)))
    return price
  }

  listPrices(params: Params): Stripe.Price[] {
    const active = params.bool('active')
    const product = params.str('product')
    const type = params.oneOf('type', ['one_time', 'recurring'] as const)
    const currency = params.str('currency')
    const lookupKeys = params.strList('lookup_keys')
    const created = createdFilter(params)
    const recurring = params.obj('recurring')
    const interval = recurring?.str('interval')
    return [...this.env.store.prices.values()]
      .reverse()
      .filter(
        (p) =>
          (active === undefined || p.active === active) &&
          (!product || p.product === product) &&
          (!type || p.type === type) &&
          (!currency || p.currency === currency) &&
          (!lookupKeys || (p.lookup_key !== null && lookupKeys.includes(p.lookup_key))) &&
          (!interval || p.recurring?.interval === interval) &&
          created(p.created),
      )
  }

  routes(api: StripeApi): void {
    const render = this.env.renderer
    api.post('/v1/customers', (r) => r.render(this.createCustomer(r.params)))
    api.get('/v1/customers/search', (r) => {
      const found = this.searchCustomers(r.params)
      const page = render.list(found, r.params, '/v1/customers/search', r.expand)
      return { ...page, object: 'search_result', next_page: null, total_count: found.length }
    })
    api.get('/v1/customers', (r) =>
      render.list(this.listCustomers(r.params), r.params, '/v1/customers', r.expand),
    )
    api.get('/v1/customers/:id', (r) => r.render(this.customer(r.path.id ?? '')))
    api.post('/v1/customers/:id', (r) => r.render(this.updateCustomer(r.path.id ?? '', r.params)))
    api.post('/v1/products', (r) => r.render(this.createProduct(r.params)))
    api.post('/v1/products/:id', (r) => r.render(this.updateProduct(r.path.id ?? '', r.params)))
    api.post('/v1/prices', (r) => r.render(this.createPrice(r.params)))
    api.get('/v1/prices', (r) => render.list(this.listPrices(r.params), r.params, '/v1/prices', r.expand))
    api.get('/v1/prices/:id', (r) => r.render(this.price(r.path.id ?? '')))
    api.post('/v1/prices/:id', (r) => r.render(this.updatePrice(r.path.id ?? '', r.params)))
  }
}
