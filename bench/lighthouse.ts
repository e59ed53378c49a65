import { spawn } from 'node:child_process'
import { root, tempDir } from './util'

interface LighthouseScore {
  performance: number
  accessibility: number
  lcp: string
  cls: string
  tbt: string
  fcp: string
  failingAccessibility: string[]
}

/** Lighthouse (mobile, default throttling) on the built site served by the real server. */
export async function benchLighthouse(): Promise<
  Record<string, { performance: number; accessibility: number }>
> {
  const dataDir = await tempDir()
  const port = 3917
  const server = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'production',
      JWT_SECRET: 'y'.repeat(40),
      PORT: String(port),
      DATA_DIR: dataDir,
      LOG_LEVEL: 'warn',
      PRICE_FEED_URL: 'http://127.0.0.1:9/none',
    },
    stdio: 'ignore',
  })
  try {
    for (let i = 0; i < 120; i++) {
      if (
        await fetch(`http://127.0.0.1:${port}/readyz`).then(
          (r) => r.ok,
          () => false,
        )
      )
        break
      await new Promise((resolve) => setTimeout(resolve, 250))
    }
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
    const scores: Record<string, LighthouseScore> = {}
    try {
      for (const page of ['/', '/pricing']) {
        const result = await lighthouse(`http://127.0.0.1:${port}${page}`, {
          port: chrome.port,
          output: 'json',
          logLevel: 'error',
          onlyCategories: ['performance', 'accessibility'],
        })
        const categories = result?.lhr.categories
        const audits = result?.lhr.audits
        const metric = (id: string) => audits?.[id]?.displayValue ?? ''
        scores[page] = {
          performance: Math.round((categories?.performance?.score ?? 0) * 100),
          accessibility: Math.round((categories?.accessibility?.score ?? 0) * 100),
          lcp: metric('largest-contentful-paint'),
          cls: metric('cumulative-layout-shift'),
          tbt: metric('total-blocking-time'),
          fcp: metric('first-contentful-paint'),
          failingAccessibility: Object.values(audits ?? {})
            .filter(
              (audit) =>
                audit.score === 0 &&
                (result?.lhr.categories.accessibility?.auditRefs ?? []).some((ref) => ref.id === audit.id),
            )
            .map((audit) => audit.id),
        }
      }
    } finally {
      await chrome.kill()
    }
    return scores
  } finally {
    server.kill('SIGTERM')
  }
}
