import type { Bot } from 'grammy'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, afterEach, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Emulator, startEmulator } from '../src/server'
import { startTelegramBotApp, type TelegramBotApp } from './telegram-bot-app'

/**
 * The people's Telegram page in a real browser, driven by role and name as a member in the demo
 * would: a deep link's Start reaches the bot, an invite link's Request to Join is approved for the
 * member and declined for a stranger, a plain link joins at once, and the chat shows the bot's
 * next post.
 */

const SECRET = 'page_test_secret'
let emulator: Emulator
let browser: Browser
let app: TelegramBotApp
let ties: Map<number, string>

beforeAll(async () => {
  emulator = await startEmulator({ telegram: { linkBase: 'emulator' } })
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}, 30_000)

beforeEach(async () => {
  emulator.telegram.reset()
  ties = new Map()
  app = await startTelegramBotApp(emulator, {
    secretToken: SECRET,
    setup: (bot: Bot) => {
      bot.command('start', async (ctx) => {
        if (!ctx.match) return ctx.reply('Open EdgeClub and press Connect Telegram.')
        ties.set(ctx.from!.id, ctx.match)
        await ctx.reply('Connected to EdgeClub. Your links follow.')
      })
      bot.on('chat_join_request', async (ctx) => {
        const from = ctx.chatJoinRequest.from.id
        if (ties.has(from)) await ctx.approveChatJoinRequest(from)
        else await ctx.declineChatJoinRequest(from)
      })
    },
  })
  await app.bot.api.setWebhook(app.url, { secret_token: SECRET })
})

afterEach(async () => {
  await app.close()
})

afterAll(async () => {
  await browser?.close()
  await emulator?.close()
})

const vip = () => emulator.telegram.config.chats[1]!.id

async function withPage(run: (page: Page) => Promise<void>) {
  const context = await browser.newContext()
  try {
    await run(await context.newPage())
  } finally {
    await context.close()
  }
}

describe('the Telegram page', () => {
  it('Start from a deep link as a new account reaches the bot, and its answer shows', async () => {
    await withPage(async (page) => {
      await page.goto(`${emulator.telegram.pageLinkBase}/edgeclub_demo_bot?start=tok_page_1`)
      await expect.poll(() => page.getByRole('heading', { level: 1 }).textContent()).toBe('EdgeClub')
      await page.getByLabel('Or a new account: first name').fill('Morgan')
      await page.getByLabel("New account's username (optional)").fill('morgan_page')
      await page.getByRole('button', { name: 'Start' }).click()
      await page.getByText('Connected to EdgeClub. Your links follow.').waitFor({ timeout: 10_000 })
      const morgan = emulator.telegram.users().find((user) => user.username === 'morgan_page')!
      expect(ties.get(morgan.id)).toBe('tok_page_1')
      await expect
        .poll(() => page.getByRole('list', { name: 'Messages' }).getByRole('listitem').count())
        .toBe(2)
    })
  })

  it("joins through a member's link, is approved, and sees the bot's next post; a stranger is declined", async () => {
    emulator.telegram.start(1000000002, 'tok_jordan')
    await app.waitFor(() => ties.has(1000000002))
    const link = await app.bot.api.createChatInviteLink(vip(), { creates_join_request: true })
    expect(link.invite_link.startsWith(`${emulator.url}/telegram/t.me/+`)).toBe(true)

    await withPage(async (page) => {
      await page.goto(link.invite_link)
      await page.getByRole('heading', { name: 'EdgeClub VIP' }).waitFor()
      await page.getByLabel('Existing account').selectOption({ label: 'Jordan (@jordan_t)' })
      await page.getByRole('button', { name: 'Request to Join' }).click()
      await page
        .getByRole('status')
        .getByText('Jordan (@jordan_t) is a member of EdgeClub VIP.')
        .waitFor({ timeout: 10_000 })
      await page.getByRole('link', { name: 'Open EdgeClub VIP' }).click()
      await page.getByText('No messages yet.').waitFor()

      await app.bot.api.sendMessage(vip(), 'NFL: Chiefs -3 (2 units)')
      // The chat page refreshes itself; the post shows up without touching anything.
      await page.getByText('NFL: Chiefs -3 (2 units)').waitFor({ timeout: 10_000 })
    })

    await withPage(async (page) => {
      await page.goto(link.invite_link)
      await page.getByLabel('Existing account').selectOption({ label: 'Alex Stranger (@alex_stranger)' })
      await page.getByRole('button', { name: 'Request to Join' }).click()
      await page
        .getByRole('status')
        .getByText("Alex Stranger (@alex_stranger)'s request to join EdgeClub VIP was declined.")
        .waitFor({ timeout: 10_000 })
      await page.goto(`${emulator.url}/telegram/chats/${vip()}?user=1000000003`)
      await page.getByText('You are not a member of EdgeClub VIP, so you cannot see its messages.').waitFor()
      expect(await page.getByText('NFL: Chiefs -3 (2 units)').count()).toBe(0)
    })
    expect(emulator.telegram.member(vip(), 1000000003).status).toBe('left')
  })

  it('joins at once through a plain link, and says so when a link is revoked', async () => {
    const link = await app.bot.api.createChatInviteLink(vip())
    await withPage(async (page) => {
      await page.goto(link.invite_link)
      await page.getByLabel('Or a new account: first name').fill('Quinn')
      await page.getByRole('button', { name: 'Join Group' }).click()
      await page.getByRole('status').getByText('Quinn is a member of EdgeClub VIP.').waitFor()
      await app.bot.api.revokeChatInviteLink(vip(), link.invite_link)
      await page.reload()
      await page.getByRole('alert').getByText('This invite link was revoked.').waitFor()
      expect(await page.getByRole('button', { name: 'Join Group' }).count()).toBe(0)
    })
  })

  it('lists people and chats, and lets a person write to the bot', async () => {
    await withPage(async (page) => {
      await page.goto(`${emulator.url}/telegram/`)
      await page.getByRole('heading', { name: 'Telegram (emulated)' }).waitFor()
      for (const title of ['EdgeClub Signals', 'EdgeClub VIP', 'NFL Picks'])
        await page.getByRole('link', { name: title, exact: true }).waitFor()
      await page.getByRole('link', { name: 'Jordan (@jordan_t)' }).click()
      await page.getByRole('button', { name: 'Start' }).click()
      await page.getByText('Open EdgeClub and press Connect Telegram.').waitFor({ timeout: 10_000 })
      await page.getByLabel('Write a message').fill('/start tok_typed')
      await page.getByRole('button', { name: 'Send' }).click()
      await page.getByText('Connected to EdgeClub. Your links follow.').waitFor({ timeout: 10_000 })
      expect(ties.get(1000000002)).toBe('tok_typed')
    })
  })
})
