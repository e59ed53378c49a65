import { badRequest } from './errors'

/**
 * The Bot API reads every parameter as a string, wherever it came from: the query string, a
 * form-encoded or multipart body, or a JSON object body (whose non-string values are kept as their
 * JSON text, so `reply_markup` may be an object or a JSON string alike). Method code then converts
 * them the way the Bot API server does: integers by their leading digits and clamped, booleans from
 * "true"/"yes"/"1", objects by parsing the JSON text.
 */

export interface UploadedFile {
  filename: string
  data: Buffer
}

export interface RequestArgs {
  values: Map<string, string>
  files: Map<string, UploadedFile>
}

function parseJsonBody(raw: string, values: Map<string, string>): void {
  let parsed: unknown
  try {
    parsed = JSON.parse(raw)
  } catch (error) {
    throw badRequest(`can't parse parameter value: ${error instanceof Error ? error.message : String(error)}`)
  }
  if (typeof parsed === 'string') {
    // A bare JSON string is Telegram's "content" parameter.
    values.set('content', parsed)
    return
  }
  if (!parsed || typeof parsed !== 'object' || Array.isArray(parsed)) throw badRequest('JSON object expected')
  for (const [key, value] of Object.entries(parsed)) {
    // grammY leaves nulls out; a null from another client means "not given".
    if (value === null || value === undefined) continue
    values.set(key, typeof value === 'string' ? value : JSON.stringify(value))
  }
}

function headerParam(header: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, 'i').exec(
    header,
  )
  if (!match) return undefined
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]
}

/** multipart/form-data as grammY writes it (`content-disposition:form-data;name="chat_id"`, no spaces). */
function parseMultipart(body: Buffer, contentType: string, args: RequestArgs): void {
  const boundary = headerParam(contentType, 'boundary')
  if (!boundary) throw badRequest('boundary not found')
  const delimiter = Buffer.from(`--${boundary}`)
  let position = body.indexOf(delimiter)
  if (position < 0) throw badRequest('unexpected end of request content')
  while (position >= 0) {
    let start = position + delimiter.length
    if (body.subarray(start, start + 2).toString() === '--') return
    if (body.subarray(start, start + 2).toString() === '\r\n') start += 2
    const next = body.indexOf(delimiter, start)
    if (next < 0) throw badRequest('unexpected end of request content')
    // The part ends with CRLF before the next delimiter.
    const part = body.subarray(start, body[next - 2] === 13 && body[next - 1] === 10 ? next - 2 : next)
    const headerEnd = part.indexOf('\r\n\r\n')
    if (headerEnd < 0) throw badRequest("can't parse form data headers")
    const headers = part.subarray(0, headerEnd).toString('utf8').split('\r\n')
    const disposition = headers.find((line) => /^content-disposition\s*:/i.test(line))
    if (!disposition) throw badRequest('expected form-data content disposition')
    const value = disposition.slice(disposition.indexOf(':') + 1)
    const name = headerParam(value, 'name')
    if (name === undefined) throw badRequest('field name in multipart/form-data not found')
    const content = part.subarray(headerEnd + 4)
    const filename = headerParam(value, 'filename')
    if (filename !== undefined) args.files.set(name, { filename, data: Buffer.from(content) })
    else args.values.set(name, content.toString('utf8'))
    position = next
  }
}

export function parseRequestArgs(
  contentType: string | undefined,
  rawBody: Buffer,
  query: URLSearchParams,
): RequestArgs {
  const args: RequestArgs = { values: new Map(), files: new Map() }
  for (const [key, value] of query) args.values.set(key, value)
  if (rawBody.length === 0) return args
  const type = (contentType ?? '').toLowerCase()
  if (type.includes('application/json')) parseJsonBody(rawBody.toString('utf8'), args.values)
  else if (type.startsWith('multipart/form-data')) parseMultipart(rawBody, contentType ?? '', args)
  else if (type.startsWith('application/x-www-form-urlencoded'))
    for (const [key, value] of new URLSearchParams(rawBody.toString('utf8'))) args.values.set(key, value)
  // Other content types carry no parameters, as on Telegram.
  return args
}

/** td::to_integer: an optional sign and the leading digits; anything else reads as 0. */
export function toInteger(raw: string): number {
  const match = /^\s*([+-]?)(\d+)/.exec(raw)
  if (!match) return 0
  const value = Number(match[2])
  return match[1] === '-' ? -value : value
}

export class Args {
  constructor(readonly request: RequestArgs) {}

  /** The raw text of a parameter; empty counts as absent, as it does for the Bot API. */
  string(name: string): string | undefined {
    const value = this.request.values.get(name)
    return value === undefined || value === '' ? undefined : value
  }

  integer(
    name: string,
    fallback: number,
    min = Number.MIN_SAFE_INTEGER,
    max = Number.MAX_SAFE_INTEGER,
  ): number {
    const raw = this.string(name)
    const value = raw === undefined ? fallback : toInteger(raw)
    return Math.min(max, Math.max(min, value))
  }

  bool(name: string): boolean {
    const raw = this.string(name)?.trim().toLowerCase()
    return raw === 'true' || raw === 'yes' || raw === '1'
  }

  /** A JSON-valued parameter (an object, an array); `what` names it in Telegram's error text. */
  json(name: string, what: string): unknown {
    const raw = this.string(name)
    if (raw === undefined) return undefined
    try {
      return JSON.parse(raw)
    } catch {
      throw badRequest(`can't parse ${what} JSON object`)
    }
  }
}
