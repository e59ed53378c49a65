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
  { path: '/record', title: 'Verified record — EdgeClub', text: 'Check it yourself', nav: 'Record' },
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
      const isScript = (url: string) => /\.m?js$/.test(new URL(url).pathname)
      const scripts: { url: string; body: Promise<string> }[] = []
      browserPage.on('response', (response) => {
        if (isScript(response.url())) scripts.push({ url: response.url(), body: response.text() })
      })
      // The islands script is fetched only after the load event and a frame (public-pages.mjs):
      // on a busy machine the network can be idle for a while before then, so wait for it itself.
      const islands = browserPage.waitForResponse((response) => isScript(response.url()))
      await browserPage.goto(page.path)
      await expect(browserPage.getByText(page.text).first()).toBeVisible()
      await islands
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

  test.describe('before any script runs', () => {
    test.use({ javaScriptEnabled: false })

    test('every public page is readable and its navigation works without JavaScript', async ({ page }) => {
      for (const [index, publicPage] of publicPages.entries()) {
        await page.goto(publicPage.path)
        await expect(page.getByText(publicPage.text).first()).toBeVisible()
        await expect(page.getByRole('contentinfo')).toContainText('© 2024 EdgeClub')
        const next = publicPages[(index + 1) % publicPages.length]!
        const label = next.path === '/' ? 'Home' : (next.nav ?? next.title.split(' — ')[0]!)
        await page
          .getByRole('navigation', { name: 'Main' })
          .getByRole('link', { name: label, exact: true })
          .click()
        await expect(page).toHaveURL(next.path)
        await expect(page.getByText(next.text).first()).toBeVisible()
      }
    })
  })

  test('a button pressed before the page script has arrived still works once it has', async ({ page }) => {
    await page.setViewportSize({ width: 360, height: 740 })
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    await page.route('**/assets/islands-*.js', async (route) => {
      await held
      await route.continue()
    })
    await page.goto('/contact')
    await page.getByRole('button', { name: 'Send Message' }).click()
    await page.getByRole('button', { name: 'Open menu' }).click()
    // Nothing was submitted natively while the script was on its way.
    await expect(page).toHaveURL('/contact')
    release()
    await expect(page.getByText('Please enter your name')).toBeVisible()
    await expect(page.getByRole('navigation', { name: 'Mobile' })).toBeVisible()
  })

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
