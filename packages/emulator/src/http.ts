import type { IncomingMessage, ServerResponse } from 'node:http'

/** A tiny router: the emulator stands in for several services and needs nothing heavier. */

export interface RequestContext {
  req: IncomingMessage
  res: ServerResponse
  url: URL
  params: Record<string, string>
  /** The raw request body (webhook-style services need the exact bytes). */
  rawBody: Buffer
}

export type Handler = (ctx: RequestContext) => unknown | Promise<unknown>

interface Route {
  method: string
  pattern: RegExp
  keys: string[]
  handler: Handler
}

export class Router {
  private readonly routes: Route[] = []

  on(method: string, path: string, handler: Handler): this {
    const keys: string[] = []
    const pattern = new RegExp(
      `^${path.replace(/\/:([A-Za-z_]+)/g, (_match, key: string) => {
        keys.push(key)
        return '/([^/]+)'
      })}/?$`,
    )
    this.routes.push({ method: method.toUpperCase(), pattern, keys, handler })
    return this
  }

  match(method: string, pathname: string): { handler: Handler; params: Record<string, string> } | undefined {
    for (const route of this.routes) {
      if (route.method !== method) continue
      const found = route.pattern.exec(pathname)
      if (!found) continue
      const params: Record<string, string> = {}
      route.keys.forEach((key, index) => {
        params[key] = decodeURIComponent(found[index + 1] ?? '')
      })
      return { handler: route.handler, params }
    }
    return undefined
  }
}

export function sendJson(
  res: ServerResponse,
  status: number,
  body: unknown,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return
  const payload = JSON.stringify(body)
  res.writeHead(status, {
    'content-type': 'application/json',
    'content-length': Buffer.byteLength(payload),
    ...headers,
  })
  res.end(payload)
}

export function sendText(
  res: ServerResponse,
  status: number,
  body: string,
  contentType: string,
  headers: Record<string, string> = {},
): void {
  if (res.headersSent) return
  res.writeHead(status, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    ...headers,
  })
  res.end(body)
}

export async function readBody(req: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = []
  for await (const chunk of req) chunks.push(chunk as Buffer)
  return Buffer.concat(chunks)
}

export function parseJson(raw: Buffer): unknown {
  if (raw.length === 0) return {}
  return JSON.parse(raw.toString('utf8'))
}
