import { expect, test } from '../support/fixtures'
import { newMember } from '../support/members'
import { startServer } from '../support/server'

/**
 * The `npm run demo` wiring: the page loads the emulator's Stripe.js from STRIPE_JS_URL (allowed by
 * the CSP outside production, nothing routed by the test), and invite links open the emulator's
 * join page, after which the member role arrives.
 */
// Real browsers send no X-Forwarded-For; the emulator's CORS (like Stripe's) would refuse it.
test.use({ extraHTTPHeaders: {} })

test('a new member pays by card, gets an invite, joins Discord and receives the member role', async ({
  page,
}) => {
  test.setTimeout(150_000)
  const emulator = String(process.env.E2E_EMULATOR_URL)
  const control = (path: string) => fetch(`${emulator}${path}`).then((response) => response.json())
  const discord = (await control('/_control/discord/config')) as Record<string, string>
  const server = await startServer({
    PRICE_FEED_URL: String(process.env.E2E_PRICE_FEED_URL),
    STRIPE_SECRET_KEY: 'sk_test_emulator',
    STRIPE_PUBLISHABLE_KEY: 'pk_test_emulator',
    STRIPE_API_BASE: emulator,
    STRIPE_JS_URL: `${emulator}/stripe-js/v3`,
    DISCORD_BOT_TOKEN: discord.botToken ?? '',
    DISCORD_GUILD_ID: discord.guildId ?? '',
    DISCORD_INVITE_CHANNEL_ID: discord.inviteChannelId ?? '',
    DISCORD_MEMBER_ROLE_ID: discord.memberRoleId ?? '',
    DISCORD_ANNOUNCE_CHANNEL_ID: discord.announceChannelId ?? '',
    DISCORD_API_BASE: `${emulator}/discord/api`,
    DISCORD_INVITE_URL_BASE: `${emulator}/discord/invite`,
  })
  try {
    await page.unroute('https://js.stripe.com/**')
    const member = newMember()
    await page.goto(`${server.url}/register`)
    await page.getByLabel('First name').fill(member.firstName)
    await page.getByLabel('Last name').fill(member.lastName)
    await page.getByLabel('Email', { exact: true }).fill(member.email)
    await page.getByLabel('Discord username').fill(member.discordUsername)
    await page.getByLabel('Password', { exact: true }).fill(member.password)
    await page.getByLabel('Confirm password', { exact: true }).fill(member.password)
    await page.getByLabel('I agree to the Terms of Service and Privacy Policy').check()
    await page.getByLabel('I confirm I am 18+ years old and legally authorized to trade').check()
    await page.getByRole('button', { name: 'Create Account' }).click()
    await expect(page.getByText('Welcome to your trading dashboard')).toBeVisible()

    await page.goto(`${server.url}/dashboard?tab=subscription`)
    await page.getByRole('button', { name: 'Subscribe to Yearly' }).click()
    await page.getByLabel('Card number').fill('4242 4242 4242 4242')
    await page.getByLabel('Expiration date').fill('12 / 34')
    await page.getByLabel('Security code').fill('123')
    await page.getByLabel('ZIP').fill('10001')
    await page.getByRole('button', { name: 'Pay $299.99' }).click()
    await expect(page.getByText('Payment Successful!')).toBeVisible()
    await expect(page).toHaveURL(`${server.url}/dashboard`, { timeout: 8_000 })

    await page.goto(`${server.url}/dashboard?tab=community`)
    await page.getByRole('button', { name: 'Create Discord Invite' }).click()
    const join = page.getByRole('link', { name: 'Join Discord' })
    const inviteUrl = String(await join.getAttribute('href'))
    expect(inviteUrl.startsWith(`${emulator}/discord/invite/`)).toBe(true)

    const discordTab = await page.context().newPage()
    await discordTab.goto(inviteUrl)
    await discordTab.getByLabel('Your Discord username').fill(member.discordUsername)
    await discordTab.getByRole('button', { name: 'Accept Invite' }).click()
    await expect(discordTab.getByRole('heading', { name: 'You joined the server' })).toBeVisible()
    // The invite carried the plan's role: it is there the moment they join, before any sync.
    await expect(discordTab.getByText('You have your role already.')).toBeVisible()
    const state = (await control('/_control/discord/state')) as {
      members: { user: { username: string }; roles: string[] }[]
    }
    expect(
      state.members.find((entry) => entry.user.username === member.discordUsername.toLowerCase())?.roles,
    ).toContain(discord.memberRoleId)
    await discordTab.close()
    await page.bringToFront()

    await page.reload()
    await expect(page.getByText("You're in", { exact: true })).toBeVisible({ timeout: 30_000 })
    await expect(page.getByText('Member role granted')).toBeVisible()
  } finally {
    await server.stop()
  }
})
