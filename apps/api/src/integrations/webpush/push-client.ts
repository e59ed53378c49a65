import webpush from 'web-push'

/**
 * Sends one Web Push message (RFC 8030) through the subscriber's push service. The `web-push` library
 * encrypts the payload for the subscriber's keys (RFC 8291, aes128gcm) and signs the VAPID JWT (RFC
 * 8292); the request itself goes out with fetch, which keeps connections to each push service open
 * (web-push's own sender opens one HTTPS request at a time and speaks no plain HTTP, which the
 * emulator's push service uses offline).
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

export function createPushClient(vapid: VapidKeys, options: { timeoutMs: number }): PushClient {
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
      let response: Response
      try {
        response = await fetch(details.endpoint, {
          method: details.method,
          headers: Object.fromEntries(
            Object.entries(details.headers).map(([name, value]) => [name, String(value)]),
          ),
          body: details.body ? new Uint8Array(details.body) : null,
          signal: AbortSignal.timeout(options.timeoutMs),
        })
      } catch (error) {
        return {
          status: 'retry',
          httpStatus: null,
          retryAfterSeconds: null,
          reason: error instanceof Error ? error.message : String(error),
        }
      }
      const status = response.status
      // The body says why (push services answer in text or JSON); read it so the connection is reused.
      const text = (await response.text().catch(() => '')).slice(0, 300)
      if (status >= 200 && status < 300) return { status: 'sent' }
      if (status === 404 || status === 410) return { status: 'gone', httpStatus: status }
      if (status === 429 || status >= 500) {
        const retryAfter = Number(response.headers.get('retry-after'))
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
