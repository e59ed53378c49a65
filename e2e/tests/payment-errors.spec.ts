import type { Page, Route } from '@playwright/test'
import { expect, test } from '../support/fixtures'
import { createMember, type Member, signIn } from '../support/members'

/**
 * How card payments talk to Stripe, and what the member reads when something goes wrong. Failures come
 * from real paths where there is one (a declined test card, the server's rate limit); where only the
 * network can produce a state (Stripe.js not loading, Stripe answering 'processing', the API refusing)
 * the test changes what crosses the network boundary with page.route.
 */

async function fillCard(page: Page, number: string) {
  await page.getByLabel('Card number').fill(number)
  await page.getByLabel('Expiration date').fill('12 / 34')
  await page.getByLabel('Security code').fill('123')
  await page.getByLabel('ZIP').fill('10001')
}

async function tipTab(page: Page, member: Member) {
  await signIn(page, member)
  await page.goto('/dashboard?tab=tip')
  return page.getByRole('region', { name: 'Send a tip' })
}

/** Stripe.js confirming a PaymentIntent (the fake Stripe.js calls the emulator's /v1 API, as Stripe.js calls Stripe's). */
const confirmUrl = (emulatorUrl: string) => `${emulatorUrl}/v1/payment_intents/*/confirm`

/** Passes the real answer of an API call on, with its JSON changed. */
function rewriteJson(change: (body: Record<string, unknown>) => void) {
  return async (route: Route) => {
    const response = await route.fetch()
    const body = await response.json()
    change(body)
    await route.fulfill({ response, json: body })
  }
}

/** Stripe.js refuses a client secret of the wrong shape by throwing: an unexpected failure. */
const breakClientSecret = rewriteJson((body) => {
  ;(body.data as { clientSecret: string }).clientSecret = 'not-a-client-secret'
})

test.describe('paying for a plan', () => {
  test('SUB-03 PAYMENT-17 PAYMENT-18 PAYMENT-19 a plan chosen on the Subscription tab gets an intent; Stripe.js confirms it with the public key, the client secret and the member name', async ({
    page,
    request,
  }) => {
    const member = await createMember(request)
    const config = (await (await request.get('/discord/api/config')).json()).data
    await signIn(page, member)
    const stripeScripts: string[] = []
    page.on('request', (sent) => {
      if (sent.resourceType() === 'script' && sent.url().startsWith('https://js.stripe.com/'))
        stripeScripts.push(sent.url())
    })
    await page.goto('/dashboard?tab=subscription')
    const intentAnswer = page.waitForResponse('**/discord/api/payments/create-intent')
    await page.getByRole('button', { name: 'Subscribe to Weekly' }).click()
    const intent = (await (await intentAnswer).json()).data
    await expect(page).toHaveURL('/payment')
    await expect(page.getByRole('heading', { name: 'Weekly' })).toBeVisible()

    await fillCard(page, '4242 4242 4242 4242')
    const confirmation = page.waitForRequest(
      (sent) => sent.method() === 'POST' && /\/v1\/payment_intents\/[^/]+\/confirm$/.test(sent.url()),
    )
    await page.getByRole('button', { name: 'Pay $14.99' }).click()
    const sent = new URLSearchParams((await confirmation).postData() ?? '')
    expect(stripeScripts).toHaveLength(1)
    expect(config.stripePublishableKey).toMatch(/^pk_/)
    expect(sent.get('key')).toBe(config.stripePublishableKey)
    expect(sent.get('client_secret')).toBe(intent.clientSecret)
    expect(sent.get('payment_method_data[billing_details][name]')).toBe('Jamie Rivers')
    await expect(page.getByText('Payment Successful!')).toBeVisible()
  })

  test('PAYMENT-21 an unexpected failure while paying shows An unexpected error occurred', async ({
    page,
    request,
  }) => {
    await signIn(page, await createMember(request))
    await page.goto('/dashboard?tab=subscription')
    await page.route('**/discord/api/payments/create-intent', breakClientSecret)
    await page.getByRole('button', { name: 'Subscribe to Weekly' }).click()
    await expect(page).toHaveURL('/payment')
    await fillCard(page, '4242 4242 4242 4242')
    await page.getByRole('button', { name: 'Pay $14.99' }).click()
    await expect(page.getByRole('alert')).toHaveText('An unexpected error occurred')
    await expect(page.getByRole('button', { name: 'Pay $14.99' })).toBeEnabled()
  })
})

test.describe('when Stripe.js cannot load', () => {
  test.use({ allowedConsoleErrors: [/net::ERR_FAILED/] })
  test('TIP-17 PAYMENT-20 PAYMENT-08 the tip form and the payment page say so; Back to Pricing leads out', async ({
    page,
    request,
  }) => {
    await page.route('https://js.stripe.com/**', (route) => route.abort('failed'))
    const tab = await tipTab(page, await createMember(request))
    await tab.getByLabel('Amount').fill('5')
    await tab.getByRole('button', { name: 'Continue to Payment' }).click()
    await expect(tab.getByRole('alert')).toHaveText(
      'Stripe has not loaded properly. Please refresh the page.',
    )
    await expect(page.getByLabel('Card number')).toHaveCount(0)

    await page.goto('/dashboard?tab=subscription')
    await page.getByRole('button', { name: 'Subscribe to Weekly' }).click()
    await expect(page).toHaveURL('/payment')
    await expect(page.getByRole('alert')).toHaveText(
      'Stripe has not loaded properly. Please refresh the page.',
    )
    await expect(page.getByRole('button', { name: /^Pay \$/ })).toHaveCount(0)
    await page.getByRole('link', { name: 'Back to Pricing' }).click()
    await expect(page).toHaveURL('/pricing')
    await expect(page.getByRole('button', { name: 'Subscribe to Weekly' })).toBeVisible()
  })
})

test.describe('tip errors', () => {
  test.describe('when the server refuses the tip', () => {
    test.use({ allowedConsoleErrors: [/status of 500/] })
    test('TIP-15 a failed tip intent creation shows Failed to create tip payment intent', async ({
      page,
      request,
    }) => {
      const tab = await tipTab(page, await createMember(request))
      await page.route('**/discord/api/tips/create', (route) =>
        route.fulfill({
          status: 500,
          json: { success: false, error: 'INTERNAL_ERROR', message: 'Something went wrong' },
        }),
      )
      await tab.getByLabel('Amount').fill('5')
      await tab.getByRole('button', { name: 'Continue to Payment' }).click()
      await expect(tab.getByRole('alert')).toHaveText('Failed to create tip payment intent')
      await expect(tab.getByLabel('Amount')).toHaveValue('5')
    })
  })

  test.describe('when Stripe does not take the payment', () => {
    test.use({ allowedConsoleErrors: [/status of 402/] })
    test("TIP-19 TIP-20 a declined card shows Stripe's message or Payment failed; a confirmation still processing shows Payment was not successful", async ({
      page,
      request,
      emulatorUrl,
    }) => {
      const tab = await tipTab(page, await createMember(request))
      await tab.getByLabel('Amount').fill('5')
      await tab.getByRole('button', { name: 'Continue to Payment' }).click()
      await fillCard(page, '4000 0000 0000 0002')
      const send = tab.getByRole('button', { name: 'Send $5.00 Tip' })
      await send.click()
      await expect(tab.getByRole('alert')).toHaveText('Your card was declined.')

      // Stripe declines without a message of its own.
      await page.route(
        confirmUrl(emulatorUrl),
        rewriteJson((body) => {
          delete (body.error as { message?: string }).message
        }),
      )
      await send.click()
      await expect(tab.getByRole('alert')).toHaveText('Payment failed')
      await page.unroute(confirmUrl(emulatorUrl))

      // Stripe answers that the payment is still processing.
      await page.route(
        confirmUrl(emulatorUrl),
        rewriteJson((body) => {
          body.status = 'processing'
        }),
      )
      await page.getByLabel('Card number').fill('4242 4242 4242 4242')
      await send.click()
      await expect(tab.getByRole('alert')).toHaveText('Payment was not successful')
      await expect(tab.getByText('Tip sent successfully!')).toHaveCount(0)
    })
  })

  test('TIP-21 an unexpected failure during payment shows An unexpected error occurred during payment', async ({
    page,
    request,
  }) => {
    const tab = await tipTab(page, await createMember(request))
    await page.route('**/discord/api/tips/create', breakClientSecret)
    await tab.getByLabel('Amount').fill('5')
    await tab.getByRole('button', { name: 'Continue to Payment' }).click()
    await fillCard(page, '4242 4242 4242 4242')
    await tab.getByRole('button', { name: 'Send $5.00 Tip' }).click()
    await expect(tab.getByRole('alert')).toHaveText('An unexpected error occurred during payment')
  })
})

test.describe('forgotten password refused by the server', () => {
  test.use({ allowedConsoleErrors: [/status of 429/] })
  test('FORGOT-06 the server message shows above the form', async ({ page, request }) => {
    const email = `nobody.${Date.now().toString(36)}@example.com`
    // Ten requests an hour from one address are allowed; this visitor has used them up.
    for (let i = 0; i < 10; i++) {
      const answer = await request.post('/discord/api/auth/forgot-password', { data: { email } })
      expect(answer.status()).toBe(200)
    }
    await page.goto('/forgot-password')
    await page.getByLabel('Email').fill(email)
    const refusal = page.waitForResponse('**/discord/api/auth/forgot-password')
    await page.getByRole('button', { name: 'Send Reset Link' }).click()
    const answer = await refusal
    expect(answer.status()).toBe(429)
    const { message } = await answer.json()
    const alert = page.getByRole('alert')
    await expect(alert).toHaveText(message)
    expect(message).toMatch(/^Too many requests/)
    const alertBox = await alert.boundingBox()
    const fieldBox = await page.getByLabel('Email').boundingBox()
    expect(alertBox?.y ?? Number.POSITIVE_INFINITY).toBeLessThan(fieldBox?.y ?? 0)
    await expect(page.getByRole('heading', { name: 'Check Your Email' })).toHaveCount(0)
  })
})
