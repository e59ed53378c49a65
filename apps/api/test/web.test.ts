import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { brotliCompressSync, brotliDecompressSync, gunzipSync, gzipSync } from 'node:zlib'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { createTestApp, type TestApp } from './helpers/test-app'

const js = `console.log(${JSON.stringify('x'.repeat(2000))})`

/** A small stand-in for apps/web/build/client, shaped like React Router's prerender output. */
async function fakeBuild(): Promise<string> {
  const root = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-web-'))
  const page = (body: string) =>
    `<!DOCTYPE html><html><head><script type="module" src="/assets/app-Ab12Cd34.js"></script></head><body>${body}<script>window.__ctx = {"page":"${body}"}</script></body></html>`
  await fs.writeFile(path.join(root, 'index.html'), page('home'))
  await fs.mkdir(path.join(root, 'pricing'))
  await fs.writeFile(path.join(root, 'pricing', 'index.html'), page('pricing'))
  // An islands page: its CSS inline, and compressed at build time.
  const about = `<!DOCTYPE html><html><head><style>body{color:red}</style></head><body>about${'.'.repeat(2000)}<script type="module" src="/assets/islands-Ab12.js"></script></body></html>`
  await fs.mkdir(path.join(root, 'about'))
  await fs.writeFile(path.join(root, 'about', 'index.html'), about)
  await fs.writeFile(path.join(root, 'about', 'index.html.br'), brotliCompressSync(about))
  await fs.writeFile(path.join(root, 'about', 'index.html.gz'), gzipSync(about))
  // A compressed copy left over from an older build is not the page.
  await fs.writeFile(path.join(root, 'pricing', 'index.html.br'), brotliCompressSync(page('old pricing')))
  // A page with the owner's claims marked, as the landing page has them.
  await fs.mkdir(path.join(root, 'tips'))
  await fs.writeFile(
    path.join(root, 'tips', 'index.html'),
    '<!DOCTYPE html><html><head><meta name="description" content="A 78% win rate."/><style>p{color:red}</style></head><body><p>A <span data-claim="winRate">78%</span> win rate, 78% of the time.</p></body></html>',
  )
  await fs.writeFile(path.join(root, '__spa-fallback.html'), page('fallback'))
  await fs.mkdir(path.join(root, 'assets'))
  await fs.writeFile(path.join(root, 'assets', 'app-Ab12Cd34.js'), js)
  await fs.writeFile(path.join(root, 'assets', 'app-Ab12Cd34.js.gz'), gzipSync(js))
  await fs.writeFile(path.join(root, 'assets', 'root-Xy12.css'), 'body{color:red}')
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

  it('allows a page its inline CSS by hash, not by unsafe-inline', async () => {
    const response = await t.app.inject({ method: 'GET', url: '/about' })
    const hash = createHash('sha256').update('body{color:red}').digest('base64')
    const csp = String(response.headers['content-security-policy'])
    expect(csp).toMatch(new RegExp(`style-src 'self' 'sha256-${hash.replace(/[+/]/g, '\\$&')}'`))
    expect(csp).not.toContain('unsafe-inline')
  })

  it('sends the page compressed at build time, by what the browser accepts', async () => {
    const br = await t.app.inject({
      method: 'GET',
      url: '/about',
      headers: { 'accept-encoding': 'gzip, deflate, br, zstd' },
    })
    expect(br.headers['content-encoding']).toBe('br')
    expect(br.headers.vary).toContain('accept-encoding')
    expect(br.rawPayload).toEqual(await fs.readFile(path.join(root, 'about', 'index.html.br')))
    expect(brotliDecompressSync(br.rawPayload).toString()).toContain('<body>about')

    const gzip = await t.app.inject({
      method: 'GET',
      url: '/about',
      headers: { 'accept-encoding': 'br;q=0, gzip' },
    })
    expect(gzip.headers['content-encoding']).toBe('gzip')
    expect(gzip.rawPayload).toEqual(await fs.readFile(path.join(root, 'about', 'index.html.gz')))

    const plain = await t.app.inject({
      method: 'GET',
      url: '/about',
      headers: { 'accept-encoding': 'identity' },
    })
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.body).toContain('<body>about')
  })

  it('ignores a compressed copy that is not the page', async () => {
    const response = await t.app.inject({
      method: 'GET',
      url: '/pricing',
      headers: { 'accept-encoding': 'br' },
    })
    // Too small to be worth compressing on the fly: the page as it is, never the stale copy.
    expect(response.headers['content-encoding']).toBeUndefined()
    expect(response.body).toContain('<body>pricing')
  })

  it('writes the owner’s claims into a prerendered page, compressed, with the same CSP; the defaults serve the page as built', async () => {
    const before = await t.app.inject({ method: 'GET', url: '/tips' })
    expect(before.body).toContain('<span data-claim="winRate">78%</span>')
    await t.app.services.claims.save({
      members: '15,000+',
      aiAccuracy: '95%',
      winRate: '61%',
      trackRecord: '3+ years',
      showRecordFigures: false,
    })
    const after = await t.app.inject({ method: 'GET', url: '/tips', headers: { 'accept-encoding': 'br' } })
    expect(after.headers['content-encoding']).toBe('br')
    expect(after.headers['content-security-policy']).toBe(before.headers['content-security-policy'])
    const html = brotliDecompressSync(after.rawPayload).toString('utf8')
    expect(html).toContain('<meta name="description" content="A 61% win rate."/>')
    expect(html).toContain('<p>A <span data-claim="winRate">61%</span> win rate, 78% of the time.</p>')
    await t.app.services.claims.save({
      members: '15,000+',
      aiAccuracy: '95%',
      winRate: '78%',
      trackRecord: '3+ years',
      showRecordFigures: false,
    })
    expect((await t.app.inject({ method: 'GET', url: '/tips' })).body).toBe(before.body)
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
    expect(gunzipSync(response.rawPayload).toString()).toBe(js)
    const plain = await t.app.inject({ method: 'GET', url: '/assets/app-Ab12Cd34.js' })
    expect(plain.headers['content-encoding']).toBeUndefined()
    expect(plain.headers['content-type']).toBe('application/javascript; charset=utf-8')
    expect(plain.body).toBe(js)
    const other = await t.app.inject({ method: 'GET', url: '/favicon.svg' })
    expect(other.headers['cache-control']).toBe('public, max-age=3600')
  })

  it('answers a script or style the browser already has with 304 and no body, and an unknown one with 404', async () => {
    const first = await t.app.inject({ method: 'GET', url: '/assets/root-Xy12.css' })
    expect(first.statusCode).toBe(200)
    expect(first.headers['content-type']).toBe('text/css; charset=utf-8')
    const etag = String(first.headers.etag)
    expect(etag).toMatch(/^"[\w-]+"$/)
    const again = await t.app.inject({
      method: 'GET',
      url: '/assets/root-Xy12.css',
      headers: { 'if-none-match': etag },
    })
    expect(again.statusCode).toBe(304)
    expect(again.body).toBe('')
    const changed = await t.app.inject({
      method: 'GET',
      url: '/assets/root-Xy12.css',
      headers: { 'if-none-match': '"something-else"' },
    })
    expect(changed.statusCode).toBe(200)
    const missing = await t.app.inject({ method: 'GET', url: '/assets/app-Old99.js' })
    expect(missing.statusCode).toBe(404)
    // A 404 page is a page: it keeps every page header.
    expect(missing.headers['x-frame-options']).toBe('DENY')
  })

  it('sends a script or style only the security headers a browser applies to one: no page policy', async () => {
    const asset = await t.app.inject({ method: 'GET', url: '/assets/app-Ab12Cd34.js' })
    expect(asset.headers['x-content-type-options']).toBe('nosniff')
    expect(asset.headers['x-request-id']).toMatch(/^[0-9a-f-]{36}$/)
    for (const name of [
      'content-security-policy',
      'cross-origin-opener-policy',
      'referrer-policy',
      'x-frame-options',
      'origin-agent-cluster',
    ])
      expect(asset.headers[name], name).toBeUndefined()
    // The pages keep theirs.
    const page = await t.app.inject({ method: 'GET', url: '/pricing' })
    expect(page.headers['content-security-policy']).toBeDefined()
    expect(page.headers['x-frame-options']).toBe('DENY')
  })

  it('never serves HTML files straight from disk, bypassing the page CSP', async () => {
    for (const url of ['/pricing/index.html', '/about/index.html.br', '/about/index.html.gz']) {
      const response = await t.app.inject({ method: 'GET', url })
      expect(response.statusCode, url).toBe(404)
    }
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
