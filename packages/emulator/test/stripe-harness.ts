import { readFileSync } from 'node:fs'
import { createRequire } from 'node:module'
import path from 'node:path'
import Stripe from 'stripe'
import { expect } from 'vitest'
import { type Emulator, type EmulatorOptions, startEmulator } from '../src/server'
import { type StripeWebhookReceiver, startStripeWebhookReceiver } from './stripe-webhook-receiver'

/**
 * What the Billing tests share: an emulator with a signed-webhook receiver, the real `stripe` SDK
 * pointed at it, catalog helpers, and a check of response shapes against the SDK's own type
 * declarations (which Stripe generates from its OpenAPI spec for the pinned API version).
 */

export const DAY = 86_400
const WEBHOOK_SECRET = 'whsec_billing_tests'

export interface Harness {
  emulator: Emulator
  stripe: Stripe
  receiver: StripeWebhookReceiver
  client(key: string): Stripe
  close(): Promise<void>
}

export async function startHarness(options: EmulatorOptions['stripe'] = {}): Promise<Harness> {
  const emulator = await startEmulator({
    stripe: { webhookSecret: WEBHOOK_SECRET, webhookRetryDelayMs: 20, ...options },
  })
  const client = (key: string) =>
    new Stripe(key, {
      host: '127.0.0.1',
      port: new URL(emulator.url).port,
      protocol: 'http',
      maxNetworkRetries: 0,
    })
  const stripe = client(emulator.stripe.secretKey)
  const receiver = await startStripeWebhookReceiver(stripe, WEBHOOK_SECRET)
  emulator.stripe.setWebhookUrl(receiver.url)
  return {
    emulator,
    stripe,
    receiver,
    client,
    close: async () => {
      await emulator.close()
      await receiver.close()
    },
  }
}

/** Between tests: deliver what is pending, then forget everything. */
export async function resetHarness(h: Harness): Promise<void> {
  await h.emulator.stripe.flushWebhooks()
  h.emulator.stripe.reset()
  h.receiver.reset()
}

export async function recurringPrice(
  stripe: Stripe,
  amount: number,
  interval: 'day' | 'week' | 'month' | 'year' = 'month',
  name = 'EdgeClub Pro',
): Promise<Stripe.Price> {
  const product = await stripe.products.create({ name })
  return stripe.prices.create({
    product: product.id,
    currency: 'usd',
    unit_amount: amount,
    recurring: { interval },
  })
}

/** A customer with a saved default card (attached and set in invoice_settings). */
export async function customerWithCard(
  stripe: Stripe,
  options: { card?: string; testClock?: string; email?: string } = {},
): Promise<{ customer: Stripe.Customer; paymentMethod: Stripe.PaymentMethod }> {
  const customer = await stripe.customers.create({
    email: options.email ?? 'member@example.com',
    ...(options.testClock ? { test_clock: options.testClock } : {}),
  })
  const paymentMethod = await stripe.paymentMethods.attach(options.card ?? 'pm_card_visa', {
    customer: customer.id,
  })
  await stripe.customers.update(customer.id, {
    invoice_settings: { default_payment_method: paymentMethod.id },
  })
  return { customer, paymentMethod }
}

export function itemPeriod(sub: Stripe.Subscription): { start: number; end: number } {
  const item = sub.items.data[0] as Stripe.SubscriptionItem
  return { start: item.current_period_start, end: item.current_period_end }
}

/** Polls a test clock (advanced through the API, which works in the background) until it is ready. */
export async function waitUntilReady(stripe: Stripe, clockId: string): Promise<Stripe.TestHelpers.TestClock> {
  const deadline = Date.now() + 5_000
  for (;;) {
    const clock = await stripe.testHelpers.testClocks.retrieve(clockId)
    if (clock.status === 'ready') return clock
    if (Date.now() > deadline) throw new Error(`test clock ${clockId} stayed ${clock.status}`)
    await new Promise((resolve) => setTimeout(resolve, 5))
  }
}

// ---- Shapes against the SDK's declarations ----

const resourcesDir = path.join(path.dirname(createRequire(import.meta.url).resolve('stripe')), 'resources')
const declarations = new Map<string, { required: string[]; optional: string[] }>()

/**
 * The top-level fields of `export interface <name>` in the SDK's declaration file: required ones
 * (`key: T`) and optional ones (`key?: T`, includable or version-dependent).
 */
export function sdkFields(file: string, name: string): { required: string[]; optional: string[] } {
  const key = `${file}#${name}`
  const cached = declarations.get(key)
  if (cached) return cached
  const source = readFileSync(path.join(resourcesDir, file), 'utf8').replace(/\/\*\*[\s\S]*?\*\//g, '')
  const start = source.indexOf(`export interface ${name} {`)
  if (start === -1) throw new Error(`no interface ${name} in ${file}`)
  const fields = { required: [] as string[], optional: [] as string[] }
  let depth = 0
  for (const line of source.slice(start).split('\n')) {
    const match = /^\s*([a-z_0-9]+)(\?)?:/.exec(line)
    if (depth === 1 && match?.[1]) (match[2] ? fields.optional : fields.required).push(match[1])
    depth += (line.match(/\{/g) ?? []).length - (line.match(/\}/g) ?? []).length
    if (depth === 0 && line.includes('}')) break
  }
  declarations.set(key, fields)
  return fields
}

/** Every required field is present and nothing outside the declaration is (`deleted` aside). */
export function expectSdkShape(value: unknown, file: string, name: string): void {
  const { required, optional } = sdkFields(file, name)
  const keys = Object.keys(value as Record<string, unknown>)
  expect({ name, missing: required.filter((key) => !keys.includes(key)) }).toEqual({ name, missing: [] })
  const known = new Set([...required, ...optional, 'lastResponse'])
  expect({ name, unknown: keys.filter((key) => !known.has(key)) }).toEqual({ name, unknown: [] })
}

/** Where the SDK declares each object type that events carry. */
const DECLARED: Record<string, [file: string, name: string]> = {
  charge: ['Charges.d.ts', 'Charge'],
  coupon: ['Coupons.d.ts', 'Coupon'],
  customer: ['Customers.d.ts', 'Customer'],
  discount: ['Discounts.d.ts', 'Discount'],
  invoice: ['Invoices.d.ts', 'Invoice'],
  invoice_payment: ['InvoicePayments.d.ts', 'InvoicePayment'],
  invoiceitem: ['InvoiceItems.d.ts', 'InvoiceItem'],
  payment_intent: ['PaymentIntents.d.ts', 'PaymentIntent'],
  payment_method: ['PaymentMethods.d.ts', 'PaymentMethod'],
  price: ['Prices.d.ts', 'Price'],
  product: ['Products.d.ts', 'Product'],
  promotion_code: ['PromotionCodes.d.ts', 'PromotionCode'],
  refund: ['Refunds.d.ts', 'Refund'],
  setup_intent: ['SetupIntents.d.ts', 'SetupIntent'],
  subscription: ['Subscriptions.d.ts', 'Subscription'],
  subscription_schedule: ['SubscriptionSchedules.d.ts', 'SubscriptionSchedule'],
  'test_helpers.test_clock': ['TestHelpers/TestClocks.d.ts', 'TestClock'],
}

let eventTypes: Set<string> | undefined

/** The event types the SDK knows for the pinned API version. */
function knownEventTypes(): Set<string> {
  if (eventTypes) return eventTypes
  const source = readFileSync(path.join(resourcesDir, 'Events.d.ts'), 'utf8')
  const union = /type Type = ([^;]+);/.exec(source)?.[1] ?? ''
  eventTypes = new Set([...union.matchAll(/'([a-z_.]+)'/g)].map((match) => match[1] as string))
  return eventTypes
}

/**
 * Every event so far has a type the pinned API version defines and carries an object of the shape
 * the SDK declares (an `invoice.upcoming` invoice has no id, as on Stripe).
 */
export function expectEventsAsDeclared(h: Harness): void {
  const known = knownEventTypes()
  for (const event of h.emulator.stripe.events()) {
    expect({ type: event.type, known: known.has(event.type) }).toEqual({ type: event.type, known: true })
    const object = event.data.object as unknown as Record<string, unknown>
    const declared = DECLARED[String(object.object)]
    expect({ type: event.type, object: object.object, declared: Boolean(declared) }).toMatchObject({
      declared: true,
    })
    if (!declared) continue
    const shown = event.type === 'invoice.upcoming' ? { id: 'upcoming', ...object } : object
    expectSdkShape(shown, declared[0], declared[1])
  }
}
