import { expect, holdRequests, test } from '../support/fixtures'
import { createMember, mailbox, newMember, signIn } from '../support/members'

test.describe('register', () => {
  test('REGISTER-01 REGISTER-02 REGISTER-03 REGISTER-04 REGISTER-05 REGISTER-06 REGISTER-10 REGISTER-23 shows every field, option, checkbox, hint and benefit', async ({
    page,
  }) => {
    await page.goto('/register')
    for (const label of [
      'First name',
      'Last name',
      'Email',
      'Discord username',
      'Password',
      'Confirm password',
    ]) {
      await expect(page.getByLabel(label, { exact: true })).toBeVisible()
    }
    await expect(page.getByLabel('Primary interest').getByRole('option')).toHaveText([
      'Select your primary interest',
      'Sports Betting',
      'Stock Trading',
      'Cryptocurrency',
      'Fantasy Sports',
      'All Markets',
    ])
    const values = await page
      .getByLabel('Primary interest')
      .locator('option')
      .evaluateAll((options) => options.map((option) => (option as HTMLOptionElement).value))
    expect(values).toEqual([
      '',
      'sports-betting',
      'stock-trading',
      'cryptocurrency',
      'fantasy-sports',
      'all-markets',
    ])
    await expect(page.getByLabel('I agree to the Terms of Service and Privacy Policy')).not.toBeChecked()
    await expect(page.getByLabel('Send me trading insights and market updates via email')).not.toBeChecked()
    await expect(
      page.getByLabel('I confirm I am 18+ years old and legally authorized to trade'),
    ).not.toBeChecked()
    await expect(page.getByText('8+ characters with uppercase, lowercase, number & symbol')).toBeVisible()
    const password = page.getByLabel('Password', { exact: true })
    await password.fill('Secret$1a')
    await expect(password).toHaveAttribute('type', 'password')
    await page.getByRole('button', { name: 'Show password' }).first().click()
    await expect(password).toHaveAttribute('type', 'text')
    await page.getByRole('button', { name: 'Hide password' }).first().click()
    await expect(password).toHaveAttribute('type', 'password')
    await expect(page.getByLabel('Confirm password', { exact: true })).toHaveAttribute('type', 'password')
    const benefits = page.getByRole('complementary', { name: 'Why members join' })
    await expect(benefits).toContainText('78% win rate')
    await expect(benefits).toContainText('Blockchain integration')
    await expect(benefits).toContainText('24/7 support')
    await expect(benefits).toContainText('Mobile-first')
  })

  test('REGISTER-11 REGISTER-12 REGISTER-13 REGISTER-14 REGISTER-16 REGISTER-17 REGISTER-21 REGISTER-22 shows the required messages and clears each when its field is edited', async ({
    page,
  }) => {
    await page.goto('/register')
    await page.getByRole('button', { name: 'Create Account' }).click()
    const messages = [
      'First name is required',
      'Last name is required',
      'Email is required',
      'Discord username is required',
      'Password is required',
      'You must agree to the terms',
      'You must confirm you are 18+ years old',
    ]
    for (const message of messages) await expect(page.getByText(message, { exact: true })).toBeVisible()
    await page.getByLabel('First name').fill('J')
    await expect(page.getByText('First name is required')).toHaveCount(0)
    await expect(page.getByText('Last name is required')).toBeVisible()
    await page.getByLabel('I agree to the Terms of Service and Privacy Policy').check()
    await expect(page.getByText('You must agree to the terms')).toHaveCount(0)
    await expect(page.getByText('You must confirm you are 18+ years old')).toBeVisible()
  })

  test('REGISTER-15 REGISTER-18 REGISTER-19 REGISTER-20 checks the email shape, the password rules and the confirmation', async ({
    page,
  }) => {
    await page.goto('/register')
    await page.getByLabel('Email', { exact: true }).fill('jamie@')
    await page.getByLabel('Password', { exact: true }).fill('Ab1$')
    await page.getByLabel('Confirm password', { exact: true }).fill('Ab1$x')
    await page.getByRole('button', { name: 'Create Account' }).click()
    await expect(page.getByText('Please enter a valid email', { exact: true })).toBeVisible()
    await expect(page.getByText('Password must be at least 8 characters')).toBeVisible()
    await expect(page.getByText('Passwords do not match')).toBeVisible()
    await page.getByLabel('Password', { exact: true }).fill('alllowercase1')
    await page.getByRole('button', { name: 'Create Account' }).click()
    await expect(
      page.getByText('Password must contain uppercase, lowercase, number, and symbol'),
    ).toBeVisible()
  })

  test('REGISTER-08 REGISTER-09 SESSION-02 SESSION-04 SESSION-05 creating an account shows Creating Account..., stores the session and opens the dashboard', async ({
    page,
  }) => {
    const member = newMember()
    await page.goto('/register')
    await page.getByLabel('First name').fill(member.firstName)
    await page.getByLabel('Last name').fill(member.lastName)
    await page.getByLabel('Email', { exact: true }).fill(member.email)
    await page.getByLabel('Discord username').fill(member.discordUsername)
    await page.getByLabel('Password', { exact: true }).fill(member.password)
    await page.getByLabel('Confirm password', { exact: true }).fill(member.password)
    await page.getByLabel('Primary interest').selectOption('sports-betting')
    await page.getByLabel('I agree to the Terms of Service and Privacy Policy').check()
    await page.getByLabel('I confirm I am 18+ years old and legally authorized to trade').check()
    await page.route('**/discord/api/auth/register', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 600))
      await route.continue()
    })
    await page.getByRole('button', { name: 'Create Account' }).click()
    await expect(page.getByRole('button', { name: 'Creating Account...' })).toBeDisabled()
    await expect(page).toHaveURL('/dashboard')
    await expect(page.getByText(`Welcome to EdgeClub, ${member.firstName}!`)).toBeVisible()
    const stored = await page.evaluate(() => ({
      user: JSON.parse(localStorage.getItem('user') ?? 'null'),
      token: localStorage.getItem('token'),
      refreshToken: localStorage.getItem('refreshToken'),
    }))
    expect(stored.user).toMatchObject({
      email: member.email,
      firstName: member.firstName,
      discordUsername: member.discordUsername,
    })
    expect(stored.token).toBeTruthy()
    expect(stored.refreshToken).toBeTruthy()
  })

  test.describe('with an email that is taken', () => {
    test.use({ allowedConsoleErrors: [/status of 409/] })
    test('REGISTER-24 shows the server message above the form', async ({ page, request }) => {
      const member = await createMember(request)
      await page.goto('/register')
      await page.getByLabel('First name').fill('Other')
      await page.getByLabel('Last name').fill('Person')
      await page.getByLabel('Email', { exact: true }).fill(member.email.toUpperCase())
      await page.getByLabel('Discord username').fill('other_person')
      await page.getByLabel('Password', { exact: true }).fill(member.password)
      await page.getByLabel('Confirm password', { exact: true }).fill(member.password)
      await page.getByLabel('I agree to the Terms of Service and Privacy Policy').check()
      await page.getByLabel('I confirm I am 18+ years old and legally authorized to trade').check()
      await page.getByRole('button', { name: 'Create Account' }).click()
      await expect(page.getByRole('alert')).toHaveText(
        'An account with this email already exists. Sign in or reset your password.',
      )
      await expect(page).toHaveURL('/register')
    })
  })

  test('REGISTER-07 an authenticated visitor is sent to the dashboard', async ({ page, request }) => {
    await signIn(page, await createMember(request))
    await page.goto('/register')
    await expect(page).toHaveURL('/dashboard')
  })
})

test.describe('login', () => {
  test('LOGIN-01 LOGIN-02 LOGIN-03 LOGIN-04 shows the fields, the toggle and links, and enables submit only when both fields are filled', async ({
    page,
  }) => {
    await page.goto('/login')
    const submit = page.getByRole('button', { name: 'Sign In to Dashboard' })
    await expect(page.getByLabel('Remember me')).toBeVisible()
    await expect(page.getByRole('link', { name: 'Forgot password?' })).toHaveAttribute(
      'href',
      '/forgot-password',
    )
    await expect(page.getByRole('link', { name: 'Create an account' })).toHaveAttribute('href', '/register')
    await expect(submit).toBeDisabled()
    await page.getByLabel('Email').fill('someone@example.com')
    await expect(submit).toBeDisabled()
    await page.getByLabel('Password', { exact: true }).fill('whatever')
    await expect(submit).toBeEnabled()
    await page.getByLabel('Email').fill('')
    await expect(submit).toBeDisabled()
    await page.getByRole('button', { name: 'Show password' }).click()
    await expect(page.getByLabel('Password', { exact: true })).toHaveAttribute('type', 'text')
  })

  test('LOGIN-05 LOGIN-06 LOGIN-08 LOGIN-09 LOGIN-10 DASH-14 DASH-15 signing in with remember me welcomes the member for 5 seconds', async ({
    page,
    request,
  }) => {
    const member = await createMember(request)
    await page.goto('/pricing')
    await page.goto('/login')
    await page.getByLabel('Email').fill(member.email)
    await page.getByLabel('Password', { exact: true }).fill(member.password)
    await page.getByLabel('Remember me').check()
    await page.route('**/discord/api/auth/login', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 600))
      await route.continue()
    })
    await page.getByRole('button', { name: 'Sign In to Dashboard' }).click()
    await expect(page.getByRole('button', { name: 'Signing In...' })).toBeDisabled()
    await expect(page).toHaveURL('/dashboard')
    const welcome = page.getByText(`Welcome back, ${member.firstName}!`)
    await expect(welcome).toBeVisible()
    expect(await page.evaluate(() => localStorage.getItem('rememberMe'))).toBe('true')
    // Replaced history: Back leaves the dashboard for the page before /login.
    await expect(welcome).toBeHidden({ timeout: 7_000 })
    expect(await page.evaluate(() => window.history.state?.usr ?? null)).toBeNull()
    await page.goBack()
    await expect(page).toHaveURL('/pricing')
  })

  test.describe('with a wrong password', () => {
    test.use({ allowedConsoleErrors: [/status of 401/] })
    test('LOGIN-11 LOGIN-10 shows the server message above the form; unchecked remember me removes the flag', async ({
      page,
      request,
    }) => {
      const member = await createMember(request)
      await page.goto('/login')
      await page.evaluate(() => localStorage.setItem('rememberMe', 'true'))
      await page.reload()
      await expect(page.getByLabel('Remember me')).toBeChecked()
      await page.getByLabel('Email').fill(member.email)
      await page.getByLabel('Password', { exact: true }).fill('Wrong$pass1')
      await page.getByRole('button', { name: 'Sign In to Dashboard' }).click()
      await expect(page.getByRole('alert')).toHaveText('Invalid email or password')
      await page.getByLabel('Remember me').uncheck()
      await page.getByLabel('Password', { exact: true }).fill(member.password)
      await page.getByRole('button', { name: 'Sign In to Dashboard' }).click()
      await expect(page).toHaveURL('/dashboard')
      expect(await page.evaluate(() => localStorage.getItem('rememberMe'))).toBeNull()
    })
  })

  test('LOGIN-07 an authenticated visitor is sent to the dashboard', async ({ page, request }) => {
    await signIn(page, await createMember(request))
    await page.goto('/login')
    await expect(page).toHaveURL('/dashboard')
  })
})

test.describe('sessions', () => {
  test('DASH-12 SESSION-06 Sign Out shows Signing Out..., clears the session and ends on /login', async ({
    page,
    request,
  }) => {
    await signIn(page, await createMember(request))
    await page.route('**/discord/api/auth/logout', async (route) => {
      await new Promise((resolve) => setTimeout(resolve, 500))
      await route.continue()
    })
    await page.getByRole('button', { name: 'Sign Out' }).click()
    await expect(page.getByRole('button', { name: 'Signing Out...' })).toBeVisible()
    await expect(page).toHaveURL('/login')
    const stored = await page.evaluate(() => [
      localStorage.getItem('user'),
      localStorage.getItem('token'),
      localStorage.getItem('refreshToken'),
    ])
    expect(stored).toEqual([null, null, null])
  })

  test.describe('when the server cannot sign out', () => {
    test.use({ allowedConsoleErrors: [/status of 500/] })
    test('DASH-13 sign out still ends on /login', async ({ page, request }) => {
      await signIn(page, await createMember(request))
      await page.route('**/discord/api/auth/logout', (route) =>
        route.fulfill({ status: 500, json: { success: false, message: 'boom' } }),
      )
      await page.getByRole('button', { name: 'Sign Out' }).click()
      await expect(page).toHaveURL('/login')
      expect(await page.evaluate(() => localStorage.getItem('token'))).toBeNull()
    })
  })

  test('DASH-01 SESSION-11 the dashboard sends a visitor to /login, replacing history', async ({ page }) => {
    await page.goto('/about')
    await page.goto('/dashboard')
    await expect(page).toHaveURL('/login')
    await page.goBack()
    await expect(page).toHaveURL('/about')
  })

  test('DASH-02 SESSION-07 shows Verifying authentication... while the stored session is checked', async ({
    page,
    request,
  }) => {
    await signIn(page, await createMember(request))
    // The server's answer is held until the check has been seen: a fixed delay shorter than the
    // page's own load lets the answer arrive before the first screen, which then needs no check.
    const check = await holdRequests(page, '**/discord/api/auth/profile')
    await page.reload()
    await expect(page.getByText('Verifying authentication...')).toBeVisible()
    await check.release()
    await expect(page.getByText('Welcome to your trading dashboard')).toBeVisible()
  })

  test('SESSION-08 a stored user that cannot be parsed logs the session out', async ({ page, request }) => {
    await signIn(page, await createMember(request))
    await page.evaluate(() => localStorage.setItem('user', '{not json'))
    await page.goto('/dashboard')
    await expect(page).toHaveURL('/login')
    expect(
      await page.evaluate(() => [localStorage.getItem('token'), localStorage.getItem('refreshToken')]),
    ).toEqual([null, null])
  })

  test.describe('with an expired access token', () => {
    test.use({ allowedConsoleErrors: [/status of 401/] })
    test('SESSION-09 refreshes it once and carries on, storing the new tokens', async ({ page, request }) => {
      await signIn(page, await createMember(request))
      const before = await page.evaluate(() => localStorage.getItem('refreshToken'))
      await page.evaluate(() => localStorage.setItem('token', 'expired.access.token'))
      await page.reload()
      await expect(page.getByText('Welcome to your trading dashboard')).toBeVisible()
      const after = await page.evaluate(() => [
        localStorage.getItem('token'),
        localStorage.getItem('refreshToken'),
      ])
      expect(after[0]).not.toBe('expired.access.token')
      expect(after[1]).not.toBe(before)
    })

    test('SESSION-10 logs out when the refresh fails', async ({ page, request }) => {
      await signIn(page, await createMember(request))
      await page.evaluate(() => {
        localStorage.setItem('token', 'expired.access.token')
        localStorage.setItem('refreshToken', 'not-a-real-refresh-token')
      })
      await page.reload()
      await expect(page).toHaveURL('/login')
      expect(await page.evaluate(() => localStorage.getItem('user'))).toBeNull()
    })
  })
})

test.describe('forgotten password', () => {
  test('FORGOT-07 FORGOT-08 checks the email field', async ({ page }) => {
    await page.goto('/forgot-password')
    await page.getByRole('button', { name: 'Send Reset Link' }).click()
    await expect(page.getByText('Email is required')).toBeVisible()
    await page.getByLabel('Email').fill('nope')
    await expect(page.getByText('Email is required')).toHaveCount(0)
    await page.getByRole('button', { name: 'Send Reset Link' }).click()
    await expect(page.getByText('Please enter a valid email address')).toBeVisible()
  })

  test('FORGOT-01 FORGOT-02 FORGOT-03 FORGOT-04 FORGOT-05 API-13 the emailed link resets the password and the new one signs in', async ({
    page,
    request,
  }) => {
    const member = await createMember(request)
    await page.goto('/forgot-password')
    await page.getByLabel('Email').fill(member.email)
    await page.getByRole('button', { name: 'Send Reset Link' }).click()
    await expect(page.getByRole('heading', { name: 'Check Your Email' })).toBeVisible()
    await expect(page.getByText(member.email)).toBeVisible()
    await expect(
      page.getByText("If an account with this email exists, you'll receive a password reset link shortly."),
    ).toBeVisible()
    await expect(page.getByRole('link', { name: 'Back to Sign In' })).toHaveAttribute('href', '/login')
    await page.getByRole('button', { name: 'Send Another Email' }).click()
    await expect(page.getByLabel('Email')).toBeVisible()

    let link = ''
    await expect(async () => {
      const mails = (await mailbox(member.email)).filter((mail) => mail.subject.startsWith('Reset your'))
      link = mails.at(-1)?.links.find((url) => url.includes('/reset-password?token=')) ?? ''
      expect(link).not.toBe('')
    }).toPass({ timeout: 15_000 })
    expect(link.startsWith(String(process.env.E2E_BASE_URL))).toBe(true)
    await page.goto(link)
    await page.getByLabel('New password', { exact: true }).fill('Brand$New2026')
    await page.getByLabel('Confirm new password').fill('Brand$New2026')
    await page.getByRole('button', { name: 'Set New Password' }).click()
    await expect(page).toHaveURL('/login')
    await expect(
      page.getByText('Your password has been reset. Please sign in with your new password.'),
    ).toBeVisible()
    await signIn(page, { ...member, password: 'Brand$New2026' })
  })

  test.describe('with a used link', () => {
    test.use({ allowedConsoleErrors: [/status of 400/] })
    test('an expired or used link says so and offers a new email', async ({ page }) => {
      await page.goto('/reset-password?token=used-or-made-up-token')
      await page.getByLabel('New password', { exact: true }).fill('Brand$New2026')
      await page.getByLabel('Confirm new password').fill('Brand$New2026')
      await page.getByRole('button', { name: 'Set New Password' }).click()
      await expect(page.getByRole('alert')).toHaveText(
        'This reset link has expired or has already been used. Please request a new one.',
      )
      await page.getByRole('link', { name: 'Send me a new reset link' }).click()
      await expect(page).toHaveURL('/forgot-password')
    })
  })
})

test.describe('dashboard frame', () => {
  test('DASH-03 DASH-04 DASH-05 DASH-09 DASH-10 DASH-11 at 1280 px the sidebar is open with its tabs (Signals after Overview) and the member footer', async ({
    page,
    request,
  }) => {
    const member = await createMember(request)
    await signIn(page, member)
    const sidebar = page.getByRole('complementary', { name: 'Dashboard' })
    await expect(sidebar).toBeVisible()
    await expect(sidebar.getByRole('navigation').getByRole('link')).toHaveText([
      'Overview',
      'Signals',
      'Subscription',
      'Payment History',
      'Send Tip',
      'Community',
      'Settings',
    ])
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Overview')
    await sidebar.getByRole('link', { name: 'Settings' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Settings')
    await expect(page.getByText('Welcome to your trading dashboard')).toBeVisible()
    await expect(sidebar).toBeVisible()
    await expect(sidebar).toContainText('JR')
    await expect(sidebar).toContainText('Jamie Rivers')
    await expect(sidebar).toContainText('Member')
    await expect(sidebar).not.toContainText('Premium Member')
    await expect(page.getByRole('banner')).toHaveCount(0)
  })

  test('DASH-06 DASH-07 DASH-08 at 390 px it starts closed, collapses after a tab is chosen, and a manual toggle is kept for the session', async ({
    page,
    request,
  }) => {
    await page.setViewportSize({ width: 390, height: 844 })
    await signIn(page, await createMember(request))
    const sidebar = page.getByRole('complementary', { name: 'Dashboard' })
    await expect(sidebar).toBeHidden()
    await page.getByRole('button', { name: 'Open sidebar' }).click()
    await expect(sidebar).toBeVisible()
    expect(await page.evaluate(() => sessionStorage.getItem('sidebarToggled'))).toBe('true')
    await sidebar.getByRole('link', { name: 'Settings' }).click()
    await expect(page.getByRole('heading', { level: 1 })).toHaveText('Settings')
    await expect(sidebar).toBeHidden()
    await page.setViewportSize({ width: 1280, height: 800 })
    await page.getByRole('button', { name: 'Open sidebar' }).click()
    await page.getByRole('button', { name: 'Close sidebar' }).click()
    await page.reload()
    await expect(page.getByText('Welcome to your trading dashboard')).toBeVisible()
    await expect(sidebar).toBeHidden()
  })

  test('settings: a member renames themself and changes their password', async ({ page, request }) => {
    const member = await createMember(request)
    await signIn(page, member)
    await page.goto('/dashboard?tab=settings')
    const profile = page.getByRole('region', { name: 'Profile' })
    await profile.getByLabel('First name').fill('Jo')
    await profile.getByRole('button', { name: 'Save Profile' }).click()
    await expect(profile.getByText('Your profile has been saved.')).toBeVisible()
    await expect(page.getByRole('complementary', { name: 'Dashboard' })).toContainText('Jo Rivers')
    const password = page.getByRole('region', { name: 'Password' })
    await password.getByLabel('Current password').fill(member.password)
    await password.getByLabel('New password', { exact: true }).fill('Another$Win9')
    await password.getByLabel('Confirm new password').fill('Another$Win9')
    await password.getByRole('button', { name: 'Change Password' }).click()
    await expect(password.getByText('Your password has been changed.')).toBeVisible()
    await page.getByRole('button', { name: 'Sign Out', exact: true }).click()
    await signIn(page, { ...member, password: 'Another$Win9' })
  })
})
