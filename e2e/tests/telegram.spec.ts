import type { APIRequestContext } from '@playwright/test'
import { expect, test } from '../support/fixtures'
import { createMember, type Member, signIn, tokenOf } from '../support/members'

async function adminHeaders(request: APIRequestContext) {
  return { authorization: `Bearer ${await tokenOf(request)}` }
}

/** Gives the member 30 days, as the admin console's Grant does. */
async function grantAccess(request: APIRequestContext, headers: Record<string, string>, member: Member) {
  const found = await request.get(`/discord/api/admin/users?search=${encodeURIComponent(member.email)}`, {
    headers,
  })
  const id = ((await found.json()) as { data: { items: { id: string }[] } }).data.items[0]!.id
  const granted = await request.post(`/discord/api/admin/users/${id}/grant`, { headers, data: { days: 30 } })
  expect(granted.status()).toBe(200)
}

// The emulator's Telegram pages are another site: real browsers send it no X-Forwarded-For.
test.use({ extraHTTPHeaders: {} })

test('a member connects Telegram, presses Start, joins the chat with their link and sees the next signal there', async ({
  page,
  request,
  emulatorUrl,
}) => {
  test.setTimeout(150_000)
  const headers = await adminHeaders(request)
  // The owner's setup, as in the demo: the VIP chat (the bot administers it) is a place.
  const config = (await (await fetch(`${emulatorUrl}/_control/telegram/config`)).json()) as {
    chats: { id: number; title: string }[]
  }
  const vip = config.chats.find((chat) => chat.title === 'EdgeClub VIP')!
  const added = await request.post('/discord/api/admin/places', {
    headers,
    data: { kind: 'telegram_chat', chat: String(vip.id) },
  })
  expect([201, 409]).toContain(added.status())

  const member = await createMember(request)
  await grantAccess(request, headers, member)
  await signIn(page, member)
  await page
    .getByRole('complementary', { name: 'Dashboard' })
    .getByRole('link', { name: 'Community' })
    .click()
  await expect(page.getByRole('heading', { level: 1 })).toHaveText('Community')
  const card = page.getByRole('region', { name: 'Telegram' })
  await card.getByRole('button', { name: 'Connect Telegram' }).click()
  const open = card.getByRole('link', { name: 'Open the EdgeClub bot' })
  const deepLink = String(await open.getAttribute('href'))
  expect(deepLink).toMatch(
    new RegExp(`^${emulatorUrl}/telegram/t\\.me/edgeclub_demo_bot\\?start=[A-Za-z0-9_-]{32}$`),
  )

  // Telegram, in another tab: a new account presses Start on the deep link.
  const telegram = await page.context().newPage()
  await telegram.goto(deepLink)
  const username = `jr_${Date.now().toString(36)}`
  await telegram.getByLabel('Or a new account: first name').fill('Jamie')
  await telegram.getByLabel("New account's username (optional)").fill(username)
  await telegram.getByRole('button', { name: 'Start' }).click()
  // The bot answers in the chat, then sends the member's own link (the person refreshes the chat).
  const join = telegram.getByRole('link', { name: 'Join EdgeClub VIP' })
  await expect(async () => {
    await telegram.getByRole('link', { name: 'Refresh' }).click()
    await expect(join).toBeVisible({ timeout: 1_000 })
  }).toPass({ timeout: 30_000 })
  await expect(
    telegram.getByText(/This Telegram account is now tied to Jamie's EdgeClub membership/),
  ).toBeVisible()

  // The dashboard sees the account (it looks again while the link is out), in its own window again.
  await page.bringToFront()
  await expect(card.getByText(`Connected as @${username}`)).toBeVisible({ timeout: 20_000 })

  await join.click()
  await telegram.getByRole('button', { name: 'Request to Join' }).click()
  await expect(telegram.getByRole('status')).toHaveText(/is a member of EdgeClub VIP\./, { timeout: 30_000 })
  await telegram.getByRole('link', { name: 'Open EdgeClub VIP' }).click()
  await expect(telegram.getByRole('heading', { name: 'EdgeClub VIP' })).toBeVisible()

  // The next signal: published by the club, posted in the chat with the words Discord gets.
  const event = `Lakers vs Suns ${Date.now().toString(36)}`
  const published = await request.post('/discord/api/signals', {
    headers,
    data: {
      kind: 'pick',
      sport: 'NBA',
      event,
      startsAt: new Date(Date.now() + 3_600_000).toISOString(),
      market: 'moneyline',
      selection: 'Lakers',
      odds: 2.05,
      stake: 1,
    },
  })
  expect(published.status()).toBe(201)
  await expect(telegram.getByText(event)).toBeVisible({ timeout: 30_000 })

  await page.reload()
  await expect(
    page.getByRole('region', { name: 'Telegram' }).getByRole('listitem').filter({ hasText: 'EdgeClub VIP' }),
  ).toContainText("You're in", { timeout: 20_000 })
})
