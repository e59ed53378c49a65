import type { APIRequestContext, Page, Worker } from '@playwright/test'
import { expect, test } from '../support/fixtures'
import { createMember, signIn, tokenOf } from '../support/members'

/**
 * Notifications end to end: a member turns them on in Settings, the admin publishes a pick, the
 * server's encrypted push reaches the (emulator's) push service, and the dashboard's service worker
 * receives it — handed over through DevTools (ServiceWorker.deliverPushMessage), as the browser's
 * push connection would — and shows the notification.
 */

interface ArrivedPush {
  subscriptionId: string
  payload: string | null
}

test.use({ permissions: ['notifications'] })

test('a member turns notifications on in Settings and the service worker shows the admin’s new pick', async ({
  page,
  request,
  emulatorUrl,
  baseURL,
}) => {
  const member = await createMember(request)
  const token = await tokenOf(request)
  const found = await request.get(`/discord/api/admin/users?search=${encodeURIComponent(member.email)}`, {
    headers: { authorization: `Bearer ${token}` },
  })
  const userId = ((await found.json()) as { data: { items: { id: string }[] } }).data.items[0]!.id
  const granted = await request.post(`/discord/api/admin/users/${userId}/grant`, {
    headers: { authorization: `Bearer ${token}` },
    data: { days: 30 },
  })
  expect(granted.status()).toBe(200)

  // DevTools sees the dashboard's service worker registration (its id is what a push is delivered to).
  const cdp = await page.context().newCDPSession(page)
  const registrations = new Map<string, string>()
  cdp.on('ServiceWorker.workerRegistrationUpdated', ({ registrations: updated }) => {
    for (const registration of updated)
      if (!registration.isDeleted) registrations.set(registration.scopeURL, registration.registrationId)
  })
  // What the worker went through, attached to the report if the notification never shows.
  const workerLog: string[] = []
  cdp.on('ServiceWorker.workerVersionUpdated', ({ versions }) => {
    for (const version of versions)
      workerLog.push(
        `${Date.now()} version ${version.versionId}: ${version.status}, ${version.runningStatus}`,
      )
  })
  cdp.on('ServiceWorker.workerErrorReported', ({ errorMessage }) => {
    workerLog.push(
      `${Date.now()} error: ${errorMessage.errorMessage} (${errorMessage.sourceURL}:${errorMessage.lineNumber})`,
    )
  })
  await cdp.send('ServiceWorker.enable')
  // And what it said (a notification it could not show is reported on its console).
  const listen = (worker: Worker) =>
    worker.on('console', (message) =>
      workerLog.push(`${Date.now()} console.${message.type()}: ${message.text()}`),
    )
  page.context().serviceWorkers().forEach(listen)
  page.context().on('serviceworker', listen)

  await signIn(page, member)
  await page.goto('/dashboard?tab=settings')
  const panel = page.getByRole('region', { name: 'Notifications' })
  await expect(panel.getByText('Notifications are off for this device.')).toBeVisible()
  await panel.getByRole('checkbox', { name: 'NBA' }).check()
  await panel.getByRole('button', { name: 'Turn on notifications' }).click()
  await expect(panel.getByText('Notifications are on for this device.').first()).toBeVisible({
    timeout: 15_000,
  })

  const scope = `${new URL(baseURL!).origin}/dashboard`
  await expect.poll(() => registrations.get(scope) ?? registrations.get(`${scope}/`)).toBeTruthy()
  const registrationId = registrations.get(scope) ?? registrations.get(`${scope}/`)!

  // The admin publishes an NBA pick.
  const published = await request.post('/discord/api/signals', {
    headers: { authorization: `Bearer ${token}` },
    data: {
      kind: 'pick',
      sport: 'NBA',
      league: 'Regular season',
      event: 'Lakers vs Suns',
      startsAt: new Date(Date.now() + 3_600_000).toISOString(),
      market: 'moneyline',
      selection: 'Lakers',
      odds: 2.1,
      stake: 1,
    },
  })
  expect(published.status()).toBe(201)
  const pick = ((await published.json()) as { data: { id: string; commitment: string } }).data

  // The server's push arrives at the push service (which holds this browser's keys and decrypts it).
  let arrived: string | undefined
  await expect
    .poll(
      async () => {
        const response = await fetch(`${emulatorUrl}/_control/push/messages`)
        const { messages } = (await response.json()) as { messages: ArrivedPush[] }
        arrived = messages.find((push) => push.payload?.includes(pick.id))?.payload ?? undefined
        return Boolean(arrived)
      },
      { timeout: 15_000 },
    )
    .toBe(true)
  const payload = JSON.parse(arrived!) as { title: string; body: string; commitment: string; url: string }
  expect(payload.commitment).toBe(pick.commitment)
  expect(payload.url).toContain(`/dashboard?tab=signals&signal=${pick.id}`)

  // Handed to the service worker: it shows the notification.
  workerLog.push(`${Date.now()} push delivered`)
  await cdp.send('ServiceWorker.deliverPushMessage', {
    origin: new URL(baseURL!).origin,
    registrationId,
    data: arrived!,
  })
  try {
    await expect
      .poll(
        () =>
          page.evaluate(async () => {
            const registration = await navigator.serviceWorker.getRegistration()
            const shown = (await registration?.getNotifications()) ?? []
            return shown.map((notification) => ({ title: notification.title, body: notification.body }))
          }),
        { timeout: 10_000 },
      )
      .toContainEqual({ title: payload.title, body: payload.body })
  } catch (error) {
    // What the worker itself holds, next to what the page saw, and all it went through: printed whole
    // (the report shortens an attachment).
    for (const worker of page.context().serviceWorkers())
      workerLog.push(
        `${Date.now()} ${worker.url()}: ${await worker
          .evaluate(async () => {
            // The worker's global scope (this project's DOM types have no ServiceWorkerGlobalScope).
            const sw = self as unknown as { registration: ServiceWorkerRegistration }
            const shown = await sw.registration.getNotifications()
            return `permission ${Notification.permission}, ${shown.length} shown, active ${sw.registration.active?.state}`
          })
          .catch((reason: Error) => `not reachable: ${reason.message}`)}`,
      )
    console.log(`service worker:\n${workerLog.join('\n')}`)
    throw error
  }
  expect(payload.title).toContain('Lakers vs Suns')
})

/** A new member, signed in, on the dashboard's Payment History tab. */
async function openPaymentHistory(page: Page, request: APIRequestContext) {
  await signIn(page, await createMember(request))
  await page.goto('/dashboard?tab=payments')
  await expect(page.getByRole('heading', { name: 'Payment History' })).toBeVisible()
}

test('the dashboard is installable: it links its manifest once its first screen is up, and the manifest opens the dashboard', async ({
  page,
  request,
}) => {
  await openPaymentHistory(page, request)
  const manifest = page.locator('link[rel="manifest"]')
  await expect(manifest).toHaveAttribute('href', '/manifest.webmanifest')
  const answer = await request.get((await manifest.getAttribute('href'))!)
  expect(answer.ok()).toBe(true)
  expect(await answer.json()).toMatchObject({ start_url: '/dashboard', display: 'standalone' })
})

test.describe('offline', () => {
  // Offline, the browser reports each API request it could not send.
  test.use({ allowedConsoleErrors: [/net::ERR_INTERNET_DISCONNECTED/] })

  test('the installed dashboard opens offline from its cached app shell and says it is offline', async ({
    page,
    request,
    context,
  }) => {
    // The worker's install below may take most of the usual 30 s on its own.
    test.slow()
    await openPaymentHistory(page, request)
    // Once the first screen is up the service worker installs, caches the app shell (every script and
    // style of the build, in the background) and takes the page: on a crowded machine that alone
    // took over 15 s.
    await expect
      .poll(() => page.evaluate(() => navigator.serviceWorker.controller !== null), { timeout: 30_000 })
      .toBe(true)

    const offlineWord =
      "You're offline. Your membership, signals and payments load again as soon as you're back online."
    await context.setOffline(true)
    await page.reload()
    await expect(page.getByRole('heading', { name: 'Payment History' })).toBeVisible()
    await expect(page.getByText(offlineWord)).toBeVisible()
    // Another tab's code comes from the shell too.
    await page.getByRole('link', { name: 'Subscription' }).first().click()
    await expect(page.getByRole('heading', { level: 1, name: 'Subscription' })).toBeVisible()
    await expect(page.getByText(offlineWord)).toBeVisible()

    await context.setOffline(false)
    await expect(page.getByText(offlineWord)).toBeHidden()
  })
})

test('public pages carry no manifest and register no service worker', async ({ page }) => {
  const workerScripts: string[] = []
  page.on('request', (request) => {
    if (new URL(request.url()).pathname === '/sw.js') workerScripts.push(request.url())
  })
  await page.goto('/')
  await expect(page.getByText('Bet and trade with an AI-driven edge').first()).toBeVisible()
  await page.waitForLoadState('networkidle')
  expect(await page.locator('link[rel="manifest"]').count()).toBe(0)
  expect(
    await page.evaluate(() => navigator.serviceWorker.getRegistrations().then((all) => all.length)),
  ).toBe(0)
  expect(workerScripts).toEqual([])
})
