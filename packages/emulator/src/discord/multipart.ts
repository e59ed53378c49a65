/**
 * multipart/form-data as @discordjs/rest (undici's FormData) sends it when a request carries files:
 * the JSON parameters in a `payload_json` field, each file in its own part with a filename.
 */

export interface FormPart {
  name: string
  /** Set for file parts. */
  filename?: string
  contentType?: string
  data: Buffer
}

function headerParam(header: string, name: string): string | undefined {
  const match = new RegExp(`(?:^|;)\\s*${name}\\s*=\\s*(?:"((?:[^"\\\\]|\\\\.)*)"|([^;\\s]+))`, 'i').exec(
    header,
  )
  if (!match) return undefined
  return match[1] !== undefined ? match[1].replace(/\\(.)/g, '$1') : match[2]
}

export function isMultipart(contentType: string | undefined): boolean {
  return /^multipart\/form-data\b/i.test(contentType ?? '')
}

/** The parts of a multipart body; throws an Error saying what is wrong with a malformed one. */
export function parseMultipart(body: Buffer, contentType: string): FormPart[] {
  const boundary = headerParam(contentType, 'boundary')
  if (!boundary) throw new Error('multipart boundary not found')
  const delimiter = Buffer.from(`--${boundary}`)
  const parts: FormPart[] = []
  let position = body.indexOf(delimiter)
  if (position < 0) throw new Error('unexpected end of multipart body')
  while (position >= 0) {
    let start = position + delimiter.length
    if (body.subarray(start, start + 2).toString() === '--') return parts
    if (body.subarray(start, start + 2).toString() === '\r\n') start += 2
    const next = body.indexOf(delimiter, start)
    if (next < 0) throw new Error('unexpected end of multipart body')
    // A part ends with CRLF before the next delimiter.
    const part = body.subarray(start, body[next - 2] === 13 && body[next - 1] === 10 ? next - 2 : next)
    const headerEnd = part.indexOf('\r\n\r\n')
    if (headerEnd < 0) throw new Error('multipart part without headers')
    const headers = part.subarray(0, headerEnd).toString('utf8').split('\r\n')
    const header = (name: string) => {
      const line = headers.find((candidate) => candidate.toLowerCase().startsWith(`${name}:`))
      return line?.slice(line.indexOf(':') + 1).trim()
    }
    const disposition = header('content-disposition')
    const name = disposition ? headerParam(disposition, 'name') : undefined
    if (!disposition || name === undefined) throw new Error('multipart part without a field name')
    const filename = headerParam(disposition, 'filename')
    const partType = header('content-type')
    parts.push({
      name,
      ...(filename !== undefined ? { filename } : {}),
      ...(partType ? { contentType: partType } : {}),
      data: Buffer.from(part.subarray(headerEnd + 4)),
    })
    position = next
  }
  return parts
}
