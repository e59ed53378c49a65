import { accessibilityViolations, expect, test } from '../support/fixtures'

const publicPages = [
  {
    path: '/',
    title: 'EdgeClub — AI sports picks and trading signals',
    text: 'Bet and trade with an AI-driven edge',
  },
  { path: '/about', title: 'About — EdgeClub', text: 'Our mission' },
  { path: '/tips', title: 'Tips — EdgeClub', text: 'Featured pick' },
  { path: '/pricing', title: 'Pricing — EdgeClub', text: 'Choose your membership' },
  { path: '/contact', title: 'Contact — EdgeClub', text: 'Send us a message' },
  { path: '/record', title: 'Verified record — EdgeClub', text: 'Check it yourself' },
]

/** What only zod's code contains (its error class, its internal schema fields). */
const ZOD_CODE = /\b_zod\b|ZodError|\$ZodType/

test.describe('page quality', () => {
  for (const page of publicPages) {
    test(`${page.path} is prerendered HTML with its own title, description and Open Graph tags`, async ({
      request,
    }) => {
      const response = await request.get(page.path)
      expect(response.status()).toBe(200)
      const html = await response.text()
      expect(html).toContain(page.text)
      expect(html).toContain(`<title>${page.title}</title>`)
      expect(html).toMatch(/<meta name="description" content="[^"]{40,}"/)
      expect(html).toContain(`<meta property="og:title" content="${page.title}"`)
      expect(html).toMatch(/<meta property="og:description" content="[^"]+"/)
    })

    test(`${page.path} has no serious or critical accessibility violations`, async ({
      page: browserPage,
    }) => {
      await browserPage.goto(page.path)
      await expect(browserPage.getByText(page.text).first()).toBeVisible()
      expect(await accessibilityViolations(browserPage)).toEqual([])
    })

    test(`${page.path} loads no validation library: zod stays with the member and admin screens`, async ({
      page: browserPage,
    }) => {
      const scripts: { url: string; body: Promise<string> }[] = []
      browserPage.on('response', (response) => {
        if (/\.m?js$/.test(new URL(response.url()).pathname))
          scripts.push({ url: response.url(), body: response.text() })
      })
      await browserPage.goto(page.path)
      await expect(browserPage.getByText(page.text).first()).toBeVisible()
      await browserPage.waitForLoadState('networkidle')
      expect(scripts.length).toBeGreaterThan(0)
      const withZod: string[] = []
      for (const script of scripts) if (ZOD_CODE.test(await script.body)) withZod.push(script.url)
      expect(withZod).toEqual([])
    })

    test(`${page.path} fits a 360 px wide phone without sideways scrolling`, async ({
      page: browserPage,
    }) => {
      await browserPage.setViewportSize({ width: 360, height: 740 })
      await browserPage.goto(page.path)
      await expect(browserPage.getByText(page.text).first()).toBeVisible()
      const overflow = await browserPage.evaluate(
        () => document.documentElement.scrollWidth - window.innerWidth,
      )
      expect(overflow).toBeLessThanOrEqual(0)
    })
  }

  test('the keyboard reaches a skip link first, with a visible focus ring', async ({ page }) => {
    await page.goto('/')
    await page.keyboard.press('Tab')
    const skip = page.getByRole('link', { name: 'Skip to content' })
    await expect(skip).toBeFocused()
    await expect(skip).toBeVisible()
    await page.keyboard.press('Tab')
    const outline = await page.evaluate(
      () => getComputedStyle(document.activeElement as Element).outlineStyle,
    )
    expect(outline).not.toBe('none')
  })

  test('robots.txt and sitemap.xml are served', async ({ request }) => {
    expect(await (await request.get('/robots.txt')).text()).toContain('Sitemap:')
    expect(await (await request.get('/sitemap.xml')).text()).toContain('/pricing</loc>')
  })
})
