import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { categoryGranted, type SignalEvent, type SignedHead } from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import { sql } from 'kysely'
import type { SignalLedgerRow } from '../../db/types'
import type { Clock } from '../../lib/clock'
import type { AccessListener } from '../subscriptions/access-service'
import { type Reader, toSignalView } from './signal-views'
import type { SignalsRepository } from './signals-repository'

/**
 * The channel on which instances tell each other about streams (NOTIFY): `open <user> <stream>` and
 * `close <user> <stream>` keep the per-member limit across instances; `access <user>` (sent by the
 * access service's change, at its commit) makes every instance look at that member's streams again.
 */
export const STREAMS_CHANNEL = 'signal_streams'

/** A reader of the live stream: who, which session, and the open response to write to. */
interface Listener {
  /** This stream's id, as announced to the other instances. */
  id: string
  userId: string
  sessionId: string
  staff: boolean
  /** Whether it was last given the members' view (access to some category, or staff); unknown until first looked at. */
  full?: boolean
  openedAt: number
  response: ServerResponse
  closeTimer: NodeJS.Timeout
  /** The last entry this reader saw before it reconnected (its Last-Event-ID), until caught up. */
  resumeAfter?: number
}

/** A member's access changed: every instance looks at their streams at the change's commit. */
export function streamsFollowAccess(): AccessListener {
  return async ({ userId }, trx) => {
    await sql`select pg_notify(${STREAMS_CHANNEL}, ${`access ${userId}`})`.execute(trx)
  }
}

const EVENT_OF = { publish: 'published', settle: 'settled', void: 'voided' } as const

/**
 * The live signal stream of one app instance (server-sent events). Every instance listens to the
 * ledger's NOTIFY channel, so a signal published on any instance reaches the members connected to
 * all of them. Delivery follows the ledger's sequence numbers: after a missed notification or a
 * lost database connection the hub catches up from the last entry it sent, so nothing is skipped.
 * Access is checked for every delivery, not only on connect: a member whose access lapsed gets the
 * public view, and a revoked session's stream is closed. Streams do not wait for a delivery to end,
 * either: a member who signs out, is disabled, changes role or loses access has their streams closed
 * as soon as any instance hears of it (`recheck`, from AUTH_CHANNEL and from `streamsFollowAccess`);
 * the client reconnects, if it still may, to what it may now see. A member has at most
 * `maxStreamsPerMember` streams across all instances: opening another closes their oldest.
 */
export function createSignalStream(deps: {
  repo: SignalsRepository
  /** The signed heads of the record at these sizes (each entry is delivered with its own). */
  headsAt: (sizes: number[]) => Promise<Map<number, SignedHead>>
  /** The signal categories each member receives now (absent: no access); the plans' places decide. */
  categoriesFor: (userIds: readonly string[]) => Promise<Map<string, 'all' | string[]>>
  clock: Clock
  log: FastifyBaseLogger
  /** The longest a stream stays open on one access token (the client reconnects with a fresh one). */
  maxStreamMs: number
  maxStreamsPerMember: number
}) {
  const listeners = new Set<Listener>()
  /** Stream ids are this instance's prefix and a count: an instance knows its own streams' echoes. */
  const instance = randomUUID().slice(0, 8)
  let opens = 0
  /** Each member's streams on every instance, oldest first, as announced on STREAMS_CHANNEL. */
  const announced = new Map<string, string[]>()
  const warn = (message: string) => (error: unknown) =>
    deps.log.warn({ reason: error instanceof Error ? error.message : String(error) }, message)
  const announce = (message: string) =>
    deps.repo
      .notify(STREAMS_CHANNEL, message)
      .catch(warn('a stream could not be announced to the other instances'))
  let lastSeq: number | undefined
  let running: Promise<void> | undefined
  let again = false
  let heartbeat: NodeJS.Timeout | undefined
  /** Readers waiting for what they missed before they reconnected. */
  const resuming = new Set<Listener>()

  const write = (listener: Listener, chunk: string) => {
    if (!listener.response.writableEnded) listener.response.write(chunk)
  }

  function remove(listener: Listener, options: { announce: boolean } = { announce: true }) {
    if (!listeners.delete(listener)) return
    resuming.delete(listener)
    clearTimeout(listener.closeTimer)
    if (!listener.response.writableEnded) listener.response.end()
    forget(listener.userId, listener.id)
    if (options.announce) void announce(`close ${listener.userId} ${listener.id}`)
  }

  function forget(userId: string, streamId: string) {
    const ids = announced.get(userId)
    if (!ids) return
    const at = ids.indexOf(streamId)
    if (at >= 0) ids.splice(at, 1)
    if (ids.length === 0) announced.delete(userId)
  }

  /** A stream opened (here or anywhere): beyond the member's limit, their oldest ones close. */
  function opened(userId: string, streamId: string) {
    // The echo of one of ours that already closed must not count against the member.
    if (streamId.startsWith(`${instance}-`) && ![...listeners].some((listener) => listener.id === streamId))
      return
    const ids = announced.get(userId) ?? []
    if (!ids.includes(streamId)) ids.push(streamId)
    announced.set(userId, ids)
    while (ids.length > deps.maxStreamsPerMember) {
      const oldest = ids.shift()!
      for (const listener of listeners) if (listener.id === oldest) remove(listener)
    }
  }

  /**
   * Looks at readers again now (not at the next event): a session signed out or revoked, a member
   * disabled, a role changed, or access lost ends the stream.
   */
  async function recheck(audience: Listener[]): Promise<void> {
    if (audience.length === 0) return
    const [standing, granted] = await Promise.all([
      deps.repo.liveSessionRoles([...new Set(audience.map((l) => l.sessionId))]),
      deps.categoriesFor([...new Set(audience.map((l) => l.userId))]),
    ])
    for (const listener of audience) {
      if (!listeners.has(listener)) continue
      const role = standing.get(listener.sessionId)
      const staff = role === 'admin' || role === 'analyst'
      const full = staff || granted.has(listener.userId)
      if (role === undefined || staff !== listener.staff || (listener.full === true && !full))
        remove(listener)
      else listener.full = full
    }
  }

  /**
   * Writes ledger entries to the given readers, each as they may see it. One look at the database
   * per batch, whatever the number of readers; a reader whose session ended is dropped instead.
   */
  async function send(entries: SignalLedgerRow[], audience: Listener[]): Promise<void> {
    const signals = new Map(
      (await deps.repo.findManyByIds([...new Set(entries.map((entry) => entry.signal_id))])).map((row) => [
        row.id,
        row,
      ]),
    )
    const [granted, live, heads] = await Promise.all([
      deps.categoriesFor([...new Set(audience.map((l) => l.userId))]),
      deps.repo.liveSessions([...new Set(audience.map((l) => l.sessionId))]),
      deps.headsAt(entries.map((entry) => entry.seq)),
    ])
    for (const listener of audience) {
      if (!live.has(listener.sessionId)) remove(listener)
    }
    for (const entry of entries) {
      const row = signals.get(entry.signal_id)
      if (!row) continue
      const views: Record<Reader, string> = {
        full: JSON.stringify({
          type: EVENT_OF[entry.type],
          seq: entry.seq,
          signal: toSignalView(row, 'full'),
          head: heads.get(entry.seq) ?? null,
        } satisfies SignalEvent),
        public: JSON.stringify({
          type: EVENT_OF[entry.type],
          seq: entry.seq,
          signal: toSignalView(row, 'public'),
          head: heads.get(entry.seq) ?? null,
        } satisfies SignalEvent),
      }
      for (const listener of audience) {
        if (!listeners.has(listener)) continue
        const categories = granted.get(listener.userId)
        const reader: Reader =
          listener.staff || (categories && categoryGranted(categories, row.category)) ? 'full' : 'public'
        listener.full = listener.staff || categories !== undefined
        write(listener, `id: ${entry.seq}\nevent: signal\ndata: ${views[reader]}\n\n`)
      }
    }
  }

  /**
   * A reader that reconnected with Last-Event-ID first gets what it missed, up to where the hub
   * stands; it runs inside the one delivery run, so nothing newer can overtake it.
   */
  async function catchUp(listener: Listener, upTo: number): Promise<void> {
    let after = listener.resumeAfter ?? upTo
    listener.resumeAfter = undefined
    while (after < upTo && listeners.has(listener)) {
      const entries = (await deps.repo.entriesAfter(after, 200)).filter((entry) => entry.seq <= upTo)
      if (entries.length === 0) return
      await send(entries, [listener])
      after = entries.at(-1)!.seq
    }
  }

  async function deliverNew(): Promise<void> {
    if (lastSeq === undefined) lastSeq = (await deps.repo.head())?.seq ?? 0
    for (const listener of [...resuming]) {
      resuming.delete(listener)
      await catchUp(listener, lastSeq)
    }
    for (;;) {
      const entries = await deps.repo.entriesAfter(lastSeq, 200)
      if (entries.length === 0) return
      // A reader still catching up gets these entries from its catch-up, in order.
      await send(
        entries,
        [...listeners].filter((listener) => !resuming.has(listener)),
      )
      lastSeq = entries.at(-1)!.seq
    }
  }

  /** Runs one delivery at a time; a wake-up during a run makes it look again when it ends. */
  function wake() {
    if (running) {
      again = true
      return
    }
    running = deliverNew()
      .catch((error: unknown) => {
        deps.log.warn(
          { reason: error instanceof Error ? error.message : String(error) },
          'live signal delivery failed; it catches up on the next wake-up',
        )
      })
      .finally(() => {
        running = undefined
        if (again) {
          again = false
          wake()
        }
      })
  }

  return {
    wake,

    /** Starts the keep-alive and the slow safety poll; `stop` ends every stream. */
    start() {
      // Learn where the chain stands now: only entries from here on are news.
      wake()
      heartbeat = setInterval(() => {
        for (const listener of listeners) write(listener, ': keep-alive\n\n')
        // Notifications can be missed (a database failover); the sequence numbers catch up.
        wake()
      }, 15_000)
      heartbeat.unref()
    },

    stop() {
      clearInterval(heartbeat)
      // Not announced: a shutdown stays quick, and the others' record of these streams only counts them
      // until the member's next ones push them out (oldest first, so no live stream of theirs closes).
      for (const listener of [...listeners]) remove(listener, { announce: false })
    },

    /**
     * What was heard on AUTH_CHANNEL (a user whose row or session changed) or STREAMS_CHANNEL; null:
     * announcements may have been missed, so every reader is looked at again.
     */
    heard(channel: 'auth' | 'streams', payload: string | null) {
      if (payload === null) {
        // The other instances' streams may have come and gone unheard: only this instance's count.
        announced.clear()
        for (const listener of [...listeners].sort((a, b) => a.openedAt - b.openedAt))
          opened(listener.userId, listener.id)
        void recheck([...listeners]).catch(warn('live streams could not be looked at again'))
        return
      }
      const [kind, userId, streamId] = channel === 'auth' ? ['user', payload] : payload.split(' ')
      if (!userId) return
      if (kind === 'open' && streamId) return opened(userId, streamId)
      if (kind === 'close' && streamId) return forget(userId, streamId)
      const theirs = [...listeners].filter((listener) => listener.userId === userId)
      void recheck(theirs).catch(warn("a member's live streams could not be looked at again"))
    },

    /**
     * A new reader: the response must already have its event-stream headers sent. A reader that
     * reconnects names the last entry it saw (`resumeAfter`, from Last-Event-ID) and first gets
     * every entry after it; a first connection gets only what happens from now on.
     */
    add(
      reader: { userId: string; sessionId: string; staff: boolean; resumeAfter?: number },
      response: ServerResponse,
    ) {
      const listener: Listener = {
        ...reader,
        id: `${instance}-${++opens}`,
        openedAt: Date.now(),
        response,
        closeTimer: setTimeout(() => remove(listener), deps.maxStreamMs),
      }
      listeners.add(listener)
      response.on('close', () => remove(listener))
      write(listener, `retry: 3000\n: connected\n\n`)
      // Counted here at once (a burst of connections is cut to the limit without waiting for the
      // database), then announced so the other instances count it too.
      opened(listener.userId, listener.id)
      if (listeners.has(listener)) {
        void announce(`open ${listener.userId} ${listener.id}`)
        // What it may see from the start, so a loss of access is noticed even before its first event.
        void recheck([listener]).catch(warn('a new live stream could not be looked at'))
      }
      if (reader.resumeAfter !== undefined) resuming.add(listener)
      if (lastSeq === undefined || reader.resumeAfter !== undefined) wake()
    },

    size: () => listeners.size,
  }
}
export type SignalStream = ReturnType<typeof createSignalStream>
