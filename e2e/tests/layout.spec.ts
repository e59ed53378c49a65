import { expect, test } from '../support/fixtures'

const withFooter = ['/', '/tips', '/pricing', '/about', '/contact', '/record']
const withoutFooter = ['/login', '/register', '/forgot-password', '/payment']

test.describe('header and footer', () => {
  for (const path of [...withFooter, ...withoutFooter]) {
    test(`LAYOUT-03 LAYOUT-05 LAYOUT-06 LAYOUT-07 the header on ${path} links home, to Sign In and to Sign Up`, async ({
      page,
    }) => {
      await page.goto(path)
      const header = page.getByRole('banner')
      await expect(header).toBeVisible()
      await expect(header.getByRole('link', { name: 'EdgeClub home' })).toHaveAttribute('href', '/')
      await expect(header.getByRole('link', { name: 'Sign In' })).toHaveAttribute('href', '/login')
      await expect(header.getByRole('link', { name: 'Sign Up' })).toHaveAttribute('href', '/register')
    })
  }

  for (const path of withFooter) {
    test(`LAYOUT-08 LAYOUT-10 the footer on ${path} shows the 2024 copyright and the tagline`, async ({
      page,
    }) => {
      await page.goto(path)
      const footer = page.getByRole('contentinfo')
      await expect(footer).toContainText('© 2024 EdgeClub')
      await expect(footer).toContainText(
        'AI-driven sports picks, trading signals and a community that plays to win.',
      )
    })
  }

  for (const path of withoutFooter) {
    test(`LAYOUT-09 there is no footer on ${path}`, async ({ page }) => {
      await page.goto(path)
      await expect(page.getByRole('banner')).toBeVisible()
      await expect(page.getByRole('contentinfo')).toHaveCount(0)
    })
  }

  test('LAYOUT-04 the header stays at the top while the page scrolls', async ({ page }) => {
    await page.goto('/')
    await page.mouse.wheel(0, 2000)
    await expect.poll(() => page.evaluate(() => window.scrollY)).toBeGreaterThan(500)
    const box = await page.getByRole('banner').boundingBox()
    expect(box?.y).toBe(0)
  })

  test('LAYOUT-01 LAYOUT-02 a visitor reaches every public page from the navigation', async ({ page }) => {
    await page.goto('/')
    const nav = page.getByRole('navigation', { name: 'Main' })
    for (const [label, path, heading] of <[string, string, string][]>[
      ['Tips', '/tips', "Today's tips"],
      ['Pricing', '/pricing', 'Choose your membership'],
      ['About', '/about', 'About EdgeClub'],
      ['Contact', '/contact', 'Contact us'],
      ['Home', '/', 'Bet and trade with an AI-driven edge'],
    ]) {
      await nav.getByRole('link', { name: label, exact: true }).click()
      await expect(page).toHaveURL(path)
      await expect(page.getByRole('heading', { level: 1, name: heading })).toBeVisible()
    }
  })

  test.describe('unknown paths', () => {
    test.use({ allowedConsoleErrors: [/status of 404/] })
    test('LAYOUT-11 an unknown path shows Page not found with a link home, and a 404 status', async ({
      page,
    }) => {
      const response = await page.goto('/this/does/not/exist')
      expect(response?.status()).toBe(404)
      await expect(page.getByRole('heading', { name: 'Page not found' })).toBeVisible()
      await expect(page.getByRole('contentinfo')).toBeVisible()
      await page.getByRole('link', { name: 'Back to home' }).click()
      await expect(page).toHaveURL('/')
      await expect(
        page.getByRole('heading', { level: 1, name: 'Bet and trade with an AI-driven edge' }),
      ).toBeVisible()
    })
  })

  test('on a phone the menu button opens the navigation', async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 })
    await page.goto('/')
    await expect(page.getByRole('navigation', { name: 'Main' })).toBeHidden()
    await page.getByRole('button', { name: 'Open menu' }).click()
    await page.getByRole('navigation', { name: 'Mobile' }).getByRole('link', { name: 'About' }).click()
    await expect(page).toHaveURL('/about')
    await expect(page.getByRole('navigation', { name: 'Mobile' })).toHaveCount(0)
  })
})
