import { expect, test } from '../support/fixtures'
import { createMember, signIn } from '../support/members'

/** Gives a member access the way a payment would: through the admin API as the e2e admin, if any, else by paying. */
async function payForMonthly(page: import('@playwright/test').Page) {
  await page.goto('/dashboard?tab=subscription')
  await page.getByRole('button', { name: 'Subscribe to Monthly' }).click()
  await expect(page).toHaveURL('/payment')
  await page.getByLabel('Card number').fill('4242 4242 4242 4242')
  await page.getByLabel('Expiration date').fill('12 / 34')
  await page.getByLabel('Security code').fill('123')
  await page.getByLabel('ZIP').fill('10001')
  await page.getByRole('button', { name: 'Pay $39.99' }).click()
  await expect(page).toHaveURL('/dashboard', { timeout: 8_000 })
}

test.describe('Discord access', () => {
  test('INVITE-06 INVITE-07 without a subscription the button reads Subscription Required and links to the plans', async ({
    page,
    request,
  }) => {
    await signIn(page, await createMember(request))
    // Links from before the tab was renamed still open it.
    await page.goto('/dashboard?tab=discord')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Community')
    await expect(page.getByRole('button', { name: 'Subscription Required' })).toBeDisabled()
    await page.getByRole('link', { name: 'View plans' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Subscription')
  })

  test('INVITE-02 INVITE-03 INVITE-04 INVITE-11 a paying member creates an invite, copies it and starts over', async ({
    page,
    request,
    context,
  }) => {
    await context.grantPermissions(['clipboard-read', 'clipboard-write'])
    const member = await createMember(request)
    await signIn(page, member)
    await payForMonthly(page)
    await page.goto('/dashboard?tab=community')
    await page.getByRole('button', { name: 'Create Discord Invite' }).click()
    const link = page.getByText(/^https:\/\/discord\.gg\/\w+$/)
    await expect(link).toBeVisible()
    await expect(page.getByText(member.discordUsername, { exact: true })).toBeVisible()
    await expect(page.getByText('Single use')).toBeVisible()
    await expect(page.getByRole('link', { name: 'Join Discord' })).toHaveAttribute(
      'href',
      (await link.textContent()) ?? '',
    )
    await page.getByRole('button', { name: 'Copy Invite Link' }).click()
    const notice = page.getByText('Discord invite link copied to clipboard!')
    await expect(notice).toBeVisible()
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(await link.textContent())
    await expect(notice).toBeHidden({ timeout: 5_000 })
    await page.getByRole('button', { name: 'Create New Invite' }).click()
    await expect(page.getByRole('button', { name: 'Create Discord Invite' })).toBeVisible()
    await expect(page.getByText('Invite sent — waiting for you to join')).toBeVisible()
  })

  test.describe('when copying is not allowed', () => {
    test('INVITE-12 shows Failed to copy invite link', async ({ page, request }) => {
      await signIn(page, await createMember(request))
      await payForMonthly(page)
      await page.goto('/dashboard?tab=community')
      await page.evaluate(() => {
        Object.defineProperty(navigator, 'clipboard', {
          value: { writeText: () => Promise.reject(new Error('denied')) },
        })
      })
      await page.getByRole('button', { name: 'Create Discord Invite' }).click()
      await page.getByRole('button', { name: 'Copy Invite Link' }).click()
      await expect(page.getByText('Failed to copy invite link')).toBeVisible()
    })
  })

  test.describe('when Discord refuses', () => {
    test.use({ allowedConsoleErrors: [/status of 503/] })
    test('INVITE-09 shows the server error', async ({ page, request }) => {
      await signIn(page, await createMember(request))
      await payForMonthly(page)
      await page.goto('/dashboard?tab=community')
      await page.route('**/discord/api/discord/create-invite', (route) =>
        route.fulfill({
          status: 503,
          json: { success: false, error: 'UPSTREAM_ERROR', message: 'Discord is having a moment.' },
        }),
      )
      await page.getByRole('button', { name: 'Create Discord Invite' }).click()
      await expect(page.getByRole('alert')).toHaveText('Discord is having a moment.')
    })
  })
})

test.describe('when the network fails', () => {
  test.use({ allowedConsoleErrors: [/ERR_FAILED|Failed to load resource/] })
  test('INVITE-10 TIP-16 SUB-11 show the unexpected-error messages', async ({ page, request }) => {
    await signIn(page, await createMember(request))
    await page.route('**/discord/api/payments/create-intent', (route) => route.abort('failed'))
    await page.goto('/dashboard?tab=subscription')
    await page.getByRole('button', { name: 'Subscribe to Weekly' }).click()
    await expect(page.getByText('Failed to subscribe to Weekly. An unexpected error occurred')).toBeVisible()
    await page.route('**/discord/api/tips/create', (route) => route.abort('failed'))
    await page.goto('/dashboard?tab=tip')
    await page.getByLabel('Amount').fill('5')
    await page.getByRole('button', { name: 'Continue to Payment' }).click()
    await expect(page.getByText('An unexpected error occurred while creating the tip')).toBeVisible()
    await page.unroute('**/discord/api/payments/create-intent')
    await payForMonthly(page)
    await page.route('**/discord/api/discord/create-invite', (route) => route.abort('failed'))
    await page.goto('/dashboard?tab=community')
    await page.getByRole('button', { name: 'Create Discord Invite' }).click()
    await expect(page.getByText('An unexpected error occurred while creating the invite')).toBeVisible()
  })
})
