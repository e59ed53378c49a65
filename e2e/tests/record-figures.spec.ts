import { accessibilityViolations, expect, test } from '../support/fixtures'
import { admin, signIn, tokenOf } from '../support/members'

test.describe('the record’s figures', () => {
  test('the record shows the bettor’s figures, “too few settled” below the minimum sample, and the commitments', async ({
    page,
    request,
  }) => {
    const headers = { authorization: `Bearer ${await tokenOf(request)}` }
    const published = await request.post('/discord/api/signals', {
      headers,
      data: {
        kind: 'pick',
        sport: 'MLB',
        event: 'Dodgers vs Giants',
        startsAt: new Date(Date.now() + 2_000).toISOString(),
        market: 'moneyline',
        selection: 'Dodgers',
        odds: 2.2,
        stake: 1,
      },
    })
    expect(published.status(), await published.text()).toBe(201)
    const id = ((await published.json()) as { data: { id: string } }).data.id
    await page.waitForTimeout(2_500)
    const settled = await request.post(`/discord/api/signals/${id}/settle`, {
      headers,
      data: { result: 'won', closingOdds: 2.05 },
    })
    expect(settled.status(), await settled.text()).toBe(200)

    await page.goto('/record')
    const picks = page.getByRole('region', { name: 'Sports picks, as a bettor reads them' })
    await expect(picks.getByText('Settled picks')).toBeVisible()
    await expect(picks.getByText(/Ratios appear once 25 picks have settled/)).toBeVisible()
    // The break-even rate is 1 ÷ the average odds, stated beside them.
    await expect(picks.getByText(/break-even win rate \d+\.\d% \(1 ÷ average decimal odds\)/)).toBeVisible()
    await expect(picks.getByText('too few settled').first()).toBeVisible()
    await expect(picks.getByText('Closing-line value')).toBeVisible()
    await expect(
      picks.getByRole('region', { name: 'Sports picks by odds band (decimal odds)' }),
    ).toBeVisible()
    const commitments = page.getByRole('region', { name: 'Commitments', exact: true })
    await expect(commitments.getByText('Commitments made')).toBeVisible()
    await expect(commitments.getByText('Overdue', { exact: true })).toBeVisible()
    await expect(
      page.getByRole('region', { name: 'Trading signals', exact: true }).getByText('Sharpe ratio'),
    ).toBeVisible()
    expect(await accessibilityViolations(page)).toEqual([])
  })

  test('the admin console’s Claims section warns that the landing page’s 78% is not what the record says', async ({
    page,
  }) => {
    await signIn(page, admin)
    await page.goto('/admin?section=claims')
    const warning = page
      .getByRole('alert')
      .filter({ hasText: 'The record does not back what the pages claim' })
    await expect(warning).toBeVisible()
    await expect(warning).toContainText('The pages claim a 78% win rate')
    await expect(page.getByLabel('Win rate', { exact: true })).toHaveValue('78%')
    await expect(page.getByLabel(/Show the record's own win rate/)).toBeVisible()
  })
})
