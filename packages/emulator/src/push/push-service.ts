import { randomUUID } from 'node:crypto'
import { type Router, sendJson, sendText } from '../http'
import {
  checkVapid,
  decryptAes128gcm,
  newSubscriberKeys,
  type SubscriberKeys,
  type VapidCheck,
} from './web-push-crypto'

/**
 * A Web Push service (RFC 8030) standing in for the browsers' own (FCM, Mozilla's, Apple's) offline.
 * It hands out subscriptions (an endpoint here and the subscriber's keys), accepts pushes to them as a
 * real service does — VAPID-signed (RFC 8292), aes128gcm-encrypted, with a TTL — and keeps them: a
 * push with the Topic of one still kept replaces it (RFC 8030 §5.4). Subscriptions it was told are
 * gone answer 410; faults (429, 5xx) can be queued. People read what arrived at /push.
 */

export interface ReceivedPush {
  id: number
  subscriptionId: string
  receivedAt: string
  ttl: number
  urgency: string
  topic: string | null
  /** The encrypted body as sent, base64. */
  body: string
  /** The VAPID public key that signed it. */
  vapidKey: string
  /** The payload, when this service has the subscriber's private key (subscriptions it made). */
  payload: string | null
}

export interface PushSubscriptionRecord {
  id: string
  endpoint: string
  keys: { p256dh: string; auth: string }
  /** Only for subscriptions this service made the keys of: it can read their pushes (the demo). */
  privateKey: string | null
  /** The server key this subscription is for (the browser's applicationServerKey), if given. */
  applicationServerKey: string | null
  gone: boolean
  label: string
}

export interface PushServiceControl {
  /** A new subscription at this service; with `keys`, for a subscriber that keeps its private key. */
  subscribe(options?: {
    keys?: { p256dh: string; auth: string }
    applicationServerKey?: string
    label?: string
  }): PushSubscriptionRecord
  /** From now on pushes to it answer 410 Gone (the subscriber went away). */
  markGone(id: string): void
  /** The next `count` pushes (to any subscription) answer `status` (429, 500, 503 ...). */
  fail(status: number, count: number, retryAfterSeconds?: number): void
  /** Every push is answered this much later (a slow push service; 0: at once). */
  setLatency(ms: number): void
  /** Kept pushes, oldest first (a replaced one is gone). */
  messages(subscriptionId?: string): ReceivedPush[]
  /** Every push accepted, replaced ones included, and how many replaced a kept one. */
  counts(): { accepted: number; replaced: number; rejected: number }
  clear(): void
}

const escapeHtml = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')

/** The largest push body a service must accept (RFC 8030 §7.2). */
const MAX_BODY = 4096

export function mountPushService(router: Router, origin: () => string): PushServiceControl {
  const subscriptions = new Map<string, PushSubscriptionRecord>()
  /** Kept pushes in arrival order, by subscription and topic (a push without a topic by its id). */
  const kept = new Map<string, ReceivedPush>()
  const faults: { status: number; retryAfter?: number }[] = []
  let nextId = 1
  const counts = { accepted: 0, replaced: 0, rejected: 0 }
  let latencyMs = 0

  const control: PushServiceControl = {
    subscribe(options = {}) {
      const id = randomUUID()
      const made: SubscriberKeys | null = options.keys ? null : newSubscriberKeys()
      const record: PushSubscriptionRecord = {
        id,
        endpoint: `${origin()}/push/send/${id}`,
        keys: options.keys ?? { p256dh: made!.p256dh, auth: made!.auth },
        privateKey: made?.privateKey ?? null,
        applicationServerKey: options.applicationServerKey ?? null,
        gone: false,
        label: options.label ?? `device ${subscriptions.size + 1}`,
      }
      subscriptions.set(id, record)
      return record
    },
    markGone(id) {
      const record = subscriptions.get(id)
      if (record) record.gone = true
    },
    fail(status, count, retryAfterSeconds) {
      for (let i = 0; i < count; i++) faults.push({ status, retryAfter: retryAfterSeconds })
    },
    setLatency(ms) {
      latencyMs = ms
    },
    messages: (subscriptionId) =>
      subscriptionId
        ? [...kept.values()].filter((push) => push.subscriptionId === subscriptionId)
        : [...kept.values()],
    counts: () => ({ ...counts }),
    clear() {
      kept.clear()
      faults.length = 0
      counts.accepted = 0
      counts.replaced = 0
      counts.rejected = 0
    },
  }

  // A sender signs one VAPID JWT and sends it with thousands of pushes: its signature is verified once
  // (a push service does the same), and the time-bound checks still run on every push.
  const verified = new Map<string, { publicKey: string; subject: string; expiresAt: number }>()
  const vapidOf = (header: string | undefined, nowSeconds: number): VapidCheck => {
    const known = header === undefined ? undefined : verified.get(header)
    if (known) {
      if (known.expiresAt <= nowSeconds) return { ok: false, reason: 'JWT expired' }
      if (known.expiresAt > nowSeconds + 24 * 3600)
        return { ok: false, reason: 'JWT exp more than 24 hours ahead' }
      return { ok: true, ...known }
    }
    const check = checkVapid(header, origin(), nowSeconds)
    if (check.ok && header !== undefined) {
      if (verified.size >= 100) verified.delete(verified.keys().next().value as string)
      verified.set(header, { publicKey: check.publicKey, subject: check.subject, expiresAt: check.expiresAt })
    }
    return check
  }

  const refuse = (res: Parameters<typeof sendJson>[0], status: number, reason: string) => {
    counts.rejected += 1
    sendJson(res, status, { code: status, error: reason })
  }

  // The push endpoint (what the app's server sends to).
  router.on('POST', '/push/send/:id', async ({ req, res, params, rawBody }) => {
    if (latencyMs > 0) await new Promise((resolve) => setTimeout(resolve, latencyMs))
    const record = subscriptions.get(params.id!)
    if (!record) return refuse(res, 404, 'no such subscription')
    const fault = faults.shift()
    if (fault)
      return sendJson(
        res,
        fault.status,
        { code: fault.status, error: 'fault injected by the emulator' },
        fault.retryAfter ? { 'retry-after': String(fault.retryAfter) } : {},
      )
    if (record.gone) return refuse(res, 410, 'subscription expired or unsubscribed')
    const vapid = vapidOf(req.headers.authorization, Math.floor(Date.now() / 1000))
    if (!vapid.ok) return refuse(res, 403, vapid.reason)
    if (record.applicationServerKey && vapid.publicKey !== record.applicationServerKey)
      return refuse(res, 403, 'signed with a key other than the subscription was made for')
    const ttl = Number(req.headers.ttl)
    if (req.headers.ttl === undefined || !Number.isInteger(ttl) || ttl < 0)
      return refuse(res, 400, 'a TTL header is required')
    if (rawBody.length > MAX_BODY) return refuse(res, 413, 'payload too large')
    if (rawBody.length > 0 && req.headers['content-encoding'] !== 'aes128gcm')
      return refuse(res, 415, 'Content-Encoding must be aes128gcm')
    const topic = typeof req.headers.topic === 'string' ? req.headers.topic : null
    if (topic !== null && !/^[A-Za-z0-9_-]{1,32}$/.test(topic))
      return refuse(res, 400, 'Topic must be at most 32 base64url characters')
    let payload: string | null = null
    if (record.privateKey && rawBody.length > 0) {
      try {
        payload = decryptAes128gcm(rawBody, { ...record.keys, privateKey: record.privateKey })
      } catch (error) {
        return refuse(res, 400, `the payload does not decrypt: ${(error as Error).message}`)
      }
    }
    const push: ReceivedPush = {
      id: nextId++,
      subscriptionId: record.id,
      receivedAt: new Date().toISOString(),
      ttl,
      urgency: typeof req.headers.urgency === 'string' ? req.headers.urgency : 'normal',
      topic,
      body: rawBody.toString('base64'),
      vapidKey: vapid.publicKey,
      payload,
    }
    counts.accepted += 1
    const slot = topic === null ? `#${push.id}` : `${record.id}\n${topic}`
    if (kept.delete(slot)) counts.replaced += 1
    kept.set(slot, push)
    sendJson(res, 201, {}, { location: `${origin()}/push/messages/${push.id}` })
  })

  // What a browser's PushManager.subscribe() does with its push service, for a page on another origin
  // (the dashboard, configured with PUSH_STANDIN_URL): a new subscription for that server key. This
  // service holds the subscriber's keys, so the demo can read what arrives.
  const cors = {
    'access-control-allow-origin': '*',
    'access-control-allow-methods': 'POST',
    'access-control-allow-headers': 'content-type',
  }
  router.on('OPTIONS', '/push/subscribe', ({ res }) => {
    res.writeHead(204, cors)
    res.end()
  })
  router.on('POST', '/push/subscribe', ({ res, rawBody }) => {
    let body: { applicationServerKey?: unknown; label?: unknown } = {}
    try {
      body = JSON.parse(rawBody.toString('utf8') || '{}')
    } catch {
      return sendJson(res, 400, { error: 'the body is not JSON' }, cors)
    }
    if (
      typeof body.applicationServerKey !== 'string' ||
      !/^[A-Za-z0-9_-]{86,88}$/.test(body.applicationServerKey)
    )
      return sendJson(res, 400, { error: 'applicationServerKey must be a base64url P-256 public key' }, cors)
    const record = control.subscribe({
      applicationServerKey: body.applicationServerKey,
      label: typeof body.label === 'string' ? body.label.slice(0, 80) : undefined,
    })
    sendJson(res, 201, { id: record.id, endpoint: record.endpoint, keys: record.keys }, cors)
  })

  // Controls for tests, benchmarks and the demo.
  router.on('POST', '/_control/push/subscriptions', ({ res, rawBody }) => {
    const body = rawBody.length
      ? (JSON.parse(rawBody.toString('utf8')) as Parameters<typeof control.subscribe>[0])
      : {}
    const record = control.subscribe(body)
    sendJson(res, 200, record)
  })
  router.on('POST', '/_control/push/subscriptions/:id/gone', ({ res, params }) => {
    if (!subscriptions.has(params.id!)) return sendJson(res, 404, { error: 'no such subscription' })
    control.markGone(params.id!)
    sendJson(res, 200, { ok: true })
  })
  router.on('POST', '/_control/push/faults', ({ res, rawBody }) => {
    const body = JSON.parse(rawBody.toString('utf8') || '{}') as {
      status?: number
      count?: number
      retryAfter?: number
      latencyMs?: number
    }
    if (body.latencyMs !== undefined) control.setLatency(body.latencyMs)
    else control.fail(body.status ?? 503, body.count ?? 1, body.retryAfter)
    sendJson(res, 200, { ok: true })
  })
  router.on('GET', '/_control/push/messages', ({ res, url }) => {
    sendJson(res, 200, {
      messages: control.messages(url.searchParams.get('subscription') ?? undefined),
      counts: control.counts(),
    })
  })
  router.on('DELETE', '/_control/push/messages', ({ res }) => {
    control.clear()
    sendJson(res, 200, { ok: true })
  })

  // What a person sees: the notifications that arrived, newest first, as a device would show them.
  router.on('GET', '/push', ({ res }) => {
    const rows = [...kept.values()]
      .reverse()
      .slice(0, 200)
      .map((push) => {
        const device = subscriptions.get(push.subscriptionId)
        let shown = '<em>encrypted (this service does not hold the subscriber’s key)</em>'
        if (push.payload !== null) {
          try {
            const data = JSON.parse(push.payload) as { title?: string; body?: string; url?: string }
            shown = `<strong>${escapeHtml(data.title ?? '')}</strong><br><span style="white-space:pre-line">${escapeHtml(data.body ?? '')}</span>${data.url ? `<br><a href="${escapeHtml(data.url)}">${escapeHtml(data.url)}</a>` : ''}`
          } catch {
            shown = escapeHtml(push.payload)
          }
        }
        return `<li><p>${shown}</p><small>to ${escapeHtml(device?.label ?? push.subscriptionId)} · ${escapeHtml(push.receivedAt)} · urgency ${escapeHtml(push.urgency)} · TTL ${push.ttl} s</small></li>`
      })
      .join('')
    sendText(
      res,
      200,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><meta http-equiv="refresh" content="2"><title>Emulator push service</title></head><body><h1>Push notifications</h1><p>Every push EdgeClub sent through the emulator's push service in this run (newest first; the page refreshes itself). ${counts.accepted} accepted, ${counts.replaced} replaced by a later push with the same topic, ${counts.rejected} refused.</p><ul>${rows || '<li>No notifications yet.</li>'}</ul></body></html>`,
      'text/html; charset=utf-8',
    )
  })

  return control
}
