import type { APIRequestContext, Page } from '@playwright/test'
import { expect } from './fixtures'

let counter = 0

export interface Member {
  firstName: string
  lastName: string
  email: string
  discordUsername: string
  password: string
}

/** The admin the server under test was started with (global-setup's ADMIN_EMAIL and ADMIN_PASSWORD). */
export const admin: Member = {
  firstName: 'Admin',
  lastName: '',
  email: String(process.env.E2E_ADMIN_EMAIL),
  discordUsername: '',
  password: String(process.env.E2E_ADMIN_PASSWORD),
}

/** Signs in through the API (a script's way, not a person's) and answers the access token. */
export async function tokenOf(
  request: APIRequestContext,
  who: Pick<Member, 'email' | 'password'> = admin,
): Promise<string> {
  const login = await request.post('/discord/api/auth/login', {
    data: { email: who.email, password: who.password },
  })
  expect(login.ok(), await login.text()).toBe(true)
  return ((await login.json()) as { data: { tokens: { accessToken: string } } }).data.tokens.accessToken
}

export function newMember(): Member {
  counter += 1
  const id = `${Date.now().toString(36)}${process.pid}${counter}`
  return {
    firstName: 'Jamie',
    lastName: 'Rivers',
    email: `jamie.${id}@example.com`,
    discordUsername: `jamie_${id}`,
    password: 'Sharp$h00ter',
  }
}

/** Creates an account through the API (what the register page does), fast. */
export async function createMember(request: APIRequestContext, member = newMember()): Promise<Member> {
  const response = await request.post('/discord/api/auth/register', {
    data: { ...member, agreeToTerms: true, ageConfirmation: true },
  })
  expect(response.status(), await response.text()).toBe(201)
  return member
}

/** Signs in through the login page, as a person would. */
export async function signIn(page: Page, member: Member): Promise<void> {
  await page.goto('/login')
  await page.getByLabel('Email').fill(member.email)
  await page.getByLabel('Password', { exact: true }).fill(member.password)
  await page.getByRole('button', { name: 'Sign In to Dashboard' }).click()
  await expect(page).toHaveURL(/\/dashboard/)
  await expect(page.getByText('Welcome to your trading dashboard')).toBeVisible()
}

/** The emails the emulator's SMTP sink received for an address, oldest first. */
export async function mailbox(to: string): Promise<{ subject: string; text: string; links: string[] }[]> {
  const response = await fetch(`${process.env.E2E_EMULATOR_URL}/_control/mail?to=${encodeURIComponent(to)}`)
  return ((await response.json()) as { messages: { subject: string; text: string; links: string[] }[] })
    .messages
}
