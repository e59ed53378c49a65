import fs from 'node:fs/promises'
import { createRequire } from 'node:module'
import { test as base, expect, type Page } from '@playwright/test'

/**
 * Every test fails on an unexpected console error or page error. A test that provokes an error on
 * purpose lists the messages it expects in `allowedConsoleErrors`.
 */
let stripeScript: Promise<string> | undefined
let testNumber = 0
/** A distinct client address per test, so per-IP limits see separate visitors. */
function nextAddress(): string {
  testNumber += 1
  return `10.${process.pid % 250}.${Math.floor(testNumber / 250) % 250}.${testNumber % 250}`
}

export const test = base.extend<{
  allowedConsoleErrors: RegExp[]
  emulatorUrl: string
  // biome-ignore lint/suspicious/noConfusingVoidType: Playwright's type for a fixture that provides no value
  consoleGuard: void
}>({
  allowedConsoleErrors: [[], { option: true }],
  extraHTTPHeaders: async ({}, use) => {
    await use({ 'x-forwarded-for': nextAddress() })
  },
  baseURL: async ({}, use) => {
    await use(process.env.E2E_BASE_URL)
  },
  emulatorUrl: async ({}, use) => {
    await use(process.env.E2E_EMULATOR_URL ?? '')
  },
  // The browser never reaches Stripe from here: Stripe.js's own URL answers with the emulator's stand-in.
  page: async ({ page }, use) => {
    await page.route('https://js.stripe.com/**', async (route) => {
      stripeScript ??= fetch(`${process.env.E2E_EMULATOR_URL}/stripe-js/endive/stripe.js`).then((response) =>
        response.text(),
      )
      await route.fulfill({ status: 200, contentType: 'application/javascript', body: await stripeScript })
    })
    await use(page)
  },
  consoleGuard: [
    async ({ page, allowedConsoleErrors }, use) => {
      const problems: string[] = []
      page.on('console', (message) => {
        if (message.type() !== 'error') return
        const text = message.text()
        if (!allowedConsoleErrors.some((pattern) => pattern.test(text)))
          problems.push(`console.error: ${text}`)
      })
      page.on('pageerror', (error) => problems.push(`page error: ${error.message}`))
      await use(undefined)
      expect(problems, 'the page logged errors').toEqual([])
    },
    { auto: true },
  ],
})

export { expect }

/** Emulator control routes (the same ones the demo documents). */
export async function control(path: string, body?: unknown): Promise<unknown> {
  const response = await fetch(`${process.env.E2E_EMULATOR_URL}${path}`, {
    method: 'POST',
    headers: { 'content-type': 'application/json' },
    body: body === undefined ? undefined : JSON.stringify(body),
  })
  if (!response.ok) throw new Error(`control ${path} answered ${response.status}`)
  return response.json()
}

/**
 * The server answering slowly: the page's requests to `url` wait until `release()` (which also stops
 * holding later ones), to see what the page shows meanwhile. Never released, they never come back.
 */
export async function holdRequests(page: Page, url: string): Promise<{ release(): Promise<void> }> {
  let answer!: () => void
  const held = new Promise<void>((resolve) => {
    answer = resolve
  })
  await page.route(url, async (route) => {
    await held
    await route.continue()
  })
  return {
    release: async () => {
      answer()
      await page.unroute(url)
    },
  }
}

/** Axe-core in the page: the serious and critical violations, as readable lines. */
export async function accessibilityViolations(page: Page): Promise<string[]> {
  const axePath = createRequire(import.meta.url).resolve('axe-core/axe.min.js')
  // Evaluated through the DevTools protocol: the page's CSP (rightly) refuses injected script tags.
  await page.evaluate(await fs.readFile(axePath, 'utf8'))
  const results = await page.evaluate(async () => {
    // biome-ignore lint/suspicious/noExplicitAny: axe is injected into the page at run time
    const axe = (window as any).axe
    return axe.run(document, { resultTypes: ['violations'] })
  })
  return (results.violations as { id: string; impact: string; help: string; nodes: { target: string[] }[] }[])
    .filter((violation) => violation.impact === 'serious' || violation.impact === 'critical')
    .map(
      (violation) =>
        `${violation.impact} ${violation.id}: ${violation.help} (${violation.nodes.map((n) => n.target.join(' ')).join(', ')})`,
    )
}
