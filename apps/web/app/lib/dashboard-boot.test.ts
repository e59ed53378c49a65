import fs from 'node:fs'
import path from 'node:path'
import vm from 'node:vm'
import { API_BASE, paths } from '@edgeclub/shared'
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest'
import { tabFrom } from '../features/dashboard/tabs'
import { fetchSignalPage } from '../features/signals/signals-api'
import { FALLBACK_TAB, SESSION_CHECK, TAB_MODULES, TAB_REQUESTS } from '../routes/dashboard-tab-preload'
import { apiRequest } from './api-client'
import { type DashboardBoot, type DashboardBootConfig, dashboardBootScript } from './dashboard-boot'
import { fetchPaymentHistory } from './payment-history-api'
import { fetchActivePlans } from './plans-api'
import { session } from './session-store'
import { fetchSubscriptionStatus } from './subscription-status-api'

/**
 * The dashboard page's boot script (run as the page is parsed, before the app's code) and the API
 * client taking its answers. The script is run as the page runs it, from its text, in a context with
 * the browser objects it touches.
 */

const config: DashboardBootConfig = {
  path: paths.dashboard,
  keys: { token: 'token', user: 'user' },
  api: API_BASE,
  route: ['/assets/dashboard-1.js'],
  tabs: { overview: ['/assets/overview-1.js'], subscription: ['/assets/subscription-1.js'], community: [] },
  requests: [{ path: '/auth/profile', auth: true }],
  tabRequests: {
    community: [{ path: '/plans', auth: false }],
    subscription: [
      { path: '/subscriptions/status', auth: true },
      { path: '/plans', auth: false },
    ],
  },
  renamed: { discord: 'community' },
  fallbackTab: 'overview',
}

interface Page {
  preloaded: string[]
  asked: { url: string; headers: Record<string, string>; cache?: string }[]
  window: { __dashboardBoot?: DashboardBoot }
}

function openPage(url: string, stored: Record<string, string>): Page {
  const page: Page = { preloaded: [], asked: [], window: {} }
  const address = new URL(url, 'https://club.example')
  const tasks: (() => void)[] = []
  vm.runInNewContext(dashboardBootScript(config), {
    setTimeout: (run: (...args: unknown[]) => void, _delay: number, ...args: unknown[]) =>
      tasks.push(() => run(...args)),
    location: { pathname: address.pathname, search: address.search },
    localStorage: { getItem: (key: string) => stored[key] ?? null },
    URLSearchParams,
    document: {
      createElement: () => ({}),
      head: {
        append: (link: { rel: string; href: string }) => page.preloaded.push(`${link.rel} ${link.href}`),
      },
    },
    fetch: (target: string, init: { headers: Record<string, string>; cache?: string }) => {
      page.asked.push({ url: target, headers: init.headers, ...(init.cache ? { cache: init.cache } : {}) })
      return Promise.resolve(new Response('{}'))
    },
    window: page.window,
  })
  // The script only schedules its work: nothing happens while the parser's task runs.
  expect(page.asked).toEqual([])
  for (const task of tasks.splice(0)) task()
  return page
}

const signedIn = { token: 'access-1', user: '{"email":"ann@example.com"}' }

describe('the dashboard boot script', () => {
  it("preloads the route's and the open tab's code and asks for the session check and the tab's data", () => {
    const page = openPage('/dashboard?tab=subscription', signedIn)
    expect(page.preloaded).toEqual([
      'modulepreload /assets/dashboard-1.js',
      'modulepreload /assets/subscription-1.js',
    ])
    expect(page.asked).toEqual([
      {
        url: `${API_BASE}/auth/profile`,
        headers: { accept: 'application/json', authorization: 'Bearer access-1' },
      },
      {
        url: `${API_BASE}/subscriptions/status`,
        headers: { accept: 'application/json', authorization: 'Bearer access-1' },
      },
      { url: `${API_BASE}/plans`, headers: { accept: 'application/json' } },
    ])
    expect(page.window.__dashboardBoot?.token).toBe('access-1')
    expect(Object.keys(page.window.__dashboardBoot?.responses ?? {})).toEqual([
      '/auth/profile',
      '/subscriptions/status',
      '/plans',
    ])
  })

  it('opens the overview without a tab or with an unknown one, and a renamed tab under its new name', () => {
    expect(openPage('/dashboard', signedIn).preloaded).toContain('modulepreload /assets/overview-1.js')
    expect(openPage('/dashboard?tab=nope', signedIn).preloaded).toContain(
      'modulepreload /assets/overview-1.js',
    )
    expect(openPage('/dashboard?tab=discord', signedIn).preloaded).toEqual([
      'modulepreload /assets/dashboard-1.js',
    ])
  })

  it('does nothing on another page or without a stored session (the app sends that visitor to sign in)', () => {
    for (const page of [
      openPage('/admin', signedIn),
      openPage('/login', signedIn),
      openPage('/dashboard', { token: 'access-1' }),
      openPage('/dashboard', { user: signedIn.user }),
    ]) {
      expect(page.preloaded).toEqual([])
      expect(page.asked).toEqual([])
      expect(page.window.__dashboardBoot).toBeUndefined()
    }
  })
})

describe('the API client with the boot script’s answers', () => {
  let sent: string[]
  const json = (status: number, data: unknown) =>
    new Response(JSON.stringify({ success: status < 400, data }), { status })

  beforeEach(() => {
    sent = []
    const store = new Map<string, string>()
    vi.stubGlobal('localStorage', {
      getItem: (key: string) => store.get(key) ?? null,
      setItem: (key: string, value: string) => store.set(key, value),
      removeItem: (key: string) => store.delete(key),
    })
    vi.stubGlobal('fetch', async (url: string) => {
      sent.push(url)
      return url.endsWith('/refresh-token')
        ? json(200, { accessToken: 'access-2', refreshToken: 'refresh-2' })
        : json(200, { asked: 'by the app' })
    })
    vi.stubGlobal('window', {})
    session.clear()
    session.setTokens({ accessToken: 'access-1', refreshToken: 'refresh-1' })
  })

  afterEach(() => {
    vi.unstubAllGlobals()
  })

  const boot = (responses: DashboardBoot['responses'], token = 'access-1') => {
    ;(window as { __dashboardBoot?: DashboardBoot }).__dashboardBoot = { token, responses }
  }

  it('takes the early answer to the same GET once, then asks itself', async () => {
    boot({ '/subscriptions/status': Promise.resolve(json(200, { asked: 'early' })) })
    expect((await apiRequest('/subscriptions/status')).data).toEqual({ asked: 'early' })
    expect(sent).toEqual([])
    expect((await apiRequest('/subscriptions/status')).data).toEqual({ asked: 'by the app' })
    expect(sent).toEqual([`${API_BASE}/subscriptions/status`])
  })

  it('asks itself for another path, another method, or once the session has another token', async () => {
    boot({ '/a': Promise.resolve(json(200, 'early')), '/b': Promise.resolve(json(200, 'early')) })
    expect((await apiRequest('/c')).data).toEqual({ asked: 'by the app' })
    expect((await apiRequest('/a', { method: 'POST', body: {} })).data).toEqual({ asked: 'by the app' })
    session.setTokens({ accessToken: 'access-3' })
    expect((await apiRequest('/b')).data).toEqual({ asked: 'by the app' })
    expect(sent).toEqual([`${API_BASE}/c`, `${API_BASE}/a`, `${API_BASE}/b`])
  })

  it('refreshes a refused early answer and asks again; sends a failed early request again', async () => {
    boot({ '/auth/profile': Promise.resolve(json(401, null)) })
    expect((await apiRequest('/auth/profile')).data).toEqual({ asked: 'by the app' })
    expect(sent).toEqual([`${API_BASE}/auth/refresh-token`, `${API_BASE}/auth/profile`])
    const failed = Promise.reject(new TypeError('Failed to fetch'))
    failed.catch(() => undefined)
    boot({ '/subscriptions/status': failed }, 'access-2')
    expect((await apiRequest('/subscriptions/status')).data).toEqual({ asked: 'by the app' })
    expect(sent.at(-1)).toBe(`${API_BASE}/subscriptions/status`)
  })
})

describe("what the boot script asks for is what the dashboard's code asks for", () => {
  const app = path.resolve(import.meta.dirname, '..')
  const read = (file: string) => fs.readFileSync(path.join(app, file), 'utf8')

  it("lists each tab's imports as routes/dashboard-tabs.tsx makes them", () => {
    const source = read('routes/dashboard-tabs.tsx')
    const loaders = source.slice(source.indexOf('const loaders'), source.indexOf('const loading'))
    for (const [tab, modules] of Object.entries(TAB_MODULES)) {
      const start = loaders.indexOf(`  ${tab}: `)
      expect(start, tab).toBeGreaterThan(0)
      const next = loaders.slice(start + 3).search(/\n {2}\w+: /)
      const body = loaders.slice(start, next < 0 ? undefined : start + 3 + next)
      const imported = [...body.matchAll(/import\('\.\.\/([^']+)'\)/g)].map((match) => match[1])
      const tabModules = modules.filter((module) => !module.endsWith('record-witness-check.ts'))
      expect(tabModules.map((module) => module.replace(/\.tsx?$/, ''))).toEqual(imported)
      for (const module of modules) expect(fs.existsSync(path.join(app, module)), module).toBe(true)
    }
  })

  it('asks early for the very GETs the API modules ask for, with the token as they do and through the HTTP cache as they do', async () => {
    const asked = new Map<string, { auth: boolean; fresh: boolean }>()
    vi.stubGlobal('localStorage', {
      getItem: () => null,
      setItem: () => undefined,
      removeItem: () => undefined,
    })
    vi.stubGlobal('window', {})
    vi.stubGlobal(
      'fetch',
      async (url: string, init?: { headers?: Record<string, string>; cache?: string }) => {
        asked.set(url.slice(API_BASE.length), {
          auth: Boolean(init?.headers?.authorization),
          fresh: init?.cache === 'no-cache',
        })
        return new Response(JSON.stringify({ success: false, message: 'unavailable' }), { status: 503 })
      },
    )
    session.setTokens({ accessToken: 'access-1' })
    try {
      await Promise.allSettled([
        fetchSubscriptionStatus(),
        fetchActivePlans(),
        fetchPaymentHistory(),
        fetchSignalPage({ kind: '', sport: '' }),
      ])
    } finally {
      vi.unstubAllGlobals()
      session.clear()
    }
    for (const request of Object.values(TAB_REQUESTS).flat())
      expect(asked.get(request!.path), request!.path).toEqual({
        auth: request!.auth,
        fresh: false,
      })
    expect(read('features/signals/record-witness.tsx')).toContain("import('./record-witness-check')")
    expect(read('lib/session-guard.tsx')).toContain(`apiRequest('${SESSION_CHECK.path}'`)
  })

  it('opens the tab the app opens without ?tab= or with an unknown one', () => {
    expect(tabFrom(null)).toBe(FALLBACK_TAB)
    expect(tabFrom('nope')).toBe(FALLBACK_TAB)
  })
})
