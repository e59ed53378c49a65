import http from 'node:http'

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
