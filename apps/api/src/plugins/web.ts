import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { brotliCompressSync, brotliDecompressSync, gunzipSync, constants as zlibConstants } from 'node:zlib'
import {
  API_BASE,
  CLAIM_KEYS,
  DEFAULT_CLAIMS,
  isAppPath,
  prerenderedPaths,
  type ShownClaims,
} from '@edgeclub/shared'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { apiNotFound } from './errors'
import { type CspDirectives, serializeCsp } from './security'

/**
 * Serves the built web app: prerendered public pages, the SPA fallback page for the other routes
 * (404 status for paths the app does not know), and hashed assets cached for a year.
 */

type PageEncoding = 'br' | 'gzip'

interface Page {
  html: string
  csp: string
  /** The page compressed at build time (scripts/compress.mjs), when the files match the HTML. */
  encoded: Partial<Record<PageEncoding, Buffer>>
}

const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g
const INLINE_STYLE = /<style[^>]*>([\s\S]*?)<\/style>/g

function hashesOf(html: string, element: RegExp): string[] {
  const hashes = [...html.matchAll(element)]
    .map((match) => match[1] ?? '')
    .filter((content) => content.trim().length > 0)
    .map((content) => `'sha256-${createHash('sha256').update(content).digest('base64')}'`)
  return [...new Set(hashes)]
}

/** A build-time compressed copy of the page, only if it is the page (a stale file is ignored). */
function readEncoded(file: string, html: string, decode: (data: Buffer) => Buffer): Buffer | undefined {
  if (!fs.existsSync(file)) return undefined
  const data = fs.readFileSync(file)
  try {
    return decode(data).toString('utf8') === html ? data : undefined
  } catch {
    return undefined
  }
}

/**
 * Inline scripts (React Router's hydration data) and inline styles (a public page's own CSS) are
 * allowed by their hashes, never by 'unsafe-inline'.
 */
function loadPage(file: string, directives: CspDirectives): Page {
  const html = fs.readFileSync(file, 'utf8')
  const styles = hashesOf(html, INLINE_STYLE)
  const withStyles = styles.length
    ? { ...directives, 'style-src': [...(directives['style-src'] ?? []), ...styles] }
    : directives
  const encoded: Page['encoded'] = {}
  const br = readEncoded(`${file}.br`, html, brotliDecompressSync)
  if (br) encoded.br = br
  const gzip = readEncoded(`${file}.gz`, html, gunzipSync)
  if (gzip) encoded.gzip = gzip
  return { html, csp: serializeCsp(withStyles, hashesOf(html, INLINE_SCRIPT)), encoded }
}

/** The best build-time encoding the client accepts (brotli first), of those the file has. */
function pageEncoding(
  acceptEncoding: string | undefined,
  page: { encoded: Partial<Record<PageEncoding, Buffer>> },
): PageEncoding | undefined {
  if (!acceptEncoding) return undefined
  const quality = new Map<string, number>()
  for (const part of acceptEncoding.split(',')) {
    const [name, ...params] = part.trim().toLowerCase().split(';')
    if (!name) continue
    const q = params.map((param) => param.trim()).find((param) => param.startsWith('q='))
    quality.set(name, q ? Number(q.slice(2)) || 0 : 1)
  }
  const accepts = (encoding: PageEncoding) => (quality.get(encoding) ?? quality.get('*') ?? 0) > 0
  return (['br', 'gzip'] as const).find((encoding) => page.encoded[encoding] && accepts(encoding))
}

/** A hashed build file (script or style) in memory: its bytes and build-time compressed copies. */
interface Asset {
  type: string
  etag: string
  body: Buffer
  encoded: Partial<Record<PageEncoding, Buffer>>
}

const ASSET_TYPES: Record<string, string> = {
  '.js': 'application/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8',
}

/**
 * The build's hashed scripts and styles (/assets), each read from disk once, on its first request,
 * and then answered from memory: a page's first load asks for a dozen at once, and answering each
 * from disk (a stat per encoding, a file stream) kept the dashboard's scripts waiting behind one
 * another on a busy machine. They never change under their name; a new build is a new process.
 * Returns the scripts and styles the build has, each with its loader.
 */
function assetFiles(dir: string): Map<string, () => Promise<Asset>> {
  const names = new Set(fs.existsSync(dir) ? fs.readdirSync(dir) : [])
  const read = async (name: string): Promise<Asset> => {
    const body = await fs.promises.readFile(path.join(dir, name))
    const encoded: Asset['encoded'] = {}
    for (const [encoding, suffix] of [
      ['br', '.br'],
      ['gzip', '.gz'],
    ] as const)
      if (names.has(name + suffix))
        encoded[encoding] = await fs.promises.readFile(path.join(dir, name + suffix))
    const etag = `"${createHash('sha256').update(body).digest('base64url').slice(0, 27)}"`
    return { type: ASSET_TYPES[path.extname(name)]!, etag, body, encoded }
  }
  const files = new Map<string, () => Promise<Asset>>()
  for (const name of names) {
    if (!(path.extname(name) in ASSET_TYPES)) continue
    let loaded: Promise<Asset> | undefined
    files.set(name, () => {
      if (!loaded) {
        loaded = read(name)
        // A failed read (the file went away) is tried again next time, not remembered.
        loaded.catch(() => {
          loaded = undefined
        })
      }
      return loaded
    })
  }
  return files
}

function prerenderedFile(root: string, routePath: string): string {
  return routePath === '/' ? path.join(root, 'index.html') : path.join(root, routePath.slice(1), 'index.html')
}

const escapeHtml = (value: string) =>
  value
    .replace(/&/g, '&amp;')
    .replace(/</g, '&lt;')
    .replace(/>/g, '&gt;')
    .replace(/"/g, '&quot;')
    .replace(/'/g, '&#x27;')

/**
 * The owner's claims written into a prerendered page: each `<span data-claim="key">` holds the
 * default text at build time and gets the current one here, and an island's JSON props that carry a
 * claim (the price card's `aiAccuracy`) get it too, so hydration renders the same text. No script
 * is added to the page; its CSP hashes do not change (only text does).
 */
export function applyClaims(html: string, shown: ShownClaims): string {
  const changed = CLAIM_KEYS.filter((key) => shown[key] !== DEFAULT_CLAIMS[key])
  if (changed.length === 0) return html
  // The description metadata holds the claims as plain text: each default replaced in one pass.
  const byDefault = new Map(changed.map((key) => [escapeHtml(DEFAULT_CLAIMS[key]), escapeHtml(shown[key])]))
  const defaults = new RegExp(
    [...byDefault.keys()].map((text) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('|'),
    'g',
  )
  let out = html.replace(
    /(<meta (?:name|property)="(?:og:)?description" content=")([^"]*)(")/g,
    (_match, start: string, content: string, end: string) =>
      `${start}${content.replace(defaults, (found) => byDefault.get(found) ?? found)}${end}`,
  )
  for (const key of changed) {
    const open = `<span data-claim="${key}">`
    out = out
      .split(`${open}${escapeHtml(DEFAULT_CLAIMS[key])}</span>`)
      .join(`${open}${escapeHtml(shown[key])}</span>`)
    out = out
      .split(escapeHtml(`"${key}":${JSON.stringify(DEFAULT_CLAIMS[key])}`))
      .join(escapeHtml(`"${key}":${JSON.stringify(shown[key])}`))
  }
  return out
}

const claimsAreDefault = (shown: ShownClaims) =>
  !shown.fromRecord && CLAIM_KEYS.every((key) => shown[key] === DEFAULT_CLAIMS[key])

export interface WebOptions {
  root: string
  appOrigin: string
  csp: CspDirectives
  /** The claims the public pages show now (absent, or failing: the pages as built). */
  claims?: () => Promise<ShownClaims>
}

export async function webRoutes(app: FastifyInstance, options: WebOptions) {
  const { root } = options
  const fallbackFile = ['__spa-fallback.html', 'index.html']
    .map((name) => path.join(root, name))
    .find((file) => fs.existsSync(file))
  if (!fallbackFile) throw new Error(`The web app is not built: no HTML in ${root}. Run npm run build.`)
  const fallback = loadPage(fallbackFile, options.csp)

  const sendPage = (request: FastifyRequest, reply: FastifyReply, page: Page, status = 200) => {
    reply
      .status(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', page.csp)
    const encoding = pageEncoding(request.headers['accept-encoding'], page)
    if (!encoding) return reply.send(page.html)
    // Compressed once at build time at the highest level, instead of on every request.
    return reply
      .header('content-encoding', encoding)
      .header('vary', 'accept-encoding')
      .send(page.encoded[encoding])
  }

  /** A page with the current claims written in, made once per page and set of claims. */
  const withClaims = (page: Page, cache: { key?: string; page?: Page }, shown: ShownClaims): Page => {
    const key = JSON.stringify(shown)
    if (cache.key === key && cache.page) return cache.page
    const html = applyClaims(page.html, shown)
    const rewritten: Page =
      html === page.html
        ? page
        : {
            html,
            csp: page.csp,
            encoded: {
              br: brotliCompressSync(Buffer.from(html), {
                params: { [zlibConstants.BROTLI_PARAM_QUALITY]: 9 },
              }),
            },
          }
    cache.key = key
    cache.page = rewritten
    return rewritten
  }

  for (const routePath of prerenderedPaths) {
    const file = prerenderedFile(root, routePath)
    const page = fs.existsSync(file) ? loadPage(file, options.csp) : fallback
    const cache: { key?: string; page?: Page } = {}
    const claimed = page !== fallback && page.html.includes('data-claim=')
    app.get(routePath, async (request, reply) => {
      if (!claimed || !options.claims) return sendPage(request, reply, page)
      const shown = await options.claims().catch(() => undefined)
      if (!shown || claimsAreDefault(shown)) return sendPage(request, reply, page)
      return sendPage(request, reply, withClaims(page, cache, shown))
    })
  }

  app.get('/robots.txt', (_request, reply) =>
    reply
      .type('text/plain; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(
        [
          'User-agent: *',
          'Allow: /',
          'Disallow: /dashboard',
          'Disallow: /admin',
          'Disallow: /payment',
          `Disallow: ${API_BASE}/`,
          `Sitemap: ${options.appOrigin}/sitemap.xml`,
          '',
        ].join('\n'),
      ),
  )

  app.get('/sitemap.xml', (_request, reply) => {
    const urls = prerenderedPaths
      .map(
        (routePath) => `  <url><loc>${options.appOrigin}${routePath === '/' ? '/' : routePath}</loc></url>`,
      )
      .join('\n')
    return reply
      .type('application/xml; charset=utf-8')
      .header('cache-control', 'public, max-age=3600')
      .send(
        `<?xml version="1.0" encoding="UTF-8"?>\n<urlset xmlns="http://www.sitemaps.org/schemas/sitemap/0.9">\n${urls}\n</urlset>\n`,
      )
  })

  // One route per script and style of the build; any other path under /assets (a file added after
  // the start, an old build's name) is the static file server's, which answers 404 for what is not there.
  for (const [name, load] of assetFiles(path.join(root, 'assets')))
    app.get(`/assets/${name}`, { config: { assetAnswer: true } }, async (request, reply) => {
      const asset = await load()
      reply
        .header('cache-control', 'public, max-age=31536000, immutable')
        .header('content-type', asset.type)
        .header('etag', asset.etag)
      if (Object.keys(asset.encoded).length > 0) reply.header('vary', 'accept-encoding')
      const known = request.headers['if-none-match']?.split(',').map((tag) => tag.trim().replace(/^W\//, ''))
      if (known?.includes(asset.etag)) return reply.status(304).send()
      const encoding = pageEncoding(request.headers['accept-encoding'], asset)
      if (!encoding) return reply.send(asset.body)
      return reply.header('content-encoding', encoding).send(asset.encoded[encoding])
    })

  await app.register(fastifyStatic, {
    root,
    index: false,
    redirect: false,
    wildcard: true,
    preCompressed: true,
    // HTML is served above, with its CSP; never straight from disk (nor its compressed copies).
    allowedPath: (pathName) => !/\.html(\.br|\.gz)?$/.test(pathName),
    setHeaders: (res, filePath) => {
      const hashed = filePath.includes(`${path.sep}assets${path.sep}`)
      res.header('cache-control', hashed ? 'public, max-age=31536000, immutable' : 'public, max-age=3600')
    },
  })

  app.setNotFoundHandler((request: FastifyRequest, reply: FastifyReply) => {
    const pathname = request.url.split('?')[0] ?? '/'
    const wantsPage =
      (request.method === 'GET' || request.method === 'HEAD') && !pathname.startsWith(`${API_BASE}/`)
    if (!wantsPage) return apiNotFound(request, reply)
    return sendPage(request, reply, fallback, isAppPath(pathname) ? 200 : 404)
  })
}
