import {
  categoryGranted,
  PUSH_DEVICES_PER_MEMBER,
  PUSH_KINDS,
  type PushKind,
  type PushPayload,
  type PushPreferences,
  type PushSettings,
  type PushSubscriptionInput,
  pushMessages,
  type SignalView,
  signalAnnouncement,
  signalPath,
} from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { PushClient } from '../../integrations/webpush/push-client'
import { badRequest, notFound } from '../../lib/errors'
import type { Jobs } from '../../queue/job-runner'
import type { PushRepository } from './push-repository'

/** The browsers' own push services (https only): Chrome/Edge (FCM), Firefox, Safari, Windows. */
const KNOWN_PUSH_HOSTS = [
  'fcm.googleapis.com',
  'push.services.mozilla.com',
  'push.apple.com',
  'notify.windows.com',
]

/** A ledger entry's announcement: which kind of notification it is, for which sport, and its words. */
export interface PushableEntry {
  type: 'publish' | 'settle' | 'void'
  signal: SignalView
}

/** A pick loses its value within minutes of its post; a result is still news the next day. */
const TTL_SECONDS = { publish: 3600, result: 86_400 }

const BODY_LIMIT = 300

function kindOf(entry: PushableEntry): PushKind {
  if (entry.type !== 'publish') return 'results'
  return entry.signal.kind === 'pick' ? 'picks' : 'signals'
}

/** Whether a subscription's choices include this entry (sports narrow picks and their results only). */
function wants(preferences: { kinds: string[]; sports: string[] }, entry: PushableEntry): boolean {
  if (!preferences.kinds.includes(kindOf(entry))) return false
  if (entry.signal.kind !== 'pick' || preferences.sports.length === 0) return true
  return preferences.sports.some((sport) => sport.toLowerCase() === entry.signal.category.toLowerCase())
}

/**
 * Collects the ids asked about in the same turn of the event loop and reads them all at once: the
 * sends running together cost one question, and each answer is as of its send.
 */
function batched<V>(
  read: (ids: readonly string[]) => Promise<Map<string, V>>,
): (id: string) => Promise<V | undefined> {
  let pending: { ids: Set<string>; answer: Promise<Map<string, V>> } | null = null
  return (id) => {
    if (!pending) {
      const ids = new Set<string>()
      const answer = new Promise<void>((resolve) => setImmediate(resolve)).then(() => {
        pending = null
        return read([...ids])
      })
      pending = { ids, answer }
    }
    pending.ids.add(id)
    return pending.answer.then((found) => found.get(id))
  }
}

/**
 * Web push (decision 023): members' subscriptions and choices, and each ledger step's delivery. A
 * publication or result is fanned out to one keyed job per subscription (push-jobs.ts), so a crash or
 * a retry never queues a subscription twice; each send checks access and choices as they are then.
 */
export function createPushService(deps: {
  repo: PushRepository
  jobs: Pick<Jobs, 'enqueueMany'>
  /** Absent: no VAPID keys yet (the server is starting) — never in a running server. */
  client: PushClient
  /** Push services beyond the browsers' own (the emulator's, offline): origins. */
  serviceOrigins: readonly string[]
  /** The signal categories each member receives now, by the access rule (absent: no access). */
  categoriesFor: (userIds: readonly string[]) => Promise<Map<string, 'all' | string[]>>
  /** A ledger entry with its signal as members with access see it (undefined when either is gone). */
  loadEntry: (seq: number) => Promise<PushableEntry | undefined>
  appOrigin: string
  log: FastifyBaseLogger
}) {
  const { repo } = deps
  const accessOf = batched(deps.categoriesFor)
  const subscriptionOf = batched(async (ids) => {
    const rows = await repo.findForSend(ids)
    return new Map(rows.map((row) => [row.id, row]))
  })

  function allowedEndpoint(endpoint: string): boolean {
    if (!URL.canParse(endpoint)) return false
    const url = new URL(endpoint)
    if (deps.serviceOrigins.includes(url.origin)) return true
    return (
      url.protocol === 'https:' &&
      url.username === '' &&
      KNOWN_PUSH_HOSTS.some((host) => url.hostname === host || url.hostname.endsWith(`.${host}`))
    )
  }

  async function settingsOf(userId: string): Promise<PushSettings> {
    const rows = await repo.listForUser(userId)
    const newest = rows[0]
    return {
      kinds: newest ? newest.kinds : [...PUSH_KINDS],
      sports: newest ? (newest.sports as PushSettings['sports']) : [],
      devices: rows.length,
    }
  }

  /** The entries' payloads, made once per entry (a publication goes to thousands of subscriptions). */
  const payloads = new Map<number, Promise<{ entry: PushableEntry; payload: PushPayload } | undefined>>()
  function payloadOf(seq: number) {
    let found = payloads.get(seq)
    if (!found) {
      found = deps
        .loadEntry(seq)
        .then((entry) => (entry ? { entry, payload: compose(seq, entry) } : undefined))
      found.catch(() => payloads.delete(seq))
      payloads.set(seq, found)
      // The few latest entries are enough: sends of one entry run together.
      if (payloads.size > 32) payloads.delete(payloads.keys().next().value as number)
    }
    return found
  }

  function compose(seq: number, { type, signal }: PushableEntry): PushPayload {
    const words = signalAnnouncement(type, signal, 'discord')
    const commitment = `Commitment ${signal.commitment.slice(0, 16)}…`
    const body =
      type === 'publish'
        ? [words.details, commitment].filter(Boolean).join('\n')
        : `${words.headline}\n${commitment}`
    return {
      title: type === 'publish' ? words.headline : 'Result',
      body: body.length > BODY_LIMIT ? `${body.slice(0, BODY_LIMIT - 1)}…` : body,
      url: `${deps.appOrigin}${signalPath(signal.id)}`,
      tag: `${signal.id}:${type === 'publish' ? 'publish' : 'result'}`,
      commitment: signal.commitment,
      signalId: signal.id,
      seq,
      type,
    }
  }

  return {
    publicKey: () => deps.client.publicKey,

    /** POST /push/subscriptions: this browser notifies its member from now on, with these choices. */
    async subscribe(
      user: { id: string },
      subscription: PushSubscriptionInput,
      preferences: PushPreferences | undefined,
    ): Promise<PushSettings> {
      if (!allowedEndpoint(subscription.endpoint))
        throw badRequest(pushMessages.endpointNotAllowed, [
          { field: 'subscription.endpoint', message: pushMessages.endpointNotAllowed },
        ])
      // A new device takes the member's choices so far unless it brings its own.
      const chosen = preferences ?? (await settingsOf(user.id))
      await repo.transaction(async (trx) => {
        await repo.upsert(
          {
            userId: user.id,
            endpoint: subscription.endpoint,
            p256dh: subscription.keys.p256dh,
            auth: subscription.keys.auth,
            kinds: [...new Set(chosen.kinds)],
            sports: [...new Set(chosen.sports)],
          },
          trx,
        )
        // Choices are the member's, on every device alike.
        await repo.setPreferences(user.id, [...new Set(chosen.kinds)], [...new Set(chosen.sports)], trx)
        const rows = await repo.listForUser(user.id, trx)
        await repo.deleteByIds(
          rows.slice(PUSH_DEVICES_PER_MEMBER).map((row) => row.id),
          trx,
        )
      })
      return settingsOf(user.id)
    },

    /** DELETE /push/subscriptions: this browser stops notifying. */
    async unsubscribe(user: { id: string }, endpoint: string): Promise<PushSettings> {
      if (!(await repo.deleteByEndpoint(user.id, endpoint))) throw notFound(pushMessages.notSubscribed)
      return settingsOf(user.id)
    },

    settings: (user: { id: string }) => settingsOf(user.id),

    /** PUT /push/preferences: the member's choices, for every device with notifications on. */
    async setPreferences(user: { id: string }, preferences: PushPreferences): Promise<PushSettings> {
      await repo.setPreferences(user.id, [...new Set(preferences.kinds)], [...new Set(preferences.sports)])
      const settings = await settingsOf(user.id)
      return settings.devices === 0 ? { ...settings, ...preferences } : settings
    },

    /**
     * One ledger step to every subscription that asked for it, of members whose plans grant the
     * signal's category now: one keyed job each, queued together, and the senders woken.
     */
    async fanOut(seq: number): Promise<number> {
      const loaded = await payloadOf(seq)
      if (!loaded) return 0
      const { entry } = loaded
      const audience = await repo.listAudience(
        kindOf(entry),
        entry.signal.kind === 'pick' ? entry.signal.category : null,
      )
      const granted = await deps.categoriesFor([...new Set(audience.map((row) => row.user_id))])
      const targets = audience.filter((row) => {
        const categories = granted.get(row.user_id)
        return categories !== undefined && categoryGranted(categories, entry.signal.category)
      })
      await repo.transaction(async (trx) => {
        await deps.jobs.enqueueMany(
          'push.send',
          targets.map((row) => ({ key: `push:${seq}:${row.id}`, data: { seq, subscriptionId: row.id } })),
          { trx },
        )
        await repo.notifySenders(trx)
      })
      return targets.length
    },

    /**
     * One notification to one subscription, if it is still there, its member still has access to the
     * signal's category and still wants it. Gone at the push service (404/410): the subscription goes.
     * A refusal that a retry would repeat is logged and dropped; anything else throws (retried).
     */
    async send(seq: number, subscriptionId: string): Promise<'sent' | 'skipped' | 'gone' | 'rejected'> {
      const [subscription, loaded] = await Promise.all([subscriptionOf(subscriptionId), payloadOf(seq)])
      if (!subscription || !loaded || subscription.disabled_at) return 'skipped'
      const { entry, payload } = loaded
      if (!wants(subscription, entry)) return 'skipped'
      const categories = await accessOf(subscription.user_id)
      if (categories === undefined || !categoryGranted(categories, entry.signal.category)) return 'skipped'
      const outcome = await deps.client.send(
        { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
        JSON.stringify(payload),
        {
          // A repeat of this step (a retry after a crash) replaces the undelivered one at the push
          // service (RFC 8030 topics) and the shown one on the device (the notification's tag).
          topic: `seq${seq}`,
          ttlSeconds: entry.type === 'publish' ? TTL_SECONDS.publish : TTL_SECONDS.result,
          urgency: entry.type === 'publish' ? 'high' : 'normal',
        },
      )
      if (outcome.status === 'sent') return 'sent'
      if (outcome.status === 'gone') {
        await repo.deleteGone(subscription.id, subscription.endpoint)
        deps.log.info(
          { subscriptionId: subscription.id, httpStatus: outcome.httpStatus },
          'push subscription gone; removed',
        )
        return 'gone'
      }
      if (outcome.status === 'rejected') {
        deps.log.warn(
          { subscriptionId: subscription.id, httpStatus: outcome.httpStatus, reason: outcome.reason },
          'push service refused a notification; not retried',
        )
        return 'rejected'
      }
      throw new Error(outcome.reason)
    },
  }
}
export type PushService = ReturnType<typeof createPushService>
