import fs from 'node:fs/promises'
import path from 'node:path'
import { startEmulator } from '@edgeclub/emulator'
import { buildWebIfNeeded } from '../../scripts/web-build'
import { atLeast, atMost, equals, type Figure, figure, round } from '../lib/figures'
import type { Section } from '../lib/section'
import { startApp } from '../lib/servers'
import { root } from '../lib/util'

/**
 * Lighthouse (mobile: its default Moto G Power emulation with simulated slow 4G and 4× CPU slowdown)
 * on each public page served by the real server in production mode, with the emulator's price feed.
 * Beside the scores: what each page fetched, and whether any of it belongs to the signed-in app
 * (dashboard, admin, payment screens), Stripe.js or zod, which a public page should never load.
 *
 * Pages come from BENCH_PAGES (comma-separated) or the list below; a page that answers 404 (not
 * built yet, such as /record before the signal room exists) is skipped with a note.
 */
export const PUBLIC_PAGES = ['/', '/pricing', '/tips', '/about', '/contact', '/record']

/** The signed-in dashboard tabs a member opens on a phone (goal: Lighthouse mobile ≥ 95, LCP ≤ 2 s): measured signed in. */
export const DASHBOARD_TABS = [
  { path: '/dashboard?tab=signals', label: 'Signals' },
  { path: '/dashboard?tab=subscription', label: 'Subscription' },
  { path: '/dashboard?tab=payments', label: 'Payment History' },
]

const BENCH_ADMIN = { email: 'bench.admin@edgeclub.test', password: 'Bench$Admin2026' }

/**
 * A member as the dashboard sees one: registered, granted 30 days by the admin (a subscription and a
 * payment row), with signals published to read. Answers what the web app keeps in localStorage after
 * signing in (lib/session-store.ts: user, token, refreshToken).
 */
async function signedInMember(base: string): Promise<Record<string, string>> {
  const api = async (path: string, body?: unknown, token?: string) => {
    const response = await fetch(`${base}/discord/api${path}`, {
      method: body === undefined ? 'GET' : 'POST',
      headers: {
        ...(body === undefined ? {} : { 'content-type': 'application/json' }),
        ...(token ? { authorization: `Bearer ${token}` } : {}),
      },
      ...(body === undefined ? {} : { body: JSON.stringify(body) }),
    })
    const json = (await response.json()) as { success: boolean; data?: unknown }
    if (!response.ok)
      throw new Error(`${path} answered ${response.status}: ${JSON.stringify(json).slice(0, 300)}`)
    return json.data as Record<string, unknown>
  }
  type Login = { user: unknown; tokens: { accessToken: string; refreshToken: string } }
  const admin = (await api('/auth/login', BENCH_ADMIN)) as unknown as Login
  const member = {
    firstName: 'Phone',
    lastName: 'Member',
    email: `phone.member.${Date.now().toString(36)}@edgeclub.test`,
    discordUsername: `phone_${Date.now().toString(36)}`,
    password: 'Sharp$h00ter',
  }
  await api('/auth/register', { ...member, agreeToTerms: true, ageConfirmation: true })
  const found = (await api(
    `/admin/users?search=${encodeURIComponent(member.email)}`,
    undefined,
    admin.tokens.accessToken,
  )) as {
    items: { id: string }[]
  }
  await api(`/admin/users/${found.items[0]!.id}/grant`, { days: 30 }, admin.tokens.accessToken)
  for (let i = 0; i < 12; i++) {
    await api(
      '/signals',
      {
        kind: 'signal',
        instrument: ['MSFT', 'AAPL', 'NVDA', 'EURUSD'][i % 4],
        direction: 'long',
        entry: 400 + i,
        target: 430 + i,
        stop: 385 + i,
        expiresAt: new Date(Date.now() + 3 * 24 * 3_600_000).toISOString(),
        stake: 1,
        analysis: `Bench signal ${i + 1}: breakout above the range high on rising volume.`,
      },
      admin.tokens.accessToken,
    )
  }
  const signedIn = (await api('/auth/login', {
    email: member.email,
    password: member.password,
  })) as unknown as Login
  return {
    user: JSON.stringify(signedIn.user),
    token: signedIn.tokens.accessToken,
    refreshToken: signedIn.tokens.refreshToken,
  }
}

export function buildWeb(): void {
  buildWebIfNeeded()
}

/** Route ids of the signed-in app; chunks only they import must never reach a public page. */
const PRIVATE_ROUTE = /dashboard|admin|payment|settings/

/** Code a public page must not load, recognised in the minified chunks by strings that survive minifying. */
const MARKERS: { name: string; pattern: RegExp }[] = [
  { name: 'zod', pattern: /\b_zod\b|ZodError|\$ZodType/ },
  { name: 'stripe', pattern: /js\.stripe\.com|Could not find Elements context|loadStripe/ },
]

interface ManifestRoute {
  id: string
  module: string
  imports?: string[]
}

/** Each built chunk (by URL path) → what it belongs to that a public page must not fetch. */
async function forbiddenChunks(): Promise<Map<string, string[]>> {
  const assets = path.join(root, 'apps/web/build/client/assets')
  const files = await fs.readdir(assets)
  const result = new Map<string, string[]>()
  const tag = (url: string, label: string) => {
    const tags = result.get(url) ?? []
    if (!tags.includes(label)) tags.push(label)
    result.set(url, tags)
  }
  const manifestFile = files.find((file) => /^manifest-.*\.js$/.test(file))
  if (manifestFile) {
    const text = await fs.readFile(path.join(assets, manifestFile), 'utf8')
    const json = text.slice(text.indexOf('{'), text.lastIndexOf('}') + 1)
    const manifest = JSON.parse(json) as { routes: Record<string, ManifestRoute> }
    const routes = Object.values(manifest.routes)
    const chunksOf = (route: ManifestRoute) => [route.module, ...(route.imports ?? [])]
    const publicChunks = new Set(routes.filter((r) => !PRIVATE_ROUTE.test(r.id)).flatMap(chunksOf))
    for (const route of routes.filter((r) => PRIVATE_ROUTE.test(r.id))) {
      const area = PRIVATE_ROUTE.exec(route.id)![0]
      for (const chunk of chunksOf(route)) if (!publicChunks.has(chunk)) tag(chunk, area)
    }
  }
  for (const file of files.filter((f) => f.endsWith('.js'))) {
    const text = await fs.readFile(path.join(assets, file), 'utf8')
    for (const marker of MARKERS) if (marker.pattern.test(text)) tag(`/assets/${file}`, marker.name)
  }
  return result
}

interface NetworkItem {
  url: string
  resourceType?: string
  transferSize?: number
  resourceSize?: number
  statusCode?: number
}

/**
 * BENCH_BROWSER_PROF: the page's JavaScript profiled in the browser (CDP Profiler), on a cold HTTP
 * cache and at Lighthouse's mobile CPU slowdown (4×), for the first 8 s: which functions the main
 * thread spends a phone's load on. Opens in Chrome DevTools; a minified build names functions by
 * their minified names (build without minifying to read them).
 */
async function browserProfile(
  browser: import('puppeteer-core').Browser,
  url: string,
  file: string,
): Promise<void> {
  const tab = await browser.newPage()
  try {
    const cdp = await tab.createCDPSession()
    await cdp.send('Network.clearBrowserCache')
    await cdp.send('Emulation.setCPUThrottlingRate', { rate: 4 })
    await cdp.send('Profiler.enable')
    await cdp.send('Profiler.setSamplingInterval', { interval: 200 })
    await cdp.send('Profiler.start')
    await tab.goto(url, { waitUntil: 'load' })
    await new Promise((resolve) => setTimeout(resolve, 8_000))
    const { profile } = await cdp.send('Profiler.stop')
    await fs.writeFile(file, JSON.stringify(profile))
  } finally {
    await tab.close()
  }
}

export const pagesSection: Section = {
  name: 'pages',
  aliases: ['lighthouse'],
  title: 'public pages and the signed-in dashboard tabs: Lighthouse mobile and what they fetch',
  async run({ log }) {
    buildWeb()
    const pages = process.env.BENCH_PAGES?.split(',').map((p) => p.trim()) ?? [
      ...PUBLIC_PAGES,
      ...DASHBOARD_TABS.map((tab) => tab.path),
    ]
    const forbidden = await forbiddenChunks()
    const emulator = await startEmulator()
    const server = await startApp({
      env: {
        PRICE_FEED_URL: emulator.priceFeedUrl,
        ADMIN_EMAIL: BENCH_ADMIN.email,
        ADMIN_PASSWORD: BENCH_ADMIN.password,
      },
    })
    const figures: Figure[] = []
    const notes: string[] = []
    const details: Record<string, unknown> = {}
    const { default: lighthouse } = await import('lighthouse')
    const chromeLauncher = await import('chrome-launcher')
    const chrome = await chromeLauncher.launch({
      chromePath: process.env.CHROMIUM_PATH ?? '/usr/bin/chromium',
      chromeFlags: [
        '--headless',
        '--no-sandbox',
        '--disable-gpu',
        '--disable-background-networking',
        '--disable-component-update',
        '--disable-sync',
        '--no-first-run',
      ],
    })
    const puppeteer = await import('puppeteer-core')
    const browser = await puppeteer.connect({ browserURL: `http://127.0.0.1:${chrome.port}` })
    let stored: Record<string, string> | undefined
    try {
      for (const page of pages) {
        const signedIn = page.startsWith('/dashboard')
        // Signed in the way the web app keeps a session (localStorage), on a cold HTTP cache:
        // Lighthouse's own storage reset would sign the member out, so it is off for these pages
        // and the cache is cleared here instead, before every attempt (a retry after a failed
        // trace would otherwise meet what the failed attempt cached).
        const firstVisit = async () => {
          stored ??= await signedInMember(server.url)
          const tab = await browser.newPage()
          await tab.goto(`${server.url}/favicon.svg`)
          await tab.evaluate((items: Record<string, string>) => {
            const store = (globalThis as unknown as { localStorage: { setItem(k: string, v: string): void } })
              .localStorage
            for (const [key, value] of Object.entries(items)) store.setItem(key, value)
          }, stored)
          const cdp = await tab.createCDPSession()
          await cdp.send('Network.clearBrowserCache')
          // The dashboard registers a service worker that caches its app shell: left in place, every
          // tab after the first would be measured from that cache (no script over the network), not
          // on a first visit like the first one. It goes, with its caches, before each tab.
          await cdp.send('Storage.clearDataForOrigin', {
            origin: server.url,
            storageTypes: 'service_workers,cache_storage',
          })
          await tab.close()
        }
        const status = (await fetch(`${server.url}${page}`)).status
        if (status === 404) {
          notes.push(`${page} answers 404: skipped (add it to the measurement once it exists)`)
          continue
        }
        log(`lighthouse ${page}`)
        const audit = async () => {
          if (signedIn) await firstVisit()
          return lighthouse(`${server.url}${page}`, {
            port: chrome.port,
            output: 'json',
            logLevel: 'error',
            onlyCategories: ['performance', 'accessibility'],
            ...(signedIn ? { disableStorageReset: true } : {}),
          })
        }
        let result = await audit()
        // A run that could not trace the page (a cold browser, a starved machine) says so in
        // runtimeError; one more try, and if that fails too its error stands beside the figures.
        if (result?.lhr.runtimeError) {
          log(`lighthouse ${page}: ${result.lhr.runtimeError.code}; once more`)
          result = await audit()
        }
        if (!result) throw new Error(`Lighthouse returned nothing for ${page}`)
        if (process.env.BENCH_BROWSER_PROF) {
          // A separate load, after Lighthouse's: the profiler's own cost stays out of the figures.
          if (signedIn) await firstVisit()
          const file = path.join(
            process.env.BENCH_BROWSER_PROF,
            `${page.replace(/[^a-z0-9]+/gi, '_')}.cpuprofile`,
          )
          await browserProfile(browser, `${server.url}${page}`, file)
        }
        if (process.env.BENCH_LHR_DIR) {
          const name = page.replace(/[^a-z0-9]+/gi, '_')
          await fs.writeFile(path.join(process.env.BENCH_LHR_DIR, `${name}.json`), JSON.stringify(result.lhr))
          // The trace Lighthouse simulated from, for a closer look (Chrome DevTools opens it).
          const artifacts = result.artifacts as
            | {
                Trace?: unknown
                DevtoolsLog?: unknown
                GatherContext?: unknown
                URL?: unknown
                SourceMaps?: unknown
              }
            | undefined
          if (artifacts?.Trace)
            await fs.writeFile(
              path.join(process.env.BENCH_LHR_DIR, `${name}.trace.json`),
              JSON.stringify(artifacts.Trace),
            )
          // With the trace, what Lighthouse's simulation (Lantern) starts from: bench/lantern.ts
          // replays it and lists the requests and tasks the simulated LCP waited for.
          if (artifacts?.DevtoolsLog)
            await fs.writeFile(
              path.join(process.env.BENCH_LHR_DIR, `${name}.artifacts.json`),
              JSON.stringify({
                DevtoolsLog: artifacts.DevtoolsLog,
                GatherContext: artifacts.GatherContext,
                URL: artifacts.URL,
                SourceMaps: artifacts.SourceMaps ?? [],
                settings: result.lhr.configSettings,
              }),
            )
        }
        if (result.lhr.runtimeError)
          notes.push(
            `${page}: Lighthouse could not measure: ${result.lhr.runtimeError.code} ${result.lhr.runtimeError.message}`,
          )
        for (const warning of result.lhr.runWarnings ?? []) notes.push(`${page}: ${warning}`)
        const { categories, audits } = result.lhr
        const numeric = (id: string) => audits[id]?.numericValue ?? Number.NaN
        const items = ((audits['network-requests']?.details as { items?: NetworkItem[] } | undefined)
          ?.items ?? []) as NetworkItem[]
        const local = items.filter((item) => item.url.startsWith(server.url))
        const bytesOf = (type: string) =>
          local
            .filter((item) => item.resourceType === type)
            .reduce((sum, item) => sum + (item.transferSize ?? 0), 0)
        const offending = local
          .map((item) => ({
            path: new URL(item.url).pathname,
            tags: forbidden.get(new URL(item.url).pathname),
          }))
          .filter((item) => item.tags)
          .map((item) => `${item.path} (${item.tags!.join(', ')})`)
        const external = items.filter(
          (item) => !item.url.startsWith(server.url) && !item.url.startsWith('data:'),
        )
        const failing = Object.values(audits)
          .filter(
            (audit) =>
              audit.score === 0 &&
              (categories.accessibility?.auditRefs ?? []).some((ref) => ref.id === audit.id),
          )
          .map((audit) => audit.id)
        const key = `pages.${page}`
        figures.push(
          figure(
            `${key}.performance`,
            `${page} performance`,
            Math.round((categories.performance?.score ?? 0) * 100),
            {
              goal: signedIn ? atLeast(95) : equals(100),
            },
          ),
          figure(
            `${key}.accessibility`,
            `${page} accessibility`,
            Math.round((categories.accessibility?.score ?? 0) * 100),
            { goal: equals(100), ...(failing.length ? { note: `failing: ${failing.join(', ')}` } : {}) },
          ),
          figure(`${key}.lcp`, `${page} LCP`, round(numeric('largest-contentful-paint') / 1000, 2), {
            unit: 's',
            goal: atMost(signedIn ? 2 : 1.5),
          }),
          figure(`${key}.tbt`, `${page} TBT`, Math.round(numeric('total-blocking-time')), {
            unit: 'ms',
            goal: atMost(50),
          }),
          figure(`${key}.cls`, `${page} CLS`, round(numeric('cumulative-layout-shift'), 3), {
            goal: equals(0),
          }),
          figure(
            `${key}.transferKiB`,
            `${page} total transfer`,
            round(numeric('total-byte-weight') / 1024, 1),
            {
              unit: 'KiB',
              ...(page === '/' ? { goal: atMost(85) } : {}),
            },
          ),
          figure(`${key}.jsKiB`, `${page} JS transferred`, round(bytesOf('Script') / 1024, 1), {
            unit: 'KiB',
          }),
          figure(`${key}.cssKiB`, `${page} CSS transferred`, round(bytesOf('Stylesheet') / 1024, 1), {
            unit: 'KiB',
          }),
          ...(signedIn
            ? []
            : [
                figure(
                  `${key}.privateChunks`,
                  `${page} dashboard/admin/Stripe/zod chunks fetched`,
                  offending.length,
                  {
                    goal: equals(0),
                    ...(offending.length ? { note: offending.join('; ') } : {}),
                  },
                ),
              ]),
        )
        details[page] = {
          fcpMs: Math.round(numeric('first-contentful-paint')),
          speedIndexMs: Math.round(numeric('speed-index')),
          interactiveMs: Math.round(numeric('interactive')),
          mainThreadMs: Math.round(numeric('mainthread-work-breakdown')),
          bootupMs: Math.round(numeric('bootup-time')),
          lcpElement:
            (audits['largest-contentful-paint-element']?.details as { items?: unknown[] } | undefined)
              ?.items ?? null,
          external: external.map((item) => item.url),
          requests: local.map((item) => ({
            path: new URL(item.url).pathname,
            type: item.resourceType,
            transfer: item.transferSize,
            size: item.resourceSize,
          })),
        }
      }
    } finally {
      await browser.disconnect()
      await chrome.kill()
      await server.stop()
      await emulator.close()
    }
    return { figures, notes, details }
  },
}
