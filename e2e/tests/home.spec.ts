import { control, expect, test } from '../support/fixtures'
import { startServer } from '../support/server'

test.describe('landing page', () => {
  test('HOME-08 HOME-09 the hero leads to the dashboard and to pricing', async ({ page }) => {
    await page.goto('/')
    await expect(page.getByRole('link', { name: 'Get Started' })).toHaveAttribute('href', '/dashboard')
    await page.getByRole('link', { name: 'View Pricing', exact: true }).click()
    await expect(page).toHaveURL('/pricing')
  })

  test('HOME-10 HOME-14 HOME-15 Discover Now and the closing call to action lead to register and pricing', async ({
    page,
  }) => {
    await page.goto('/')
    await expect(page.getByRole('link', { name: 'Discover Now' })).toHaveAttribute('href', '/register')
    await expect(page.getByRole('link', { name: 'Create Your Account' })).toHaveAttribute('href', '/register')
    await expect(page.getByRole('link', { name: 'View Pricing Plans' })).toHaveAttribute('href', '/pricing')
    await page.getByRole('link', { name: 'Create Your Account' }).click()
    await expect(page).toHaveURL('/register')
  })

  test('HOME-11 HOME-12 the membership section has six cards and ends with Join Us to /pricing', async ({
    page,
  }) => {
    await page.goto('/')
    const section = page.getByRole('region', { name: 'One membership, six ways to win' })
    const titles = section.getByRole('heading', { level: 3 })
    await expect(titles).toHaveText([
      'Sports Betting',
      'Stock Trading',
      'Fitness',
      'Life',
      'Capital Creation',
      'Fantasy Football',
    ])
    await expect(section.getByRole('link', { name: 'Join Us' })).toHaveAttribute('href', '/pricing')
  })

  test('HOME-13 the offerings list has its six bullets', async ({ page }) => {
    await page.goto('/')
    const list = page.getByRole('region', { name: 'Built for people who play to win' }).getByRole('listitem')
    await expect(list).toHaveText([
      '24/7 signals',
      'Real-time analytics',
      'Social trading',
      'Crypto payment networks',
      'Expert guidance',
      'Live broadcast with tips',
    ])
  })

  test('HOME-01 HOME-02 HOME-03 HOME-04 HOME-05 HOME-06 HOME-07 the copy carries the claims, the leagues and the news teaser', async ({
    page,
  }) => {
    await page.goto('/')
    const main = page.getByRole('main')
    await expect(main).toContainText('15,000+ members')
    await expect(main).toContainText('78% win rate over 3+ years')
    await expect(main).toContainText('30-day money-back guarantee on all plans')
    await expect(main).toContainText('24/7 support')
    await expect(main).toContainText('blockchain payment network')
    await expect(main).toContainText('NFL, NBA, MLB, NHL, Soccer and UFC')
    await expect(page.getByRole('region', { name: 'Latest from the club' })).toContainText('Coming Soon!')
  })
})

test.describe('live price card', () => {
  test('PRICES-01 PRICES-02 PRICES-03 PRICES-05 PRICES-08 PRICES-16 PRICES-17 shows BTC, ETH and SOL from the server with the SPEC formats', async ({
    page,
  }) => {
    await control('/_control/prices/set', { id: 'bitcoin', price: 67432.18, change: 2.41 })
    await control('/_control/prices/set', { id: 'ethereum', price: 3521.07, change: -1.27 })
    await control('/_control/prices/set', { id: 'solana', price: 148.6, change: 0 })
    const feedCalls: string[] = []
    page.on('request', (request) => {
      if (!request.url().startsWith(String(process.env.E2E_BASE_URL))) feedCalls.push(request.url())
    })
    await page.goto('/')
    const card = page.getByRole('region', { name: 'Live Crypto Prices' })
    await expect(card.getByRole('status')).toContainText(/^Updated: \d{1,2}:\d{2}:\d{2} [AP]M/)
    const rows = card.getByRole('listitem')
    await expect(rows).toHaveCount(3)
    // The server may still hold a copy from before the prices were set (or taken between the three
    // settings): wait for a copy with all three.
    await expect(async () => {
      await card.getByRole('button', { name: 'Refresh' }).click()
      await expect(rows.nth(0)).toContainText('$67,432', { timeout: 1000 })
      await expect(rows.nth(1)).toContainText('$3,521', { timeout: 1000 })
      await expect(rows.nth(2)).toContainText('$148.60', { timeout: 1000 })
    }).toPass({ timeout: 40_000 })
    await expect(rows.nth(0)).toContainText('BTC')
    await expect(rows.nth(0)).toContainText('+2.4%')
    await expect(rows.nth(1)).toContainText('-1.3%')
    await expect(rows.nth(2)).toContainText('+0.0%')
    await expect(card).toContainText('AI 95% Accuracy')
    expect(
      feedCalls.filter((url) => !url.startsWith('data:')),
      'the browser never calls a third-party feed',
    ).toEqual([])
  })

  test('PRICES-04 PRICES-06 PRICES-11 PRICES-12 refreshes every 30 seconds without a loading indicator; the button shows one', async ({
    page,
  }) => {
    await page.clock.install()
    await page.goto('/')
    const card = page.getByRole('region', { name: 'Live Crypto Prices' })
    const status = card.getByRole('status')
    await expect(status).toContainText('Updated:')
    await page.evaluate(() => {
      const target = document.querySelector('[aria-labelledby="live-prices-heading"] [role="status"]')!
      ;(window as unknown as { sawLoading: boolean }).sawLoading = false
      new MutationObserver(() => {
        if (target.textContent?.includes('Fetching prices...'))
          (window as unknown as { sawLoading: boolean }).sawLoading = true
      }).observe(target, { childList: true, subtree: true, characterData: true })
    })
    const refreshed = page.waitForResponse((response) =>
      response.url().endsWith('/discord/api/market/prices'),
    )
    await page.clock.runFor(30_000)
    await refreshed
    await expect(status).toContainText('Updated:')
    expect(await page.evaluate(() => (window as unknown as { sawLoading: boolean }).sawLoading)).toBe(false)

    await page.route('**/discord/api/market/prices', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 500))
      await route.continue()
    })
    await card.getByRole('button', { name: 'Refresh' }).click()
    await expect(status).toHaveText('Fetching prices...')
    await expect(status).toContainText('Updated:')
  })

  test.describe('when the feed has never answered', () => {
    test.use({ allowedConsoleErrors: [/status of 502/] })

    test('PRICES-07 PRICES-10 PRICES-15 shows the error and three placeholder items at zero', async ({
      page,
    }) => {
      const feed = `${process.env.E2E_EMULATOR_URL}/coingecko/api/v3/coins/markets-that-fail`
      // A second server starts its own embedded database: give it time.
      test.setTimeout(120_000)
      const server = await startServer({ PRICE_FEED_URL: feed })
      try {
        await page.goto(`${server.url}/`)
        const card = page.getByRole('region', { name: 'Live Crypto Prices' })
        await expect(card.getByRole('status')).toHaveText('Error: API Error: 502')
        const rows = card.getByRole('listitem')
        await expect(rows).toHaveCount(3)
        for (const [index, symbol] of ['BTC', 'ETH', 'SOL'].entries()) {
          await expect(rows.nth(index)).toContainText(symbol)
          await expect(rows.nth(index)).toContainText('$0.00')
          await expect(rows.nth(index)).toContainText('+0.0%')
        }
      } finally {
        await server.stop()
      }
    })
  })

  test.describe('when the feed fails after a good answer', () => {
    test('keeps showing the last prices, marked delayed', async ({ page }) => {
      await control('/_control/prices/set', { id: 'bitcoin', price: 50000, change: 1 })
      // A second server starts its own embedded database: give it time.
      test.setTimeout(120_000)
      const server = await startServer({
        PRICE_FEED_URL: process.env.E2E_PRICE_FEED_URL ?? '',
        PRICE_CACHE_SECONDS: '1',
      })
      try {
        await page.goto(`${server.url}/`)
        const card = page.getByRole('region', { name: 'Live Crypto Prices' })
        await expect(card.getByRole('listitem').first()).toContainText('$50,000')
        await control('/_control/prices/fail?status=500')
        await page.waitForTimeout(1_200)
        await page.reload()
        await expect(card.getByRole('status')).toContainText(/Updated: .*\(delayed\)/)
        await expect(card.getByRole('listitem').first()).toContainText('$50,000')
      } finally {
        await control('/_control/prices/recover')
        await server.stop()
      }
    })
  })
})
