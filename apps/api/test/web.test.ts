import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from './helpers/test-app'

/** A small stand-in for apps/web/build/client, shaped like React Router's prerender output. */
async function fakeBuild(): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-web-'))
  const page = (body: string) =>
    `<!DOCTYPE html><html><head><script type="module" src="/assets/app-Ab12Cd34.js"></script></head><body>${body}<script>window.__ctx = {"page":"${body}"}</script></body></html>`
  await fs.writeFile(path.join(root, 'index.html'), page('home'))
  await fs.mkdir(path.join(root, 'pricing'))
  await fs.writeFile(path.join(root, 'pricing', 'index.html'), page('pricing'))
  await fs.writeFile(path.join(root, '__spa-fallback.html'), page('fallback'))
  await fs.mkdir(path.join(root, 'assets'))
  const js = `console.log(${JSON.stringify('x'.repeat(2000))})`
  await fs.writeFile(path.join(root, 'assets', 'app-Ab12Cd34.js'), js)
  await fs.writeFile(path.join(root, 'assets', 'app-Ab12Cd34.js.gz'), gzipSync(js))
  await fs.writeFile(path.join(root, 'favicon.svg'), '<svg xmlns="http://www.w3.org/2000/svg"/>')
  return root
}

describe('serving the web app', () => {
  let t: TestApp
  let root: string
  beforeAll(async () => {
    root = await fakeBuild()
    t = await createTestApp({
      env: { APP_ORIGIN: 'https://edgeclub.example' },
      configure: (config) => {
        config.webRoot = root
      },
    })
  })
  afterAll(async () => {
    await t.close()
    await fs.rm(root, { recursive: true, force: true })
  })

  it('serves prerendered pages with a CSP that allows their inline scripts by hash only', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/pricing' })
    expect(response.statusCode).toBe(200)
    expect(response.body).toContain('<body>pricing')
    expect(response.headers['cache-control']).toBe('no-cache')
    const hash = createHash('sha256').update('window.__ctx = {"page":"pricing"}').digest('base64')
    const csp = String(response.headers['content-security-policy'])
    expect(csp).toContain(`'sha256-${hash}'`)
    expect(csp).not.toContain('unsafe-inline')
    // No page may be given a <base> that re-points its relative links and scripts.
    expect(csp).toContain("base-uri 'none'")
  })

  it('serves the SPA fallback for app routes such as /dashboard with 200', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/dashboard' })
    expect(response.statusCode).toBe(200)
    expect(response.body).toContain('<body>fallback')
  })

  it('LAYOUT-11 answers unknown paths with the app page and a real 404 status', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/no-such-page' })
    expect(response.statusCode).toBe(404)
    expect(response.headers['content-type']).toContain('text/html')
    expect(response.body).toContain('<body>fallback')
  })

  it('caches hashed assets for a year, and serves them precompressed', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/assets/app-Ab12Cd34.js',
      headers: { 'accept-encoding': 'gzip' },
    })
    expect(response.statusCode).toBe(200)
    expect(response.headers['cache-control']).toBe('public, max-age=31536000, immutable')
    expect(response.headers['content-encoding']).toBe('gzip')
    const other = await t.app.inject({ method: 'GET', url: '/favicon.svg' })
    expect(other.headers['cache-control']).toBe('public, max-age=3600')
  })

  it('never serves HTML files straight from disk, bypassing the page CSP', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/pricing/index.html' })
    expect(response.statusCode).toBe(404)
  })

  it('answers /robots.txt and /sitemap.xml from APP_ORIGIN', async () => {
    const robots = await t.app.inject({ method: 'GET', url: '/robots.txt' })
    expect(robots.body).toContain('Sitemap: https://edgeclub.example/sitemap.xml')
    expect(robots.body).toContain('Disallow: /dashboard')
    const sitemap = await t.app.inject({ method: 'GET', url: '/sitemap.xml' })
    expect(sitemap.headers['content-type']).toContain('application/xml')
    for (const page of ['/', '/about', '/tips', '/pricing', '/contact']) {
      expect(sitemap.body).toContain(`<loc>https://edgeclub.example${page}</loc>`)
    }
  })

  it('keeps secrets in URLs out of the logs', async () => {
    await t.app.inject({ method: 'GET', url: '/reset-password?token=super-secret-reset-token' })
    expect(t.logs()).toContain('/reset-password?token=%5Bredacted%5D')
    expect(t.logs()).not.toContain('super-secret-reset-token')
  })
})
