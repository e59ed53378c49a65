import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'
import { API_BASE, isAppPath, prerenderedPaths } from '@edgeclub/shared'
import fastifyStatic from '@fastify/static'
import type { FastifyInstance, FastifyReply, FastifyRequest } from 'fastify'
import { apiNotFound } from './errors'
import { type CspDirectives, serializeCsp } from './security'

/**
 * Serves the built web app: prerendered public pages, the SPA fallback page for the other routes
 * (404 status for paths the app does not know), and hashed assets cached for a year.
 */

interface Page {
  html: string
  csp: string
}

const INLINE_SCRIPT = /<script(?![^>]*\bsrc=)[^>]*>([\s\S]*?)<\/script>/g

/** Inline scripts (React Router's hydration data) are allowed by their hashes, never by 'unsafe-inline'. */
function loadPage(file: string, directives: CspDirectives): Page {
  const html = fs.readFileSync(file, 'utf8')
  const hashes = [...html.matchAll(INLINE_SCRIPT)]
    .map((match) => match[1] ?? '')
    .filter((script) => script.trim().length > 0)
    .map((script) => `'sha256-${createHash('sha256').update(script).digest('base64')}'`)
  return { html, csp: serializeCsp(directives, [...new Set(hashes)]) }
}

function prerenderedFile(root: string, routePath: string): string {
  return routePath === '/' ? path.join(root, 'index.html') : path.join(root, routePath.slice(1), 'index.html')
}

export interface WebOptions {
  root: string
  appOrigin: string
  csp: CspDirectives
}

export async function webRoutes(app: FastifyInstance, options: WebOptions) {
  const { root } = options
  const fallbackFile = ['__spa-fallback.html', 'index.html']
    .map((name) => path.join(root, name))
    .find((file) => fs.existsSync(file))
  if (!fallbackFile) throw new Error(`The web app is not built: no HTML in ${root}. Run npm run build.`)
  const fallback = loadPage(fallbackFile, options.csp)

  const sendPage = (reply: FastifyReply, page: Page, status = 200) =>
    reply
      .status(status)
      .header('content-type', 'text/html; charset=utf-8')
      .header('cache-control', 'no-cache')
      .header('content-security-policy', page.csp)
      .send(page.html)

  for (const routePath of prerenderedPaths) {
    const file = prerenderedFile(root, routePath)
    const page = fs.existsSync(file) ? loadPage(file, options.csp) : fallback
    app.get(routePath, (_request, reply) => sendPage(reply, page))
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

  await app.register(fastifyStatic, {
    root,
    index: false,
    redirect: false,
    wildcard: true,
    preCompressed: true,
    // HTML is served above, with its CSP; never straight from disk.
    allowedPath: (pathName) => !pathName.endsWith('.html'),
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
    return sendPage(reply, fallback, isAppPath(pathname) ? 200 : 404)
  })
}
