import type { APIRequestContext, Page } from '@playwright/test'
import { accessibilityViolations, expect, test } from '../support/fixtures'
import { admin, createMember, type Member, signIn, tokenOf } from '../support/members'
import { lockPlansOnSale } from '../support/plans-lock'

/**
 * The owner's revenue levers in the admin console: promo codes, trial days, pausing a
 * member and free days, the offer at cancel, and the overview's figures.
 */
const API = '/discord/api'

async function openAdmin(page: Page, section: string) {
  await signIn(page, admin)
  await page.goto(`/admin?section=${section}`)
  await expect(page.getByRole('navigation', { name: 'Admin sections' })).toBeVisible()
}

async function call<T>(
  request: APIRequestContext,
  token: string,
  method: 'GET' | 'POST' | 'PUT' | 'DELETE',
  path: string,
  data?: unknown,
): Promise<T> {
  const response = await request.fetch(`${API}${path}`, {
    method,
    headers: { authorization: `Bearer ${token}` },
    ...(data === undefined ? {} : { data }),
  })
  expect(response.ok(), `${method} ${path}: ${await response.text()}`).toBe(true)
  return ((await response.json()) as { data: T }).data
}

/** What Stripe.js does in the browser, sent to the emulator with the secret key. */
async function stripe(path: string, form: Record<string, string>) {
  const response = await fetch(`${process.env.E2E_EMULATOR_URL}/v1/${path}`, {
    method: 'POST',
    headers: {
      authorization: `Bearer ${process.env.E2E_STRIPE_SECRET_KEY}`,
      'content-type': 'application/x-www-form-urlencoded',
    },
    body: new URLSearchParams(form),
  })
  expect(response.ok, await response.clone().text()).toBe(true)
  return (await response.json()) as { id: string; status: string }
}

/** A card nobody used before (its own number, so its own fingerprint: a trial is once per card). */
async function freshCard(): Promise<string> {
  const digits = Array.from({ length: 15 }, (_, index) => (index === 0 ? 4 : Math.floor(Math.random() * 10)))
  const sum = digits
    .slice()
    .reverse()
    .reduce((total, digit, index) => {
      const value = index % 2 === 0 ? digit * 2 : digit
      return total + (value > 9 ? value - 9 : value)
    }, 0)
  const method = await stripe('payment_methods', {
    type: 'card',
    'card[number]': `${digits.join('')}${(10 - (sum % 10)) % 10}`,
    'card[exp_month]': '12',
    'card[exp_year]': String(new Date().getFullYear() + 3),
    'card[cvc]': '123',
  })
  return method.id
}

interface Intent {
  paymentIntentId: string
  setupIntentId: string | null
  trialEndsAt: string | null
  amount: number
}

/** A member checks out `planId` by card as the payment screen would; a trial saves a card instead. */
async function checkout(request: APIRequestContext, member: Member, planId: string) {
  const token = await tokenOf(request, member)
  const intent = await call<Intent>(request, token, 'POST', '/payments/create-intent', {
    planId,
    currency: 'USD',
  })
  if (intent.setupIntentId) {
    await stripe(`setup_intents/${intent.setupIntentId}/confirm`, { payment_method: await freshCard() })
    await call(request, token, 'POST', '/payments/confirm', { setupIntentId: intent.setupIntentId })
  } else {
    await stripe(`payment_intents/${intent.paymentIntentId}/confirm`, { payment_method: 'pm_card_visa' })
    const paid = await call<{ status: string }>(request, token, 'POST', '/payments/confirm', {
      paymentIntentId: intent.paymentIntentId,
    })
    expect(paid.status).toBe('completed')
  }
  return intent
}

async function planBySlug(request: APIRequestContext, token: string, slug: string) {
  const { items } = await call<{ items: { id: string; slug: string; name: string }[] }>(
    request,
    token,
    'GET',
    '/admin/plans?includeArchived=false&limit=100',
  )
  return items.find((plan) => plan.slug === slug)
}

async function openMember(page: Page, member: Member) {
  await page.goto('/admin?section=users')
  await page.getByLabel('Search email, name, Discord or plan').fill(member.email)
  await page.getByRole('button', { name: 'Search', exact: true }).click()
  await page.getByRole('link', { name: member.email }).click()
  await expect(
    page.getByRole('heading', { level: 2, name: `${member.firstName} ${member.lastName}` }),
  ).toBeVisible()
}

const day = (iso: string) => new Date(iso).toLocaleDateString('en-US', { dateStyle: 'medium' })

test.describe('admin revenue levers', () => {
  // A duplicate code (409) and a pause of a member without a card plan (400) are refused on purpose.
  test.use({ allowedConsoleErrors: [/status of (400|409)/] })

  test('an admin creates a promo code with the API’s checks, sees it listed, and deactivates it', async ({
    page,
  }) => {
    const code = `E2E${Date.now().toString(36).toUpperCase()}`
    await openAdmin(page, 'promo')
    const form = page.getByRole('form', { name: 'New promo code' })
    await form.getByRole('button', { name: 'Create Code' }).click()
    await expect(form.getByText('A code is 3 to 30 letters, digits, - or _')).toBeVisible()
    await expect(form.getByText('Give a percent off or an amount off')).toBeVisible()
    await expect(form.getByLabel('Code')).toHaveAttribute('aria-invalid', 'true')

    await form.getByLabel('Code').fill(code.toLowerCase())
    await expect(form.getByLabel('Code')).toHaveValue(code)
    await form.getByLabel('Percent off (%)').fill('150')
    await form.getByRole('button', { name: 'Create Code' }).click()
    await expect(form.getByText('Percent off is at most 100')).toBeVisible()
    await form.getByLabel('Percent off (%)').fill('25')
    await form.getByLabel('Applies to').selectOption({ label: 'A number of months' })
    await form.getByLabel('Months').fill('3')
    await form.getByLabel('Who can use it').selectOption({ label: 'New members (never paid)' })
    await form
      .getByRole('group', { name: /Only for these plans/ })
      .getByLabel('Monthly')
      .check()
    await form.getByLabel('Total redemptions (optional)').fill('50')
    await form.getByRole('button', { name: 'Create Code' }).click()
    await expect(
      page.getByText(`Promo code created: ${code} (25% off every payment for 3 months)`),
    ).toBeVisible()

    const row = page.getByRole('row').filter({ has: page.getByRole('rowheader', { name: code }) })
    await expect(row).toContainText('New members (never paid)')
    await expect(row).toContainText('Monthly')
    await expect(row).toContainText('0 of 50')
    await expect(row).toContainText('$0.00')
    await expect(row.getByRole('cell', { name: 'active', exact: true })).toBeVisible()

    // The same code again: the server's refusal, said on the form.
    await form.getByLabel('Code').fill(code)
    await form.getByLabel('Percent off (%)').fill('10')
    await form.getByRole('button', { name: 'Create Code' }).click()
    await expect(form.getByRole('alert')).toContainText('A code with this name exists already')

    await row.getByRole('button', { name: `Deactivate ${code}` }).click()
    await expect(row.getByText(`Deactivate ${code}? Nobody can use it from now on`)).toBeVisible()
    await row.getByRole('button', { name: 'Yes, deactivate' }).click()
    await expect(page.getByText(`Promo code deactivated: ${code}`)).toBeVisible()
    await expect(row.getByRole('cell', { name: 'deactivated', exact: true })).toBeVisible()
    await expect(row.getByRole('button', { name: `Deactivate ${code}` })).toHaveCount(0)
    expect(await accessibilityViolations(page)).toEqual([])
  })

  test('an owner gives a plan trial days: the pricing card shows the trial and a member on it shows "Trial — ends"', async ({
    page,
    request,
  }) => {
    const slug = `trial-${Date.now().toString(36)}`
    await openAdmin(page, 'plans')
    await page.getByRole('button', { name: 'New Plan' }).click()
    await page.getByLabel('Name').fill('Trial Club')
    await page.getByLabel('Slug').fill(slug)
    await page.getByLabel('Price').fill('25')
    await page.getByLabel('Free trial (days)').fill('120')
    await page.getByRole('button', { name: 'Create Plan' }).click()
    await expect(page.getByText('A trial is at most 90 days')).toBeVisible()
    // A lifetime plan has no trial: the field is off.
    await page.getByLabel('Interval', { exact: true }).selectOption('lifetime')
    await expect(page.getByLabel('Free trial (days)')).toBeDisabled()
    await expect(page.getByText('A lifetime plan has no trial')).toBeVisible()
    await page.getByLabel('Interval', { exact: true }).selectOption('month')
    await page.getByLabel('Free trial (days)').fill('7')
    const preview = page.getByRole('region', { name: 'Preview on the pricing page' })
    await expect(preview.getByRole('article')).toContainText('7-day free trial')
    await page.getByLabel('Active (on sale)').uncheck()
    await page.getByRole('button', { name: 'Create Plan' }).click()
    await expect(page.getByText('Plan created: Trial Club')).toBeVisible()
    const row = page.getByRole('listitem').filter({ hasText: slug })
    await expect(row).toContainText('7-day free trial')

    // On sale only while the pricing suite is not counting cards.
    const release = await lockPlansOnSale()
    const adminToken = await tokenOf(request)
    try {
      await row.getByRole('button', { name: 'Activate Trial Club' }).click()
      await expect(row).toContainText('on sale')
      await page.goto('/pricing')
      const card = page.getByRole('article').filter({ hasText: 'Trial Club' })
      await expect(card).toContainText('7-day free trial')
      await expect(card).toContainText('$25.00')

      // A member starts the trial; the console says when it ends.
      const plan = await planBySlug(request, adminToken, slug)
      const member = await createMember(request)
      const intent = await checkout(request, member, plan!.id)
      expect(intent.amount).toBe(0)
      await openMember(page, member)
      const summary = page.getByRole('region', { name: `${member.firstName} ${member.lastName}` })
      await expect(summary).toContainText(`Trial — ends ${day(intent.trialEndsAt!)}`)
    } finally {
      const leftover = await planBySlug(request, adminToken, slug)
      if (leftover)
        await request.delete(`${API}/admin/plans/${leftover.id}`, {
          headers: { authorization: `Bearer ${adminToken}` },
        })
      await release()
    }
  })

  test('an admin adds free days and pauses a card member; the member page shows the new dates', async ({
    page,
    request,
  }) => {
    const adminToken = await tokenOf(request)
    const weekly = await planBySlug(request, adminToken, 'weekly')
    const member = await createMember(request)
    await checkout(request, member, weekly!.id)

    await signIn(page, admin)
    await openMember(page, member)
    const summary = page.getByRole('region', { name: `${member.firstName} ${member.lastName}` })
    const access = summary.getByText(/^Active · Weekly · until /)
    await expect(access).toBeVisible()
    const before = /until (.+)$/.exec((await access.textContent()) ?? '')![1]!

    await page.getByLabel('Free days', { exact: true }).fill('')
    await page.getByRole('button', { name: 'Add free days' }).click()
    await expect(page.getByText('Enter a number of days')).toBeVisible()
    await page.getByLabel('Free days', { exact: true }).fill('7')
    await page.getByRole('button', { name: 'Add free days' }).click()
    const added = page.getByText(/^7 free days added: next charge or end of access /)
    await expect(added).toBeVisible()
    const until = /access (.+)$/.exec((await added.textContent()) ?? '')![1]!
    expect(new Date(until).valueOf() - new Date(before).valueOf()).toBe(7 * 86_400_000)
    await expect(summary.getByText(`Active · Weekly · until ${until}`, { exact: true })).toBeVisible()

    await page.getByLabel('Pause for').selectOption({ label: '2 billing periods' })
    await page.getByRole('button', { name: 'Pause member' }).click()
    await expect(page.getByText('Pause their plan for 2 billing periods?')).toBeVisible()
    await page.getByRole('button', { name: 'Yes, pause' }).click()
    const paused = page.getByText(/^Plan paused: access until .+, resumes /)
    await expect(paused).toBeVisible()
    const resumes = /resumes (.+)$/.exec((await paused.textContent()) ?? '')![1]!
    expect(new Date(resumes).valueOf() - new Date(until).valueOf()).toBe(14 * 86_400_000)
    await expect(summary.getByText(`Pauses ${until} — resumes ${resumes}`)).toBeVisible()
    await expect(page.getByRole('region', { name: 'Subscriptions' })).toContainText(`resumes ${resumes}`)

    // Paused already: the server says so.
    await page.getByRole('button', { name: 'Pause member' }).click()
    await page.getByRole('button', { name: 'Yes, pause' }).click()
    await expect(page.getByRole('alert')).toContainText('Your plan is paused already')

    const history = page.getByRole('region', { name: 'Admin history' })
    await expect(history).toContainText('user.free-days')
    await expect(history).toContainText('user.pause')
    expect(await accessibilityViolations(page)).toEqual([])
  })

  test('pausing a member without a renewing card plan is refused with the reason', async ({
    page,
    request,
  }) => {
    const member = await createMember(request)
    await signIn(page, admin)
    await openMember(page, member)
    await page.getByRole('button', { name: 'Pause member' }).click()
    await page.getByRole('button', { name: 'Yes, pause' }).click()
    await expect(page.getByRole('alert')).toContainText('Only a renewing card plan can be paused')
    // Free days without a card plan: complimentary access.
    await page.getByLabel('Free days', { exact: true }).fill('5')
    await page.getByRole('button', { name: 'Add free days' }).click()
    await expect(page.getByText(/^5 free days added/)).toBeVisible()
    await expect(
      page.getByRole('region', { name: `${member.firstName} ${member.lastName}` }).getByText(/^Active · /),
    ).toBeVisible()
  })

  test('an owner sets the offer at cancel: a retention code and a pause', async ({ page, request }) => {
    const adminToken = await tokenOf(request)
    const previous = await call<{ retentionPromoCodeId: string | null; retentionOffersPause: boolean }>(
      request,
      adminToken,
      'GET',
      '/admin/billing-settings',
    )
    const code = `STAY${Date.now().toString(36).toUpperCase()}`
    await call(request, adminToken, 'POST', '/admin/promo-codes', {
      code,
      percentOff: 50,
      duration: 'once',
      audience: 'anyone',
    })
    try {
      await openAdmin(page, 'billing')
      const form = page.getByRole('form', { name: 'Offer at cancel' })
      await form.getByLabel('Retention code').selectOption({ label: `${code} · 50% off the first payment` })
      await form.getByLabel('Offer a pause of 1–3 billing periods instead of cancelling').check()
      await form.getByRole('button', { name: 'Save Offer' }).click()
      await expect(page.getByText(`Saved: members who cancel are offered ${code} or a pause`)).toBeVisible()

      await page.reload()
      await expect(form.getByLabel('Retention code')).toHaveValue(/.+/)
      await expect(form.getByLabel('Retention code').locator('option:checked')).toHaveText(
        `${code} · 50% off the first payment`,
      )
      await expect(
        form.getByLabel('Offer a pause of 1–3 billing periods instead of cancelling'),
      ).toBeChecked()
      const saved = await call<{ retentionPromoCodeId: string | null; retentionOffersPause: boolean }>(
        request,
        adminToken,
        'GET',
        '/admin/billing-settings',
      )
      expect(saved.retentionOffersPause).toBe(true)
      expect(saved.retentionPromoCodeId).not.toBeNull()
      expect(await accessibilityViolations(page)).toEqual([])
    } finally {
      // The offer is the club's: other suites see the one they set.
      await call(request, adminToken, 'PUT', '/admin/billing-settings', previous)
    }
  })

  test("the overview shows trials, the month's MRR movements, code redemptions and cancel reasons", async ({
    page,
  }) => {
    await openAdmin(page, 'overview')
    await expect(page.getByRole('region', { name: 'Free trials (30 days)' })).toContainText('Trial → paid')
    const movements = page.getByRole('table', { name: /^Monthly recurring revenue gained and lost in / })
    for (const label of [
      'New',
      'Expansion (upgrades)',
      'Contraction (downgrades)',
      'Churned',
      'Reactivated',
      'Net change',
    ])
      await expect(movements.getByRole('rowheader', { name: label, exact: true })).toBeVisible()
    await expect(page.getByRole('region', { name: 'Code redemptions (30 days)' })).toBeVisible()
    await expect(page.getByRole('region', { name: 'Cancellation reasons (30 days)' })).toBeVisible()
    expect(await accessibilityViolations(page)).toEqual([])
  })
})
