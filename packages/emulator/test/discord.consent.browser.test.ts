import http from 'node:http'
import type { AddressInfo } from 'node:net'
import type { APIUser, RESTPostOAuth2AccessTokenResult } from 'discord-api-types/v10'
import { type Browser, chromium, type Page } from 'playwright-core'
import { afterAll, beforeAll, beforeEach, describe, expect, it } from 'vitest'
import { type Emulator, startEmulator } from '../src/server'

/**
 * The Discord consent page in a real browser, driven by role and name as a member would: who is
 * signed in, switching to or creating another Discord user, Authorize and Cancel back to the app.
 */

let emulator: Emulator
let browser: Browser
let app: http.Server
let callback: string

beforeAll(async () => {
  emulator = await startEmulator()
  // The app's callback: it only says what arrived.
  app = http.createServer((req, res) => {
    const url = new URL(req.url ?? '/', 'http://app.local')
    res
      .writeHead(200, { 'content-type': 'text/html; charset=utf-8' })
      .end(
        `<!doctype html><html lang="en"><head><title>Callback</title></head><body><main><h1>Back at EdgeClub</h1><p>${url.searchParams.has('code') ? 'Got a code' : `Error: ${url.searchParams.get('error')}`}</p></main></body></html>`,
      )
  })
  await new Promise<void>((resolve) => app.listen(0, '127.0.0.1', resolve))
  callback = `http://127.0.0.1:${(app.address() as AddressInfo).port}/api/discord/callback`
  browser = await chromium.launch({
    executablePath: '/usr/bin/chromium',
    args: [
      '--headless',
      '--no-sandbox',
      '--disable-gpu',
      '--disable-background-networking',
      '--disable-component-update',
      '--disable-sync',
      '--no-first-run',
    ],
  })
}, 30_000)

beforeEach(() => emulator.discord.reset())

afterAll(async () => {
  await browser?.close()
  await new Promise<void>((resolve) => {
    app?.closeAllConnections()
    app?.close(() => resolve())
  })
  await emulator?.close()
})

async function openConsent(page: Page, state: string) {
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: emulator.discord.config.clientId,
    scope: 'identify guilds.join',
    state,
    redirect_uri: callback,
    prompt: 'consent',
  })
  await page.goto(`${emulator.url}/discord/oauth2/authorize?${query}`)
}

const signedInAs = (page: Page) =>
  page.getByRole('region', { name: 'Signed in as' }).getByRole('strong').textContent()

async function userOfCode(code: string): Promise<APIUser> {
  const config = emulator.discord.config
  const token = (await (
    await fetch(`${emulator.url}/discord/api/v10/oauth2/token`, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded' },
      body: new URLSearchParams({
        grant_type: 'authorization_code',
        code,
        redirect_uri: callback,
        client_id: config.clientId,
        client_secret: config.clientSecret,
      }),
    })
  ).json()) as RESTPostOAuth2AccessTokenResult
  const me = await fetch(`${emulator.url}/discord/api/v10/users/@me`, {
    headers: { authorization: `Bearer ${token.access_token}` },
  })
  return (await me.json()) as APIUser
}

describe('Discord consent page', () => {
  it('shows the app, the signed-in user and the scopes; a new user is created and authorizes', async () => {
    const page = await browser.newPage()
    await openConsent(page, 'first-state')
    await expect
      .poll(() => page.getByRole('heading', { level: 1 }).textContent())
      .toBe('EdgeClub wants to access your Discord account')
    expect(await signedInAs(page)).toBe('Jordan')
    const scopes = page.getByRole('region', { name: 'This will allow the developer of EdgeClub to:' })
    expect(await scopes.getByRole('listitem').allTextContents()).toEqual([
      'Access your username, avatar, and banner',
      'Join servers for you',
    ])

    await page.getByRole('textbox', { name: 'New Discord username' }).fill('Not valid!')
    await page.getByRole('button', { name: 'Create user' }).click()
    await expect
      .poll(() => page.getByRole('alert').textContent())
      .toContain('is not a valid Discord username')
    expect(await signedInAs(page)).toBe('Jordan')

    await page.getByRole('textbox', { name: 'New Discord username' }).fill('riley.rivers')
    await page.getByRole('button', { name: 'Create user' }).click()
    await expect.poll(() => signedInAs(page)).toBe('riley.rivers')

    await page.getByRole('button', { name: 'Authorize' }).click()
    await page.waitForURL((url) => url.href.startsWith(callback))
    expect(await page.getByRole('paragraph').textContent()).toBe('Got a code')
    const returned = new URL(page.url())
    expect(returned.searchParams.get('state')).toBe('first-state')
    const user = await userOfCode(returned.searchParams.get('code') ?? '')
    expect(user.username).toBe('riley.rivers')
    await page.close()
  })

  it('switches to another user, cancels, and follows the user a test signs in', async () => {
    const casey = emulator.discord.createUser({ username: 'casey', globalName: 'Casey' })
    const page = await browser.newPage()
    await openConsent(page, 'second-state')
    await page.getByRole('combobox', { name: 'Switch account' }).selectOption({ label: 'Casey (@casey)' })
    await page.getByRole('button', { name: 'Switch' }).click()
    await expect.poll(() => signedInAs(page)).toBe('Casey')

    await page.getByRole('button', { name: 'Cancel' }).click()
    await page.waitForURL((url) => url.href.startsWith(callback))
    expect(Object.fromEntries(new URL(page.url()).searchParams)).toEqual({
      error: 'access_denied',
      error_description: 'The resource owner or authorization server denied the request',
      state: 'second-state',
    })

    // The browser still remembers Casey; the test's choice wins.
    const owner = emulator.discord.users().find((user) => user.username === 'clubowner')
    emulator.discord.signIn(owner?.id ?? '')
    await openConsent(page, 'third-state')
    expect(await signedInAs(page)).toBe('Club Owner')
    await page.getByRole('button', { name: 'Authorize' }).click()
    await page.waitForURL((url) => url.href.startsWith(callback))
    const user = await userOfCode(new URL(page.url()).searchParams.get('code') ?? '')
    expect(user.id).toBe(owner?.id)
    expect(user.id).not.toBe(casey.id)
    await page.close()
  })
})
