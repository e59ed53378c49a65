import type { APIRequestContext, Page } from '@playwright/test'
import { control, expect, test } from '../support/fixtures'
import { createMember, mailbox, newMember, signIn, tokenOf } from '../support/members'

/**
 * The member's side of the revenue levers: the doors to checkout, promo codes, plan
 * changes, pause and the card after a failed renewal, driven through the UI against the emulated
 * Stripe (each member's customer on a test clock of its own).
 */

const DAY_SECONDS = 24 * 3600

// Each test buys a plan and moves through Stripe and back several times: more than the default 30 s
// on a busy machine.
test.describe.configure({ timeout: 120_000 })

async function fillCard(page: Page, number = '4242 4242 4242 4242') {
  await page.getByLabel('Card number').fill(number)
  await page.getByLabel('Expiration date').fill('12 / 34')
  await page.getByLabel('Security code').fill('123')
  await page.getByLabel('ZIP').fill('10001')
}

/** A code of the owner's: 20% off the first payment, for anyone. */
async function createCode(request: APIRequestContext): Promise<string> {
  const code = `E2E${Date.now().toString(36).toUpperCase()}${process.pid}`
  const response = await request.post('/discord/api/admin/promo-codes', {
    headers: { authorization: `Bearer ${await tokenOf(request)}` },
    data: { code, percentOff: 20, duration: 'once', audience: 'anyone' },
  })
  expect(response.status(), await response.text()).toBe(201)
  return code
}

/** Buys a plan from the Subscription tab with the 4242 card, and lands back on the dashboard. */
async function buy(page: Page, planButton: string, price: string) {
  await page.goto('/dashboard?tab=subscription')
  await page.getByRole('button', { name: planButton }).click()
  await expect(page).toHaveURL('/payment')
  await fillCard(page)
  await page.getByRole('button', { name: `Pay ${price}` }).click()
  await expect(page.getByText('Payment Successful!')).toBeVisible({ timeout: 20_000 })
  await expect(page).toHaveURL('/dashboard', { timeout: 20_000 })
}

/** Stripe's own view of a member (the emulator's API, with the secret key): the customer and its subscription. */
async function stripeOf(
  email: string,
): Promise<{ testClock: string; subscription: string; frozenTime: number }> {
  const headers = { authorization: `Bearer ${process.env.E2E_STRIPE_SECRET_KEY}` }
  const base = process.env.E2E_EMULATOR_URL
  const customers = (await (
    await fetch(`${base}/v1/customers?email=${encodeURIComponent(email)}`, { headers })
  ).json()) as { data: { id: string; test_clock: string | null }[] }
  const customer = customers.data[0]
  if (!customer?.test_clock) throw new Error(`no test clock for ${email}`)
  const subscriptions = (await (
    await fetch(`${base}/v1/subscriptions?customer=${customer.id}`, { headers })
  ).json()) as { data: { id: string }[] }
  const clock = (await (
    await fetch(`${base}/v1/test_helpers/test_clocks/${customer.test_clock}`, { headers })
  ).json()) as {
    frozen_time: number
  }
  return {
    testClock: customer.test_clock,
    subscription: subscriptions.data[0]!.id,
    frozenTime: clock.frozen_time,
  }
}

test.describe('the doors to checkout', () => {
  test('a code from a /pricing?code= link is carried through registration to a discounted payment', async ({
    page,
    request,
  }) => {
    const code = await createCode(request)
    const member = newMember()
    await page.goto(`/pricing?code=${code}`)
    await page.getByRole('button', { name: 'Subscribe to Monthly' }).click()
    await expect(page).toHaveURL('/login')
    await page.getByRole('link', { name: 'Create an account' }).click()
    await expect(page).toHaveURL('/register')
    await page.getByLabel('First name').fill(member.firstName)
    await page.getByLabel('Last name').fill(member.lastName)
    await page.getByLabel('Email', { exact: true }).fill(member.email)
    await page.getByLabel('Discord username').fill(member.discordUsername)
    await page.getByLabel('Password', { exact: true }).fill(member.password)
    await page.getByLabel('Confirm password', { exact: true }).fill(member.password)
    await page.getByLabel('I agree to the Terms of Service and Privacy Policy').check()
    await page.getByLabel('I confirm I am 18+ years old and legally authorized to trade').check()
    await page.getByRole('button', { name: 'Create Account' }).click()
    // Straight to the Monthly checkout, with the code applied: 20% off $39.99.
    await expect(page).toHaveURL('/payment')
    await expect(page.getByRole('heading', { name: 'Monthly' })).toBeVisible()
    const summary = page.getByRole('region', { name: 'Monthly' })
    await expect(summary).toContainText(`Code ${code}`)
    await expect(summary).toContainText('$31.99')
    await fillCard(page)
    await page.getByRole('button', { name: 'Pay $31.99' }).click()
    await expect(page.getByText('Payment Successful!')).toBeVisible({ timeout: 20_000 })
    await expect(page).toHaveURL('/dashboard', { timeout: 20_000 })
    await page.getByRole('link', { name: 'Payment History' }).click()
    const row = page.getByRole('region', { name: 'Your payments' }).getByRole('listitem').first()
    await expect(row).toContainText('$31.99')
    await expect(row).toContainText('completed')
  })

  test.describe('signed in', () => {
    test.use({ allowedConsoleErrors: [/status of 404/] })
    test('Subscribe on /pricing opens that plan’s checkout; Apply tells why a code is refused; the success screen offers no second payment and Back never shows it twice', async ({
      page,
      request,
    }) => {
      const code = await createCode(request)
      await signIn(page, await createMember(request))
      await page.goto('/pricing')
      await page.getByRole('button', { name: 'Subscribe to Weekly' }).click()
      await expect(page).toHaveURL('/payment')
      await expect(page.getByRole('heading', { name: 'Weekly' })).toBeVisible()
      await expect(page.getByRole('button', { name: 'Pay $14.99' })).toBeVisible()

      const promo = page.getByRole('form', { name: 'Promo code' })
      await promo.getByLabel('Promo code').fill('NOSUCHCODE')
      await promo.getByRole('button', { name: 'Apply' }).click()
      await expect(promo.getByRole('alert')).toHaveText('This code does not exist')
      await promo.getByLabel('Promo code').fill(code.toLowerCase())
      await promo.getByRole('button', { name: 'Apply' }).click()
      await expect(promo.getByRole('status')).toContainText('New total: $11.99')
      await fillCard(page)
      await page.getByRole('button', { name: 'Pay $11.99' }).click()
      await expect(page.getByText('Payment Successful!')).toBeVisible({ timeout: 20_000 })
      await expect(page.getByRole('button', { name: 'Pay with crypto' })).toHaveCount(0)
      await expect(page.getByRole('button', { name: /^Pay / })).toHaveCount(0)
      await expect(page).toHaveURL('/dashboard', { timeout: 20_000 })
      await expect(page.getByText('Successfully subscribed to Weekly plan!')).toBeVisible()

      // Back leaves the dashboard for Pricing; Forward returns without the message or the success screen.
      await page.goBack()
      await expect(page).toHaveURL('/pricing')
      await expect(page.getByText('Payment Successful!')).toHaveCount(0)
      await page.goForward()
      await expect(page).toHaveURL(/\/dashboard/)
      await expect(page.getByText('Welcome to your trading dashboard')).toBeVisible()
      await expect(page.getByText('Successfully subscribed to Weekly plan!')).toHaveCount(0)
      await expect(page.getByText('Payment Successful!')).toHaveCount(0)
    })
  })
})

test.describe('a member keeps their plan their way', () => {
  // FIXME: the amount read from the preview panel failed its bounds in its first run
  // (2026-11-26); the API's proration is tested in apps/api/test/billing.test.ts. Fix and re-enable.
  test('monthly → yearly: the amount due today shows before paying, then the member is on Yearly', async ({
    page,
    request,
  }) => {
    await signIn(page, await createMember(request))
    await buy(page, 'Subscribe to Monthly', '$39.99')
    await page.goto('/dashboard?tab=subscription')
    const monthly = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Monthly' }) })
    await expect(monthly).toContainText('Current plan')
    await expect(monthly.getByRole('button')).toHaveCount(0)

    await page.getByRole('button', { name: 'Switch to Yearly' }).click()
    const panel = page.getByRole('region', { name: 'Change to Yearly' })
    await expect(panel).toContainText('Due today:')
    const due = (await panel.locator('strong').textContent()) ?? ''
    const cents = Math.round(Number(due.replace(/[^0-9.]/g, '')) * 100)
    // The unused part of the month is credited: less than a year's price, and at most a whole month
    // (the month was paid moments ago, so nearly all of it comes back).
    expect(cents).toBeLessThan(29999)
    expect(cents).toBeGreaterThanOrEqual(29999 - 3999)
    await panel.getByRole('button', { name: `Pay ${due} and switch` }).click()
    await expect(page.getByText('You are now on the Yearly plan.')).toBeVisible()
    const membership = page.getByRole('region', { name: 'Your membership' })
    await expect(membership).toContainText('Yearly')
    await expect(membership).toContainText('Active')
    const yearly = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Yearly' }) })
    await expect(yearly).toContainText('Current plan')
    await page.getByRole('link', { name: 'Payment History' }).click()
    await expect(page.getByRole('region', { name: 'Your payments' })).toContainText(due)
  })

  test('pause for two months shows when it resumes; Resume lifts it', async ({ page, request }) => {
    await signIn(page, await createMember(request))
    await buy(page, 'Subscribe to Monthly', '$39.99')
    await page.goto('/dashboard?tab=subscription')
    const membership = page.getByRole('region', { name: 'Your membership' })
    await membership.getByRole('button', { name: 'Pause' }).click()
    await membership.getByLabel('Pause for').selectOption('2')
    await membership.getByRole('button', { name: 'Pause membership' }).click()
    await expect(membership).toContainText(/Paused — resumes [A-Z][a-z]{2} \d{1,2}, \d{4}/)
    await membership.getByRole('button', { name: 'Resume', exact: true }).click()
    await expect(page.getByText('Your membership is running again.')).toBeVisible()
    await expect(membership).not.toContainText('Paused — resumes')
    await expect(membership).toContainText('Active')
  })

  test('after a failed renewal the email’s button opens Update card; a new card pays the renewal', async ({
    page,
    request,
  }) => {
    const member = await createMember(request)
    await signIn(page, member)
    await buy(page, 'Subscribe to Monthly', '$39.99')
    // A month on, on this member's own test clock, the bank declines the renewal.
    const stripe = await stripeOf(member.email)
    await control(`/_control/stripe/subscriptions/${stripe.subscription}/fail-next-renewal`)
    await control(`/_control/stripe/test-clocks/${stripe.testClock}/advance`, {
      frozenTime: stripe.frozenTime + 31 * DAY_SECONDS,
    })
    await control('/_control/stripe/webhooks/flush')
    await expect
      .poll(async () => (await mailbox(member.email)).find((mail) => /renewal failed/.test(mail.subject)), {
        timeout: 15_000,
      })
      .toBeTruthy()
    const mail = (await mailbox(member.email)).find((message) => /renewal failed/.test(message.subject))!
    const link = mail.links.find((href) => href.includes('action=update-card'))
    expect(link).toBeTruthy()

    await page.goto(link!)
    const membership = page.getByRole('region', { name: 'Your membership' })
    await expect(membership).toContainText('Your last renewal was declined')
    const panel = page.getByRole('region', { name: 'Update card' })
    await fillCard(page, '5555 5555 5555 4444')
    await panel.getByRole('button', { name: 'Save card' }).click()
    await expect(page.getByText('Your card is saved and your renewal is paid.')).toBeVisible()
    await expect(panel).toHaveCount(0)
    await control('/_control/stripe/webhooks/flush')
    await expect(async () => {
      await page.reload()
      await expect(membership).toContainText('Active', { timeout: 2_000 })
    }).toPass({ timeout: 15_000 })
    await expect(membership).not.toContainText('Your last renewal was declined')
  })
})
