import http from 'node:http'
import https from 'node:https'
import webpush from 'web-push'

/**
 * Sends one Web Push message (RFC 8030) through the subscriber's push service. The `web-push` library
 * encrypts the payload for the subscriber's keys (RFC 8291, aes128gcm) and signs the VAPID JWT (RFC
 * 8292); the request itself goes out on Node's HTTP client with keep-alive agents, which keep
 * connections to each push service open and speak plain HTTP to the emulator's push service offline
 * (web-push's own sender opens a new HTTPS connection per push). Not fetch: its streams, abort signals
 * and request objects cost about half a millisecond of CPU a push, as much as the encryption (decision
 * 023). Redirects are not followed: a push goes only to the endpoint the subscription named.
 */

export interface VapidKeys {
  publicKey: string
  privateKey: string
  /** Who runs this server, for the push service (a mailto: or https: URL). */
  subject: string
}

export interface PushTarget {
  endpoint: string
  keys: { p256dh: string; auth: string }
}

export type PushOutcome =
  | { status: 'sent' }
  /** 404/410: the subscription is gone for good (the member unsubscribed, the browser dropped it). */
  | { status: 'gone'; httpStatus: number }
  /** 429 or 5xx, or no answer: try again later (`retryAfterSeconds` when the service said so). */
  | { status: 'retry'; httpStatus: number | null; retryAfterSeconds: number | null; reason: string }
  /** Any other refusal (400, 403, 413): sending the same again would fail the same way. */
  | { status: 'rejected'; httpStatus: number; reason: string }

export interface PushClient {
  readonly publicKey: string
  send(
    target: PushTarget,
    payload: string,
    options: { topic: string; ttlSeconds: number; urgency: 'normal' | 'high' },
  ): Promise<PushOutcome>
}

/** A VAPID JWT is valid for 12 hours; one is signed per push service and reused for an hour. */
const VAPID_TOKEN_SECONDS = 12 * 3600
const VAPID_REUSE_MS = 3600_000

/** The push service's answer: its status, a retry-after it may give, and the start of its body. */
interface Answer {
  status: number
  retryAfter: string | undefined
  text: string
}

/** Idle connections are closed before a push service would (Node's servers close them after 5 s). */
const IDLE_SOCKET_MS = 4_000

export function createPushClient(vapid: VapidKeys, options: { timeoutMs: number }): PushClient {
  const agents = {
    'http:': new http.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' }),
    'https:': new https.Agent({ keepAlive: true, timeout: IDLE_SOCKET_MS, scheduling: 'lifo' }),
  }
  /** One POST, answered in full (the body is read so the connection is reused) or failed. */
  const post = (endpoint: string, headers: Record<string, string | number>, body: Buffer) =>
    new Promise<Answer>((resolve, reject) => {
      const url = new URL(endpoint)
      const secure = url.protocol === 'https:'
      const request = (secure ? https : http).request(
        url,
        { method: 'POST', headers, agent: agents[secure ? 'https:' : 'http:'] },
        (response) => {
          const chunks: Buffer[] = []
          let length = 0
          response.on('data', (chunk: Buffer) => {
            if (length < 300) chunks.push(chunk)
            length += chunk.length
          })
          response.on('end', () => {
            clearTimeout(timer)
            const retryAfter = response.headers['retry-after']
            resolve({
              status: response.statusCode ?? 0,
              retryAfter: Array.isArray(retryAfter) ? retryAfter[0] : retryAfter,
              text: Buffer.concat(chunks).toString('utf8').slice(0, 300),
            })
          })
          response.on('error', fail)
          // Cut off mid-answer: no 'end' comes (a settled promise ignores this).
          response.on('close', () => fail(new Error('the push service closed the connection mid-answer')))
        },
      )
      const timer = setTimeout(
        () => request.destroy(new Error(`no answer within ${options.timeoutMs} ms`)),
        options.timeoutMs,
      )
      function fail(error: Error) {
        clearTimeout(timer)
        reject(error)
      }
      request.on('error', fail)
      request.end(body)
    })

  /** The Authorization header per push service origin (the JWT's audience), signed once an hour. */
  const authorization = new Map<string, { header: string; until: number }>()
  const authorizationFor = (endpoint: string) => {
    const audience = new URL(endpoint).origin
    const now = Date.now()
    const cached = authorization.get(audience)
    if (cached && cached.until > now) return cached.header
    const { Authorization } = webpush.getVapidHeaders(
      audience,
      vapid.subject,
      vapid.publicKey,
      vapid.privateKey,
      'aes128gcm',
      Math.floor(now / 1000) + VAPID_TOKEN_SECONDS,
    )
    authorization.set(audience, { header: Authorization, until: now + VAPID_REUSE_MS })
    return Authorization
  }
  // Checks the keys and the subject once, at start, rather than on the first send.
  authorizationFor('https://fcm.googleapis.com')
  return {
    publicKey: vapid.publicKey,
    async send(target, payload, { topic, ttlSeconds, urgency }) {
      // Encrypted for the subscriber by web-push; signed with the cached VAPID header (no per-push JWT).
      const details = webpush.generateRequestDetails(target, payload, {
        TTL: ttlSeconds,
        urgency,
        topic,
        contentEncoding: 'aes128gcm',
        headers: { Authorization: authorizationFor(target.endpoint) },
      })
      let answer: Answer
      try {
        answer = await post(
          details.endpoint,
          details.headers as Record<string, string | number>,
          details.body,
        )
      } catch (error) {
        return {
          status: 'retry',
          httpStatus: null,
          retryAfterSeconds: null,
          reason: error instanceof Error ? error.message : String(error),
        }
      }
      const { status, text } = answer
      if (status >= 200 && status < 300) return { status: 'sent' }
      if (status === 404 || status === 410) return { status: 'gone', httpStatus: status }
      if (status === 429 || status >= 500) {
        const retryAfter = Number(answer.retryAfter)
        return {
          status: 'retry',
          httpStatus: status,
          retryAfterSeconds: Number.isFinite(retryAfter) && retryAfter > 0 ? retryAfter : null,
          reason: `push service answered ${status}${text ? `: ${text}` : ''}`,
        }
      }
      return { status: 'rejected', httpStatus: status, reason: `push service answered ${status}: ${text}` }
    },
  }
}

/** A new VAPID key pair (P-256; base64url, as browsers take the public key). */
export function generateVapidKeys(): { publicKey: string; privateKey: string } {
  return webpush.generateVAPIDKeys()
}
