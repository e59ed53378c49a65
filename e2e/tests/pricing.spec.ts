import { expect, test } from '../support/fixtures'
import { createMember, signIn } from '../support/members'
import { lockPlansOnSale } from '../support/plans-lock'

test.describe('pricing page', () => {
  // These tests count the seeded plans; the admin suite puts one of its own on sale for a moment.
  let release: (() => Promise<void>) | undefined
  test.beforeEach(async () => {
    release = await lockPlansOnSale()
  })
  test.afterEach(async () => {
    await release?.()
  })

  test('PRICING-01 PRICING-02 PRICING-04 PRICING-05 PRICING-06 PRICING-07 PRICING-09 shows the active plans in slug order with prices, interval text and features', async ({
    page,
  }) => {
    await page.goto('/pricing')
    const cards = page.getByRole('article')
    await expect(cards).toHaveCount(4)
    await expect(cards.getByRole('heading', { level: 3 })).toHaveText([
      'Weekly',
      'Monthly',
      'Yearly',
      'Lifetime',
    ])
    await expect(cards.nth(0)).toContainText('$14.99')
    await expect(cards.nth(0)).toContainText('per week')
    await expect(cards.nth(1)).toContainText('$39.99')
    await expect(cards.nth(1)).toContainText('per month')
    await expect(cards.nth(2)).toContainText('$299.99')
    await expect(cards.nth(2)).toContainText('per year')
    await expect(cards.nth(3)).toContainText('$799.99')
    await expect(cards.nth(3)).not.toContainText('per ')
    await expect(
      cards.nth(1).getByRole('list', { name: 'Monthly features' }).getByRole('listitem'),
    ).toHaveCount(6)
    await expect(cards.nth(1)).toContainText('Private Discord community access')
  })

  test('PRICING-10 PRICING-11 PRICING-12 PRICING-13 shows the badges, the yearly saving and the button labels', async ({
    page,
  }) => {
    await page.goto('/pricing')
    const cards = page.getByRole('article')
    await expect(cards.getByText('MOST POPULAR')).toHaveCount(1)
    await expect(cards.nth(1)).toContainText('MOST POPULAR')
    await expect(cards.nth(2)).toContainText('Save $179.89/year')
    await expect(page.getByText(/^Save \$/)).toHaveCount(1)
    await expect(cards.nth(3)).toContainText('Best Value')
    await expect(page.getByText('Best Value')).toHaveCount(1)
    await expect(page.getByRole('button', { name: /^(Subscribe to|Get Lifetime)/ })).toHaveText([
      'Subscribe to Weekly',
      'Subscribe to Monthly',
      'Subscribe to Yearly',
      'Get Lifetime Access',
    ])
  })

  test('PRICING-14 PRICING-15 choosing a plan sends the visitor to sign in, with the message, and no checkout', async ({
    page,
  }) => {
    await page.goto('/pricing')
    await page.getByRole('button', { name: 'Subscribe to Monthly' }).click()
    await expect(page).toHaveURL('/login')
    await expect(page.getByText('Please sign in to subscribe to a plan')).toBeVisible()
    const state = await page.evaluate(() => window.history.state?.usr)
    expect(state).toMatchObject({
      from: '/pricing',
      planId: expect.any(String),
      message: 'Please sign in to subscribe to a plan',
    })
  })

  test('PRICING-19 links to sign in', async ({ page }) => {
    await page.goto('/pricing')
    await page.getByRole('link', { name: 'Sign in here' }).click()
    await expect(page).toHaveURL('/login')
  })

  test('a signed-in member is not offered the sign-in link, on the prerendered page or after navigating', async ({
    page,
    request,
  }) => {
    const member = await createMember(request)
    await signIn(page, member)
    await page.goto('/pricing')
    await expect(page.getByRole('button', { name: 'Subscribe to Weekly' })).toBeVisible()
    await expect(page.getByText('Already a member?')).toBeHidden()
    await expect(page.getByRole('link', { name: 'Sign in here' })).toBeHidden()
    await page.getByRole('link', { name: 'Dashboard' }).click()
    await expect(page).toHaveURL(/\/dashboard/)
    await page.goBack()
    await expect(page.getByRole('heading', { name: 'Choose your membership' })).toBeVisible()
    await expect(page.getByText('Already a member?')).toBeHidden()
  })

  test('PRICING-16 shows the loading text while plans load', async ({ page }) => {
    await page.route('**/discord/api/admin/plans/public/active', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 800))
      await route.continue()
    })
    await page.goto('/pricing')
    await expect(page.getByText('Loading subscription plans...')).toBeVisible()
    await expect(page.getByRole('article')).toHaveCount(4)
    await expect(page.getByText('Loading subscription plans...')).toHaveCount(0)
  })

  test.describe('when the plans cannot be loaded', () => {
    test.use({ allowedConsoleErrors: [/status of 503/] })

    test('PRICING-17 PRICING-18 shows the failure and Try Again loads them', async ({ page }) => {
      await page.route('**/discord/api/admin/plans/public/active', (route) =>
        route.fulfill({ status: 503, json: { success: false, error: 'UPSTREAM_ERROR', message: 'down' } }),
      )
      await page.goto('/pricing')
      await expect(page.getByRole('alert')).toContainText('Failed to load subscription plans')
      await page.unroute('**/discord/api/admin/plans/public/active')
      await page.getByRole('button', { name: 'Try Again' }).click()
      await expect(page.getByRole('article')).toHaveCount(4)
      await expect(page.getByRole('alert')).toHaveCount(0)
    })
  })
})
