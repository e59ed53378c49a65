import type { APIRequestContext, Page } from '@playwright/test'
import { accessibilityViolations, expect, test } from '../support/fixtures'
import { createMember, type Member, signIn, tokenOf } from '../support/members'

/**
 * Connect Discord: the member proves their Discord account on Discord's consent page (the emulator's)
 * and comes back in the server with the member role.
 */

const emulator = () => String(process.env.E2E_EMULATOR_URL)
const getJson = async <T>(path: string): Promise<T> =>
  (await fetch(`${emulator()}${path}`)).json() as Promise<T>

async function payForMonthly(page: Page) {
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

/** A Discord username of our own, so parallel tests never share a Discord user. */
let counter = 0
function discordName(): string {
  counter += 1
  return `e2e_${Date.now().toString(36)}_${process.pid % 1000}_${counter}`
}

/** On the emulator's consent page: become a new Discord user, then Authorize or Cancel. */
async function consentAs(page: Page, username: string, decision: 'Authorize' | 'Cancel') {
  await expect(
    page.getByRole('heading', { name: 'EdgeClub wants to access your Discord account' }),
  ).toBeVisible()
  await expect(page.getByText('Join servers for you')).toBeVisible()
  await page.getByLabel('New Discord username').fill(username)
  await page.getByRole('button', { name: 'Create user' }).click()
  await expect(page.getByText(`(@${username})`).first()).toBeVisible()
  await page.getByRole('button', { name: decision }).click()
}

/** The plan ends now: an admin refunds its payment in full, which ends the access it bought. */
async function endPlan(request: APIRequestContext, member: Member) {
  const headers = { authorization: `Bearer ${await tokenOf(request)}` }
  const payments = await request.get(
    `/discord/api/admin/payments?search=${encodeURIComponent(member.email)}`,
    {
      headers,
    },
  )
  const [payment] = (await payments.json()).data.items as { id: string }[]
  expect(payment).toBeDefined()
  const refund = await request.post(`/discord/api/admin/payments/${payment?.id}/refund`, {
    headers,
    data: {},
  })
  expect(refund.status(), await refund.text()).toBe(200)
}

test.describe('Connect Discord', () => {
  test('a paying member connects in one click, is in the server with the role, and loses it when the plan ends', async ({
    page,
    request,
  }) => {
    test.setTimeout(120_000)
    const member = await createMember(request)
    await signIn(page, member)
    await payForMonthly(page)
    await page.goto('/dashboard?tab=community')
    const username = discordName()
    await page.getByRole('button', { name: 'Connect Discord' }).click()
    await consentAs(page, username, 'Authorize')

    // Back on the Community tab, with the account shown.
    await expect(page).toHaveURL('/dashboard?tab=community')
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Community')
    await expect(
      page.getByText(`Connected as ${username}. You are in the EdgeClub Discord with the member role.`),
    ).toBeVisible()
    const account = page.getByRole('region', { name: 'Your Discord account' })
    await expect(account).toContainText(`Connected as ${username}`)
    await expect(account.getByRole('button', { name: 'Disconnect' })).toBeVisible()
    await expect(page.getByText('Member role granted')).toBeVisible()

    // Discord (the emulator) has them in the server with the member role.
    const config = await getJson<{ memberRoleId: string }>('/_control/discord/config')
    const users = await getJson<{ id: string; username: string }[]>('/_control/discord/users')
    const discordUser = users.find((user) => user.username === username)
    expect(discordUser).toBeDefined()
    const roles = async () =>
      (await getJson<{ roles?: string[] }>(`/_control/discord/members/${discordUser?.id}`)).roles ?? []
    expect(await roles()).toContain(config.memberRoleId)

    // Settings shows the same account.
    await page.goto('/dashboard?tab=settings')
    await expect(page.getByRole('region', { name: 'Discord account' })).toContainText(
      `Connected as ${username}`,
    )

    // The role change is a queued job: behind whatever else the role sync has to do (a sweep of every
    // member, every 15 minutes), so it may take a while on a busy run.
    await endPlan(request, member)
    await expect.poll(roles, { timeout: 60_000 }).not.toContain(config.memberRoleId)
  })

  test.describe('when the member cancels on Discord', () => {
    test.use({ allowedConsoleErrors: [/status of 400/] })
    test('comes back to the tab saying nothing was connected', async ({ page, request }) => {
      await signIn(page, await createMember(request))
      await page.goto('/dashboard?tab=community')
      await page.getByRole('button', { name: 'Connect Discord' }).click()
      await consentAs(page, discordName(), 'Cancel')
      await expect(page).toHaveURL('/dashboard?tab=community')
      await expect(page.getByRole('alert')).toHaveText(
        'You cancelled on Discord, so nothing was connected. Click Connect Discord to try again.',
      )
      await expect(page.getByRole('button', { name: 'Connect Discord' })).toBeVisible()
      expect(await accessibilityViolations(page)).toEqual([])
    })
  })
})
