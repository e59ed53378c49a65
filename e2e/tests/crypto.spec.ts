import { expect, test } from '../support/fixtures'
import { createMember, signIn } from '../support/members'

test.describe('paying with crypto', () => {
  test('API-16 a member buys the monthly plan through the BTCPay checkout and sees it active', async ({
    page,
    request,
  }) => {
    await signIn(page, await createMember(request))
    await page.goto('/dashboard?tab=subscription')
    const monthly = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Monthly' }) })
    await monthly.getByRole('button', { name: 'Pay with crypto' }).click()
    await expect(page).toHaveURL(/\/btcpay\/i\//)
    await expect(page.getByText('39.99').first()).toBeVisible()
    await page.getByRole('button', { name: 'Pay in full' }).click()
    await expect(page.getByText('Payment received')).toBeVisible()
    await page.getByRole('link', { name: 'Return to EdgeClub' }).click()
    await expect(page).toHaveURL(/\/dashboard\?tab=payments/)
    const row = page.getByRole('region', { name: 'Your payments' }).getByRole('listitem').first()
    await expect(row).toContainText('Monthly plan')
    await expect(row).toContainText('by crypto')
    await expect(row).toContainText('completed', { timeout: 15_000 })
    await page.getByRole('link', { name: 'Subscription' }).click()
    await expect(page.getByRole('region', { name: 'Your membership' })).toContainText('Active')
    await expect(page.getByRole('complementary', { name: 'Dashboard' })).toContainText('Premium Member')
  })

  test('the payment page offers crypto beside the card; paying so closes the card checkout', async ({
    page,
    request,
  }) => {
    await signIn(page, await createMember(request))
    await page.goto('/dashboard?tab=subscription')
    await page.getByRole('button', { name: 'Subscribe to Yearly' }).click()
    await expect(page).toHaveURL('/payment')
    await expect(page.getByRole('button', { name: 'Pay $299.99' })).toBeVisible()
    await page.getByRole('button', { name: 'Pay with crypto' }).click()
    await expect(page).toHaveURL(/\/btcpay\/i\//)
    await expect(page.getByText('299.99').first()).toBeVisible()
    await page.getByRole('button', { name: 'Pay in full' }).click()
    await page.getByRole('link', { name: 'Return to EdgeClub' }).click()
    await expect(page).toHaveURL(/\/dashboard\?tab=payments/)
    const rows = page.getByRole('region', { name: 'Your payments' }).getByRole('listitem')
    await expect(rows.filter({ hasText: 'by crypto' })).toContainText('completed', { timeout: 15_000 })
    // The card checkout is closed by a background job once the crypto payment settles: look again
    // (as a member would, reloading) until it shows.
    await expect(async () => {
      await page.reload()
      await expect(rows.filter({ hasText: 'by card' })).toContainText('cancelled', { timeout: 2_000 })
    }).toPass({ timeout: 30_000 })
    await expect(page.getByRole('status').filter({ hasText: 'unfinished payment' })).toHaveCount(0)
    await expect(page.getByRole('button', { name: 'Complete Payment' })).toHaveCount(0)
  })

  test('an underpaid crypto invoice stays pending with a way back to its checkout, then expires', async ({
    page,
    request,
  }) => {
    await signIn(page, await createMember(request))
    await page.goto('/dashboard?tab=subscription')
    const weekly = page.getByRole('article').filter({ has: page.getByRole('heading', { name: 'Weekly' }) })
    await weekly.getByRole('button', { name: 'Pay with crypto' }).click()
    await expect(page).toHaveURL(/\/btcpay\/i\//)
    await page.goBack()
    await page.goto('/dashboard?tab=payments')
    const row = page.getByRole('region', { name: 'Your payments' }).getByRole('listitem').first()
    await expect(row).toContainText('pending')
    await expect(row).toContainText('Waiting for your crypto payment.')
    await row.getByRole('link', { name: 'Open Checkout' }).click()
    await expect(page).toHaveURL(/\/btcpay\/i\//)
    await page.getByRole('button', { name: 'Pay half (underpay)' }).click()
    await page.goto('/dashboard?tab=payments')
    await expect(row).toContainText('Partly paid: send the rest before the invoice expires.', {
      timeout: 15_000,
    })
    await expect(row).toContainText('pending')
    await row.getByRole('link', { name: 'Open Checkout' }).click()
    await expect(page).toHaveURL(/\/btcpay\/i\//)
    await page.getByRole('button', { name: 'Let it expire' }).click()
    await page.goto('/dashboard?tab=payments')
    await expect(row).toContainText('failed', { timeout: 15_000 })
    await expect(row).toContainText('expired underpaid')
    await expect(row.getByRole('link', { name: 'Open Checkout' })).toHaveCount(0)
    await page.getByRole('link', { name: 'Subscription' }).click()
    await expect(page.getByRole('region', { name: 'Your membership' })).toContainText('Inactive')
  })
})
