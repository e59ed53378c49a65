import type { Page } from '@playwright/test'
import { expect, test } from '../support/fixtures'
import { createMember, type Member, signIn } from '../support/members'
import { startServer } from '../support/server'

async function fillCard(page: Page, number: string) {
  await page.getByLabel('Card number').fill(number)
  await page.getByLabel('Expiration date').fill('12 / 34')
  await page.getByLabel('Security code').fill('123')
  await page.getByLabel('ZIP').fill('10001')
}

async function buyFromDashboard(page: Page, planButton: string) {
  await page.goto('/dashboard?tab=subscription')
  await page.getByRole('button', { name: planButton }).click()
  await expect(page).toHaveURL('/payment')
}

test.describe('buying a plan', () => {
  test('PAYMENT-02 PAYMENT-03 PAYMENT-04 PAYMENT-05 PAYMENT-06 PAYMENT-07 PAYMENT-09 PAYMENT-10 PAYMENT-11 PRICING-14 SUB-01 DASH-11 from pricing, through sign-in, pay by card and see the plan active', async ({
    page,
    request,
  }) => {
    const member = await createMember(request)
    await page.goto('/pricing')
    await page.getByRole('button', { name: 'Subscribe to Monthly' }).click()
    await expect(page.getByText('Please sign in to subscribe to a plan')).toBeVisible()
    await page.getByLabel('Email').fill(member.email)
    await page.getByLabel('Password', { exact: true }).fill(member.password)
    await page.getByRole('button', { name: 'Sign In to Dashboard' }).click()
    // Signing in continues to the chosen plan.
    await expect(page).toHaveURL('/payment')
    await expect(page.getByRole('heading', { name: 'Monthly' })).toBeVisible()
    await expect(page.getByText('POPULAR', { exact: true })).toBeVisible()
    await expect(page.getByText('Everything EdgeClub offers, billed monthly. Cancel any time.')).toBeVisible()
    const summary = page.getByRole('region', { name: 'Monthly' })
    await expect(summary.getByRole('listitem')).toHaveCount(3)
    await expect(summary).toContainText('+3 more features')
    await expect(summary).toContainText('$39.99')
    await expect(page.getByRole('link', { name: 'Back to Pricing' })).toBeVisible()
    await fillCard(page, '4242 4242 4242 4242')
    await page.getByRole('button', { name: 'Pay $39.99' }).click()
    await expect(page.getByText('Payment Successful!')).toBeVisible()
    await expect(page).toHaveURL('/dashboard', { timeout: 6_000 })
    await expect(page.getByText('Successfully subscribed to Monthly plan!')).toBeVisible()
    await page.getByRole('link', { name: 'Subscription' }).click()
    const membership = page.getByRole('region', { name: 'Your membership' })
    await expect(membership).toContainText('Active')
    await expect(membership).toContainText('Monthly')
    await expect(page.getByRole('complementary', { name: 'Dashboard' })).toContainText('Premium Member')
    await page.getByRole('link', { name: 'Payment History' }).click()
    const row = page.getByRole('region', { name: 'Your payments' }).getByRole('listitem').first()
    await expect(row).toContainText('Monthly plan')
    await expect(row).toContainText('$39.99')
    await expect(row).toContainText('completed')
  })

  test.describe('with a declined card', () => {
    test.use({ allowedConsoleErrors: [/status of 402/] })
    test('PAYMENT-22 a declined card shows its message and grants nothing', async ({ page, request }) => {
      await signIn(page, await createMember(request))
      await buyFromDashboard(page, 'Subscribe to Weekly')
      await fillCard(page, '4000 0000 0000 0002')
      await page.getByRole('button', { name: 'Pay $14.99' }).click()
      await expect(page.getByRole('alert')).toHaveText('Your card was declined.')
      await page.goto('/dashboard?tab=subscription')
      await expect(page.getByRole('region', { name: 'Your membership' })).toContainText('Inactive')
    })
  })

  test('a card that needs 3-D Secure asks to authenticate, then succeeds', async ({ page, request }) => {
    await signIn(page, await createMember(request))
    await buyFromDashboard(page, 'Get Lifetime Access')
    await fillCard(page, '4000 0025 0000 3155')
    await page.getByRole('button', { name: 'Pay $799.99' }).click()
    const dialog = page.getByRole('dialog', { name: 'Authenticate your payment' })
    await dialog.getByRole('button', { name: 'Complete authentication' }).click()
    await expect(page.getByText('Payment Successful!')).toBeVisible()
  })

  test('PAYMENT-01 PAYMENT-12 PAYMENT-13 without an intent and a plan the page says so and returns to the dashboard', async ({
    page,
    request,
  }) => {
    await signIn(page, await createMember(request))
    await page.goto('/payment')
    await expect(page.getByRole('heading', { name: 'Invalid payment session' })).toBeVisible()
    await expect(page.getByRole('link', { name: 'Return to Pricing' })).toHaveAttribute('href', '/pricing')
    await expect(page).toHaveURL('/dashboard', { timeout: 6_000 })
    await expect(page.getByText('Please select a plan to continue')).toBeVisible()
  })

  test('PAYMENT-14 a visitor is sent to sign in first', async ({ page }) => {
    await page.goto('/payment')
    await expect(page).toHaveURL('/login')
    await expect(page.getByText('Please sign in to complete your payment')).toBeVisible()
  })

  test('SUB-04 SUB-05 HIST-02 HIST-03 HIST-04 an unfinished checkout shows in history with Complete Payment', async ({
    page,
    request,
  }) => {
    await signIn(page, await createMember(request))
    await page.goto('/dashboard?tab=subscription')
    await page.route('**/discord/api/payments/create-intent', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 700))
      await route.continue()
    })
    await page.getByRole('button', { name: 'Subscribe to Yearly' }).click()
    await expect(page.getByRole('button', { name: 'Processing...' })).toBeVisible()
    await expect(page.getByRole('button', { name: 'Subscribe to Weekly' })).toBeDisabled()
    await expect(page).toHaveURL('/payment')
    await page.goto('/dashboard?tab=payments')
    const banner = page.getByRole('status').filter({ hasText: 'unfinished payment' })
    await expect(banner).toContainText('$299.99')
    await expect(banner).toContainText('Yearly')
    await expect(
      page.getByRole('region', { name: 'Your payments' }).getByRole('listitem').first(),
    ).toContainText('pending')
    await banner.getByRole('button', { name: 'Complete Payment' }).click()
    await expect(page).toHaveURL('/payment')
    await fillCard(page, '4242424242424242')
    await page.getByRole('button', { name: 'Pay $299.99' }).click()
    await expect(page.getByText('Payment Successful!')).toBeVisible()
  })

  test.describe('when the checkout cannot start', () => {
    test.use({ allowedConsoleErrors: [/status of 500/] })
    test('SUB-07 SUB-08 SUB-09 SUB-12 shows "Failed to subscribe to {plan}. {reason}" in red for 5 seconds', async ({
      page,
      request,
    }) => {
      await signIn(page, await createMember(request))
      await page.goto('/dashboard?tab=subscription')
      await page.route('**/discord/api/payments/create-intent', (route) =>
        route.fulfill({ status: 500, json: { success: false, error: 'INTERNAL', message: 'boom' } }),
      )
      await page.getByRole('button', { name: 'Subscribe to Weekly' }).click()
      const alert = page
        .getByRole('alert')
        .filter({ hasText: 'Failed to subscribe to Weekly. Failed to create payment intent' })
      await expect(alert).toBeVisible()
      await expect(alert).toHaveClass(/text-rose/)
      await expect(alert).toBeHidden({ timeout: 7_000 })
    })
  })

  test.describe('on a server without Stripe keys', () => {
    test('PAYMENT-15 the payment page shows Stripe Configuration Missing', async ({ page, request }) => {
      // A second server starts its own embedded database: give it time.
      test.setTimeout(120_000)
      const server = await startServer({ PRICE_FEED_URL: String(process.env.E2E_PRICE_FEED_URL) })
      try {
        const member = await createMember(request)
        // The same account on the second server, which has its own database:
        const other = await fetch(`${server.url}/discord/api/auth/register`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ ...member, agreeToTerms: true, ageConfirmation: true }),
        })
        expect(other.status).toBe(201)
        const { data } = await other.json()
        const plans = (await (await fetch(`${server.url}/discord/api/subscriptions/plans`)).json()).data
        await page.goto(`${server.url}/`)
        await page.evaluate(({ user, tokens }) => {
          localStorage.setItem('user', JSON.stringify(user))
          localStorage.setItem('token', tokens.accessToken)
          localStorage.setItem('refreshToken', tokens.refreshToken)
        }, data)
        await page.goto(`${server.url}/`)
        await page.evaluate((plan) => {
          window.history.pushState(
            {
              usr: {
                paymentIntent: {
                  clientSecret: 'pi_x_secret_y',
                  paymentIntentId: 'pi_x',
                  amount: 39.99,
                  currency: 'USD',
                },
                plan,
              },
              key: 'x',
              idx: 1,
            },
            '',
            '/payment',
          )
        }, plans[1])
        await page.reload()
        await expect(page.getByText('Stripe Configuration Missing')).toBeVisible()
      } finally {
        await server.stop()
      }
    })
  })
})

test.describe('tips', () => {
  async function tipTab(page: Page, member: Member) {
    await signIn(page, member)
    await page.goto('/dashboard?tab=tip')
    return page.getByRole('region', { name: 'Send a tip' })
  }

  test('TIP-02 TIP-09 TIP-10 TIP-11 TIP-12 TIP-13 TIP-14 checks the amount and message as typed', async ({
    page,
    request,
  }) => {
    const tab = await tipTab(page, await createMember(request))
    const amount = tab.getByLabel('Amount')
    await amount.pressSequentially('4a.567')
    await expect(amount).toHaveValue('4.56')
    await expect(tab.getByLabel('Currency')).toHaveValue('USD')
    await expect(tab.getByLabel('Currency').getByRole('option')).toHaveText([
      'USD',
      'EUR',
      'GBP',
      'CAD',
      'AUD',
    ])
    await amount.fill('0.4')
    await tab.getByRole('button', { name: 'Continue to Payment' }).click()
    await expect(tab.getByText('Tip amount must be at least $0.50')).toBeVisible()
    await amount.fill('5')
    const message = tab.getByLabel('Message (optional)')
    await message.fill('x'.repeat(201))
    await expect(tab.getByText('201/200')).toBeVisible()
    await tab.getByRole('button', { name: 'Continue to Payment' }).click()
    await expect(tab.getByText('Tip message must be 200 characters or less')).toBeVisible()
  })

  test('TIP-03 TIP-04 TIP-05 TIP-06 TIP-07 TIP-08 a tip goes through and the form clears; cancel discards an intent', async ({
    page,
    request,
  }) => {
    const tab = await tipTab(page, await createMember(request))
    await tab.getByLabel('Amount').fill('7.50')
    await tab.getByLabel('Currency').selectOption('EUR')
    await tab.getByRole('button', { name: 'Continue to Payment' }).click()
    await expect(tab.getByText('Tip amount: €7.50')).toBeVisible()
    await tab.getByRole('button', { name: 'Cancel' }).click()
    await expect(tab.getByLabel('Amount')).toHaveValue('7.50')
    await tab.getByLabel('Message (optional)').fill('Thanks for the NBA card!')
    await tab.getByRole('button', { name: 'Continue to Payment' }).click()
    await fillCard(page, '4242 4242 4242 4242')
    await tab.getByRole('button', { name: 'Send €7.50 Tip' }).click()
    const success = tab.getByText('Tip sent successfully! Thank you for your support! 🎉')
    await expect(success).toBeVisible()
    await expect(tab.getByLabel('Amount')).toHaveValue('')
    await expect(success).toBeHidden({ timeout: 7_000 })
  })
})

test('OVERVIEW-01 OVERVIEW-02 the overview shows three recent items and the total spent', async ({
  page,
  request,
}) => {
  await signIn(page, await createMember(request))
  for (const amount of ['1.25', '2.50', '3.75', '4.10']) {
    await page.goto('/dashboard?tab=tip')
    await page.getByLabel('Amount').fill(amount)
    await page.getByRole('button', { name: 'Continue to Payment' }).click()
    await fillCard(page, '4242 4242 4242 4242')
    await page.getByRole('button', { name: `Send $${amount} Tip` }).click()
    await expect(page.getByText('Tip sent successfully!')).toBeVisible()
  }
  await page.goto('/dashboard')
  await expect(page.getByRole('region', { name: 'Recent activity' }).getByRole('listitem')).toHaveCount(3)
  await expect(page.getByText('$11.60')).toBeVisible()
})
