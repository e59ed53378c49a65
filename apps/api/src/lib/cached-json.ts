import { createHash } from 'node:crypto'
import type { IncomingHttpHeaders } from 'node:http'
import { brotliCompressSync, constants, gzipSync } from 'node:zlib'
import type { FastifyReply, FastifyRequest } from 'fastify'

/**
 * A public JSON answer serialized once while it does not change: its bytes, a strong ETag per
 * representation (identity, gzip, br: different bytes, different tags), and the compressed bodies,
 * made once here instead of on every request.
 */
export interface CachedJson {
  json: string
  /** The JSON as UTF-8 bytes, encoded once: a string body would be re-encoded on every request. */
  bytes: Buffer
  etag: string
  gzip?: { body: Buffer; etag: string }
  br?: { body: Buffer; etag: string }
}

/** Below this size compression saves less than its header costs. */
const COMPRESS_FROM_BYTES = 1024

/**
 * `once: false` is for an answer made for one request only (not kept): gzip at its default level,
 * no brotli, whose best level costs milliseconds that only pay off over many requests.
 */
export function cachedJson(json: string, options: { once?: boolean } = {}): CachedJson {
  const tag = createHash('sha1').update(json).digest('base64url').slice(0, 27)
  const cached: CachedJson = { json, bytes: Buffer.from(json), etag: `"${tag}"` }
  if (cached.bytes.length < COMPRESS_FROM_BYTES) return cached
  if (options.once === false) {
    cached.gzip = { body: gzipSync(json), etag: `"${tag}-gz"` }
    return cached
  }
  cached.gzip = { body: gzipSync(json, { level: 9 }), etag: `"${tag}-gz"` }
  cached.br = {
    body: brotliCompressSync(json, { params: { [constants.BROTLI_PARAM_QUALITY]: 11 } }),
    etag: `"${tag}-br"`,
  }
  return cached
}

/** The same answer object while the JSON is the same: the hash and compression are done once per change. */
export function cachedJsonKeeper() {
  let last: CachedJson | undefined
  return (json: string): CachedJson => {
    if (last?.json !== json) last = cachedJson(json)
    return last
  }
}

/** If-None-Match matches one of our tags (weak comparison, as RFC 9110 asks for GET). */
function notModified(header: string | undefined, cached: CachedJson): boolean {
  if (!header) return false
  if (header.trim() === '*') return true
  const tags = [cached.etag, cached.gzip?.etag, cached.br?.etag]
  for (const part of header.split(',')) {
    const tag = part.trim().replace(/^W\//, '')
    if (tags.includes(tag)) return true
  }
  return false
}

function accepts(header: string | undefined, coding: 'br' | 'gzip'): boolean {
  if (!header) return false
  for (const part of header.split(',')) {
    const [name, ...params] = part.trim().split(';')
    if (name?.trim().toLowerCase() !== coding) continue
    const q = params.map((p) => p.trim()).find((p) => p.startsWith('q='))
    return q === undefined || Number(q.slice(2)) > 0
  }
  return false
}

/** What a cached public answer is for one request: its status, headers and (unless 304) body. */
export interface CachedAnswer {
  status: 200 | 304
  headers: Record<string, string>
  body?: Buffer
}

/**
 * A cached public answer for these request headers: ETag and Cache-Control always; 304 without a body
 * when the client's copy is current; otherwise the precompressed body the client accepts, or the JSON
 * as it is. Sent through Fastify (sendCachedJson) or by the hot lane (lib/hot-lane.ts).
 */
export function cachedAnswer(
  requestHeaders: IncomingHttpHeaders,
  cached: CachedJson,
  cacheControl: string,
): CachedAnswer {
  const acceptEncoding = requestHeaders['accept-encoding']
  const variant =
    cached.br && accepts(acceptEncoding, 'br')
      ? { coding: 'br', ...cached.br }
      : cached.gzip && accepts(acceptEncoding, 'gzip')
        ? { coding: 'gzip', ...cached.gzip }
        : undefined
  const headers: Record<string, string> = {
    'cache-control': cacheControl,
    etag: variant?.etag ?? cached.etag,
  }
  if (cached.gzip) headers.vary = 'accept-encoding'
  if (notModified(requestHeaders['if-none-match'], cached)) return { status: 304, headers }
  headers['content-type'] = 'application/json; charset=utf-8'
  if (!variant) return { status: 200, headers, body: cached.bytes }
  headers['content-encoding'] = variant.coding
  return { status: 200, headers, body: variant.body }
}

/** Sends a cached public answer through Fastify (see cachedAnswer). */
export function sendCachedJson(
  request: FastifyRequest,
  reply: FastifyReply,
  cached: CachedJson,
  cacheControl: string,
): FastifyReply {
  const answer = cachedAnswer(request.headers, cached, cacheControl)
  reply.code(answer.status).headers(answer.headers)
  return answer.body ? reply.send(answer.body) : reply.send()
}
