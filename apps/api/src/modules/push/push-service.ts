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
import { type Jobs, RetryLater } from '../../queue/job-runner'
import type { PushRepository, PushSendRow } from './push-repository'

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

/** Subscriptions per `push.send` job: a pick to 15,000 devices is 60 jobs, not 15,000. */
export const PUSH_BATCH = 250

/**
 * Sends in flight at once in this process, over all batches: also the most a killed process can leave
 * cut off (sent, not yet recorded), which go again under their topic and tag.
 */
export const PUSH_SENDS_IN_FLIGHT = 64

/** Subscriptions and their members' access are read this many at a time, right before they are sent. */
const READ_AHEAD = 64

/** At most `size` holders at once; the others wait in order. */
function limiter(size: number) {
  let free = size
  const waiting: (() => void)[] = []
  return {
    async acquire(): Promise<void> {
      if (free > 0) {
        free -= 1
        return
      }
      await new Promise<void>((resolve) => waiting.push(resolve))
    },
    release(): void {
      const next = waiting.shift()
      if (next) next()
      else free += 1
    },
  }
}

/**
 * Records keys in groups (one statement for many deliveries): each `add` resolves once its key is
 * written. A send keeps its slot until then, so deliveries not yet recorded never outnumber the slots.
 */
function groupRecorder(write: (keys: string[]) => Promise<void>, options: { max: number; waitMs: number }) {
  let keys: string[] = []
  let waiters: { resolve: () => void; reject: (error: unknown) => void }[] = []
  let timer: NodeJS.Timeout | null = null
  let writing = false
  const flush = () => {
    if (timer) clearTimeout(timer)
    timer = null
    if (writing || keys.length === 0) return
    const batch = keys
    const told = waiters
    keys = []
    waiters = []
    writing = true
    write(batch)
      .then(
        () => {
          for (const waiter of told) waiter.resolve()
        },
        (error: unknown) => {
          for (const waiter of told) waiter.reject(error)
        },
      )
      .finally(() => {
        writing = false
        schedule()
      })
  }
  const schedule = () => {
    if (writing || keys.length === 0) return
    if (keys.length >= options.max) flush()
    else timer ??= setTimeout(flush, options.waitMs)
  }
  return (key: string) =>
    new Promise<void>((resolve, reject) => {
      keys.push(key)
      waiters.push({ resolve, reject })
      schedule()
    })
}

/** What a batch's job gives its sends (JobContext): recorded effects, and whether it is the last try. */
export interface PushBatchJob {
  effects: { done(keys: string[]): Promise<Set<string>>; record(keys: string[]): Promise<void> }
  lastAttempt: boolean
  /** Sends start only this long after the batch did; the rest is left to the next try. */
  budgetMs: number
}

export type PushOutcomeCount = Record<'sent' | 'skipped' | 'gone' | 'rejected' | 'retry', number>

/**
 * Web push (decision 023): members' subscriptions and choices, and each ledger step's delivery. A
 * publication or result is fanned out to keyed batch jobs of subscriptions (push-jobs.ts); each
 * delivery is recorded under its own key, so a crash or a retry never notifies a subscription twice
 * (beyond the sends in flight at a crash, replaced by topic and tag); each send checks access and
 * choices as they are then.
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
  const slots = limiter(PUSH_SENDS_IN_FLIGHT)

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
     * signal's category now: keyed batch jobs of PUSH_BATCH subscriptions, queued together, and the
     * senders woken.
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
      const batches: { key: string; data: { seq: number; subscriptionIds: string[] } }[] = []
      for (let start = 0; start < targets.length; start += PUSH_BATCH)
        batches.push({
          key: `push:${seq}:${batches.length}`,
          data: { seq, subscriptionIds: targets.slice(start, start + PUSH_BATCH).map((row) => row.id) },
        })
      await repo.transaction(async (trx) => {
        await deps.jobs.enqueueMany('push.send', batches, { trx })
        await repo.notifySenders(trx)
      })
      return targets.length
    },

    /**
     * One ledger step to a batch of subscriptions, each one that is still there, whose member still
     * has access to the signal's category and still wants it (read right before it is sent). Each
     * delivery is recorded under `push:<seq>:<subscription>` before its slot is freed, and a
     * subscription recorded is not sent to again. Gone at the push service (404/410): the subscription
     * goes. A refusal that a retry would repeat is logged and dropped. What the push service asked to
     * have again (429, 5xx, no answer) throws at the end, and the next try sends to those only, no
     * sooner than the longest Retry-After the service gave.
     */
    async sendBatch(seq: number, subscriptionIds: readonly string[], job: PushBatchJob) {
      const count: PushOutcomeCount = { sent: 0, skipped: 0, gone: 0, rejected: 0, retry: 0 }
      const loaded = await payloadOf(seq)
      if (!loaded) {
        count.skipped = subscriptionIds.length
        return count
      }
      const { entry, payload } = loaded
      const keyOf = (id: string) => `push:${seq}:${id}`
      const done = await job.effects.done(subscriptionIds.map(keyOf))
      const todo = subscriptionIds.filter((id) => !done.has(keyOf(id)))
      count.skipped = subscriptionIds.length - todo.length
      const body = JSON.stringify(payload)
      const options = {
        // A repeat of this step (a retry after a crash) replaces the undelivered one at the push
        // service (RFC 8030 topics) and the shown one on the device (the notification's tag).
        topic: `seq${seq}`,
        ttlSeconds: entry.type === 'publish' ? TTL_SECONDS.publish : TTL_SECONDS.result,
        urgency: entry.type === 'publish' ? ('high' as const) : ('normal' as const),
      }

      // Subscriptions and access as they are at send time: read READ_AHEAD at a time, the next group
      // while this one is sent.
      type Target = { subscription: PushSendRow; categories: 'all' | string[] | undefined }
      const groups = new Map<number, Promise<Map<string, Target>>>()
      const readGroup = (group: number) => {
        let found = groups.get(group)
        if (!found && group * READ_AHEAD < todo.length) {
          const ids = todo.slice(group * READ_AHEAD, (group + 1) * READ_AHEAD)
          found = repo.findForSend(ids).then(async (rows) => {
            const access = await deps.categoriesFor([...new Set(rows.map((row) => row.user_id))])
            return new Map(
              rows.map((row) => [row.id, { subscription: row, categories: access.get(row.user_id) }]),
            )
          })
          // A failed read fails the sends that wait on it (retried), not the process.
          found.catch(() => {})
          groups.set(group, found)
          groups.delete(group - 2)
        }
        return found
      }
      const targetOf = async (index: number) => {
        const group = Math.floor(index / READ_AHEAD)
        const found = readGroup(group)
        readGroup(group + 1)
        return (await found)?.get(todo[index]!)
      }

      const record = groupRecorder((keys) => job.effects.record(keys), { max: 32, waitMs: 5 })
      const retries: string[] = []
      /** The longest Retry-After the push service gave this batch (seconds; 0: none). */
      let waitAtLeast = 0
      const deadline = Date.now() + job.budgetMs
      let next = 0
      const sendOne = async (index: number) => {
        const target = await targetOf(index)
        if (!target) return 'skipped' as const
        const { subscription, categories } = target
        if (subscription.disabled_at || !wants(subscription, entry)) return 'skipped' as const
        if (categories === undefined || !categoryGranted(categories, entry.signal.category))
          return 'skipped' as const
        const outcome = await deps.client.send(
          { endpoint: subscription.endpoint, keys: { p256dh: subscription.p256dh, auth: subscription.auth } },
          body,
          options,
        )
        if (outcome.status === 'sent') {
          await record(keyOf(subscription.id))
          return 'sent' as const
        }
        if (outcome.status === 'gone') {
          await repo.deleteGone(subscription.id, subscription.endpoint)
          deps.log.info(
            { subscriptionId: subscription.id, httpStatus: outcome.httpStatus },
            'push subscription gone; removed',
          )
          return 'gone' as const
        }
        if (outcome.status === 'rejected') {
          deps.log.warn(
            { subscriptionId: subscription.id, httpStatus: outcome.httpStatus, reason: outcome.reason },
            'push service refused a notification; not retried',
          )
          await record(keyOf(subscription.id))
          return 'rejected' as const
        }
        retries.push(outcome.reason)
        if (outcome.retryAfterSeconds) waitAtLeast = Math.max(waitAtLeast, outcome.retryAfterSeconds)
        return 'retry' as const
      }
      const lane = async () => {
        while (next < todo.length && Date.now() < deadline) {
          const index = next++
          await slots.acquire()
          try {
            count[await sendOne(index)] += 1
          } catch (error) {
            // The database (a read, the record): the next try looks again, and sends again if need be.
            count.retry += 1
            retries.push(error instanceof Error ? error.message : String(error))
          } finally {
            slots.release()
          }
        }
      }
      await Promise.all(Array.from({ length: Math.min(PUSH_SENDS_IN_FLIGHT, todo.length) }, lane))
      const unstarted = todo.length - next
      if (count.retry > 0 || unstarted > 0) {
        const message =
          `${count.retry + unstarted} of ${subscriptionIds.length} notifications of seq ${seq} left for the next try` +
          (retries[0] ? ` (${count.retry} refused or failed, e.g. ${retries[0]})` : ' (out of time)') +
          (job.lastAttempt ? '; it was the last' : '')
        // A push service that said when to come back (429/503 with Retry-After) is not asked sooner.
        throw waitAtLeast > 0
          ? new RetryLater(`${message}; asked to wait ${waitAtLeast} s`, waitAtLeast)
          : new Error(message)
      }
      return count
    },
  }
}
export type PushService = ReturnType<typeof createPushService>
