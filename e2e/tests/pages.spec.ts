import { expect, test } from '../support/fixtures'

test.describe('about page', () => {
  test('ABOUT-01 ABOUT-02 ABOUT-03 ABOUT-04 shows mission, vision, three reasons and a team of two', async ({
    page,
  }) => {
    await page.goto('/about')
    await expect(page.getByRole('heading', { name: 'Our mission' })).toBeVisible()
    await expect(page.getByRole('heading', { name: 'Our vision' })).toBeVisible()
    const reasons = page
      .getByRole('region', { name: 'Why choose EdgeClub' })
      .getByRole('heading', { level: 3 })
    await expect(reasons).toHaveText([
      'Proven track record',
      'AI analysis',
      'Security on a blockchain network',
    ])
    await expect(
      page.getByRole('region', { name: 'The team' }).getByRole('heading', { level: 3 }),
    ).toHaveCount(2)
  })
})

test.describe('tips page', () => {
  test('TIPS-01 TIPS-02 TIPS-03 TIPS-04 TIPS-05 TIPS-07 shows a featured pick, daily picks with win rates, strategy and live updates', async ({
    page,
  }) => {
    await page.goto('/tips')
    await expect(page.getByText('Featured pick · NBA')).toBeVisible()
    const picks = page.getByRole('table')
    await expect(picks.getByRole('columnheader', { name: 'Win rate' })).toBeVisible()
    await expect(picks.getByRole('row')).toHaveCount(6)
    await expect(picks).toContainText('76%')
    const strategy = page.getByRole('region', { name: 'Strategy tips' })
    await expect(strategy).toContainText('Stake 2-5% of your bankroll per wager')
    await expect(strategy.getByRole('heading', { level: 3 })).toHaveText([
      'Bankroll management',
      'Line shopping',
      'Fade the public',
    ])
    await expect(page.getByRole('heading', { name: 'Live updates' })).toBeVisible()
    await expect(page.getByText('Sample picks for illustration')).toBeVisible()
  })

  test('TIPS-06 Get Premium Tips leads to register', async ({ page }) => {
    await page.goto('/tips')
    await page.getByRole('link', { name: 'Get Premium Tips' }).click()
    await expect(page).toHaveURL('/register')
  })
})

test.describe('contact page', () => {
  test('CONTACT-01 CONTACT-02 CONTACT-05 CONTACT-06 CONTACT-07 CONTACT-08 CONTACT-09 shows the form, the ways to reach us and four FAQs', async ({
    page,
  }) => {
    await page.goto('/contact')
    await expect(page.getByLabel('Name', { exact: true })).toBeVisible()
    await expect(page.getByLabel('Email', { exact: true })).toBeVisible()
    await expect(page.getByLabel('Message', { exact: true })).toBeVisible()
    await expect(page.getByLabel('Subject').getByRole('option')).toHaveText([
      'General Inquiry',
      'Technical Support',
      'Billing Question',
      'Partnership',
      'Other',
    ])
    await expect(page.getByRole('link', { name: 'support@edgeclub.io' })).toHaveAttribute(
      'href',
      'mailto:support@edgeclub.io',
    )
    await expect(page.getByText('Live chat')).toBeVisible()
    await expect(page.getByText('Available 24/7 from your dashboard')).toBeVisible()
    await expect(page.getByText('Community chat')).toBeVisible()
    await expect(page.getByText('24/7, Monday to Sunday, every day of the year')).toBeVisible()
    const faqs = page.locator('details')
    await expect(faqs).toHaveCount(4)
    await faqs.first().getByText('How do I get the picks and signals?').click()
    await expect(faqs.first()).toContainText('In your dashboard and in the private Discord')
  })

  test('keeps what a visitor typed and pressed before the page script arrived', async ({ page }) => {
    let release: () => void = () => {}
    const held = new Promise<void>((resolve) => {
      release = resolve
    })
    await page.route('**/assets/islands-*.js', async (route) => {
      await held
      await route.continue()
    })
    await page.goto('/contact')
    await page.getByLabel('Name', { exact: true }).fill('Ann Punter')
    await page.getByLabel('Email', { exact: true }).fill('ann@example.com')
    await page.getByLabel('Subject').selectOption({ label: 'Partnership' })
    await page.getByLabel('Message', { exact: true }).fill('Do you work with tipster networks?')
    await page.getByRole('button', { name: 'Send Message' }).click()
    release()
    await expect(page.getByRole('status').filter({ hasText: 'Your message has been sent' })).toBeVisible()
    await expect(page.getByLabel('Name', { exact: true })).toHaveValue('')
  })

  test('checks the fields, then sends the message and confirms it', async ({ page }) => {
    await page.goto('/contact')
    await page.getByRole('button', { name: 'Send Message' }).click()
    await expect(page.getByText('Please enter your name')).toBeVisible()
    await expect(page.getByText('Please enter a valid email address')).toBeVisible()
    await expect(page.getByText('Please enter a message')).toBeVisible()
    await page.getByLabel('Name', { exact: true }).fill('Ann Punter')
    await expect(page.getByText('Please enter your name')).toHaveCount(0)
    await page.getByLabel('Email', { exact: true }).fill('ann@example.com')
    await page.getByLabel('Subject').selectOption({ label: 'Billing Question' })
    await page.getByLabel('Message', { exact: true }).fill('Can I switch from monthly to yearly?')
    await page.getByRole('button', { name: 'Send Message' }).click()
    await expect(page.getByRole('status').filter({ hasText: 'Your message has been sent' })).toBeVisible()
    await expect(page.getByLabel('Name', { exact: true })).toHaveValue('')
  })
})
