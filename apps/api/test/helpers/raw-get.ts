import http from 'node:http'
import type net from 'node:net'

/** An answer read off a real connection, in the shape of Fastify's inject answers. */
export interface RawAnswer {
  statusCode: number
  headers: http.IncomingHttpHeaders
  rawPayload: Buffer
  body: string
  // biome-ignore lint/suspicious/noExplicitAny: the same loose JSON reader as inject's answers
  json: <T = any>() => T
}

/**
 * A GET over a real connection (what a browser gets, through the server's request listener), with the
 * path sent exactly as given: no URL parser normalizes it, and the body is not decompressed.
 */
export function rawGet(
  origin: string,
  path: string,
  headers: Record<string, string> = {},
): Promise<RawAnswer> {
  const { hostname, port } = new URL(origin)
  return new Promise((resolve, reject) => {
    http
      .get({ host: hostname, port, path, headers }, (response) => {
        const chunks: Buffer[] = []
        response.on('data', (chunk: Buffer) => chunks.push(chunk))
        response.on('end', () => {
          const rawPayload = Buffer.concat(chunks)
          const body = rawPayload.toString()
          resolve({
            statusCode: response.statusCode ?? 0,
            headers: response.headers,
            rawPayload,
            body,
            json: () => JSON.parse(body),
          })
        })
        response.on('error', reject)
      })
      .on('error', reject)
  })
}

/** The status and headers (names in lower case) of an answer's head: the text before its blank line. */
export function parseHead(head: string): { status: number; headers: Record<string, string> } {
  const [statusLine = '', ...lines] = head.split('\r\n')
  const headers = Object.fromEntries(
    lines.map((line) => {
      const colon = line.indexOf(':')
      return [line.slice(0, colon).trim().toLowerCase(), line.slice(colon + 1).trim()]
    }),
  )
  return { status: Number(statusLine.split(' ')[1]), headers }
}

/** Reads HTTP/1.1 answers (Content-Length framed) off one raw connection, in order. */
export function rawAnswers(socket: net.Socket) {
  let buffered = Buffer.alloc(0)
  let ended = false
  const waiting: (() => void)[] = []
  const wake = () => {
    for (const resolve of waiting.splice(0)) resolve()
  }
  socket.on('data', (chunk: Buffer) => {
    buffered = Buffer.concat([buffered, chunk])
    wake()
  })
  socket.on('close', () => {
    ended = true
    wake()
  })
  return {
    /** The next whole answer; throws when the connection closes first. */
    async next(): Promise<{ status: number; headers: Record<string, string>; body: string }> {
      for (;;) {
        const headEnd = buffered.indexOf('\r\n\r\n')
        if (headEnd >= 0) {
          const head = parseHead(buffered.subarray(0, headEnd).toString())
          const end = headEnd + 4 + Number(head.headers['content-length'] ?? 0)
          if (buffered.length >= end) {
            const body = buffered.subarray(headEnd + 4, end).toString()
            buffered = buffered.subarray(end)
            return { ...head, body }
          }
        }
        if (ended) throw new Error('the connection closed before a whole answer arrived')
        await new Promise<void>((resolve) => waiting.push(resolve))
      }
    },
    /** Resolves once the server has closed the connection. */
    async closed(): Promise<void> {
      while (!ended) await new Promise<void>((resolve) => waiting.push(resolve))
    },
  }
}
