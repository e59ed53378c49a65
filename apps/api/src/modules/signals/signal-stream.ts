import { randomUUID } from 'node:crypto'
import type { ServerResponse } from 'node:http'
import { Socket } from 'node:net'
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
  /** The plans that give the member access, as last looked at (absent: none). */
  plans?: string[]
  /**
   * Until when (clock ms) that look holds: the first end of a plan by time, at most LOOK_TRUSTED_MS
   * on; 0 until looked at, or since a change of the member was announced. A delivery looks again
   * only at readers past it.
   */
  lookedUntil: number
  /** Moves at every announced change of the member: a look begun before it is not kept. */
  changes: number
  openedAt: number
  response: ServerResponse
  closeTimer: NodeJS.Timeout
  /** The last entry this reader saw before it reconnected (its Last-Event-ID), until caught up. */
  resumeAfter?: number
}

/**
 * The longest a look at a reader's access and session is trusted. Every change is announced (the
 * access service and a trigger on users and sessions NOTIFY every instance, and a lost connection
 * makes the hub look at everyone again), so this bounds only what an unnoticed loss could hide; the
 * keep-alive looks again at readers near it, beside deliveries rather than in front of them.
 */
const LOOK_TRUSTED_MS = 5 * 60_000
/** How often the keep-alive runs: it also looks again at readers whose look ends before the next run. */
const HEARTBEAT_MS = 15_000

/** A member's access changed: every instance looks at their streams at the change's commit. */
export function streamsFollowAccess(): AccessListener {
  return async ({ userId }, trx) => {
    await sql`select pg_notify(${STREAMS_CHANNEL}, ${`access ${userId}`})`.execute(trx)
  }
}

/**
 * An event as it goes on the wire: the payload framed as one HTTP/1.1 chunk (`<hex length>\r\n`,
 * the bytes, `\r\n`), exactly as Node's response frames a `write`, so one Buffer, made once per
 * distinct event, is handed to every socket whole (`writeFramed`).
 */
interface Framed {
  payload: Buffer
  chunk: Buffer
}

function framed(text: string): Framed {
  const payload = Buffer.from(text)
  const head = `${payload.length.toString(16)}\r\n`
  const chunk = Buffer.allocUnsafe(head.length + payload.length + 2)
  chunk.write(head, 0, 'latin1')
  payload.copy(chunk, head.length)
  chunk.write('\r\n', head.length + payload.length, 'latin1')
  return { payload, chunk }
}

/** Node's response internals this relies on, checked before each direct write (else `response.write`). */
interface ChunkedResponse {
  chunkedEncoding?: boolean
  _headerSent?: boolean
  outputData?: unknown[]
}

/**
 * Writes an event to a reader. A stream that owns its socket, has its headers out and nothing queued
 * in the response gets the framed chunk straight on the socket: one write of one shared Buffer,
 * instead of the response's four (length, CRLF, bytes, CRLF), its cork and its tick per reader — at
 * 15,000 readers that was most of a delivery's CPU. Otherwise (a pipelined request still waiting for
 * an earlier answer, an injected request) the response writes it as usual. Either way the bytes on the
 * wire are the same, in the same order as everything the response itself writes (`end`'s last chunk).
 */
function writeFramed(response: ServerResponse, event: Framed): void {
  if (response.writableEnded) return
  const socket = response.socket
  const raw = response as ServerResponse & ChunkedResponse
  if (
    socket instanceof Socket &&
    (socket as Socket & { _httpMessage?: unknown })._httpMessage === response &&
    raw.chunkedEncoding === true &&
    raw._headerSent === true &&
    raw.outputData?.length === 0 &&
    socket.writable
  )
    socket.write(event.chunk)
  else response.write(event.payload)
}

const KEEP_ALIVE = framed(': keep-alive\n\n')
const CONNECTED = 'retry: 3000\n: connected\n\n'

const EVENT_OF = { publish: 'published', settle: 'settled', void: 'voided' } as const

/**
 * The live signal stream of one app instance (server-sent events). Every instance listens to the
 * ledger's NOTIFY channel, so a signal published on any instance reaches the members connected to
 * all of them. Delivery follows the ledger's sequence numbers: after a missed notification or a
 * lost database connection the hub catches up from the last entry it sent, so nothing is skipped.
 * Access holds at every delivery, not only on connect, without asking the database for every reader
 * each time: each reader's plans are looked at when it opens and again at every announced change of
 * the member, and a delivery looks again first at the readers whose look ran out (a plan's end by
 * time, or LOOK_TRUSTED_MS); the plans' grants themselves are read at every delivery. A member whose
 * access lapsed gets the public view, and a revoked session's stream is closed. Streams do not wait
 * for a delivery to end, either: a member who signs out, is disabled, changes role or loses access
 * has their streams closed as soon as any instance hears of it (`recheck`, from AUTH_CHANNEL and
 * from `streamsFollowAccess`); the client reconnects, if it still may, to what it may now see. A
 * member has at most `maxStreamsPerMember` streams across all instances: opening another closes
 * their oldest.
 */
export function createSignalStream(deps: {
  repo: SignalsRepository
  /** The signed heads of the record at these sizes (each entry is delivered with its own). */
  headsAt: (sizes: number[]) => Promise<Map<number, SignedHead>>
  /** Members with access among these: their plans, and when that first changes by time (ms; null: never). */
  accessPlans: (
    userIds: readonly string[],
  ) => Promise<Map<string, { planIds: string[]; until: number | null }>>
  /** What the holder of these plans receives now: the plans' grants, read at every delivery. */
  signalGrants: () => Promise<(planIds: readonly string[]) => 'all' | string[]>
  clock: Clock
  log: FastifyBaseLogger
  /** The longest a stream stays open on one access token (the client reconnects with a fresh one). */
  maxStreamMs: number
  maxStreamsPerMember: number
}) {
  const listeners = new Set<Listener>()
  /** This instance's streams by id, and each member's streams here: found without a scan of every reader. */
  const byId = new Map<string, Listener>()
  const byUser = new Map<string, Set<Listener>>()
  /** Streams opened since the last flush: announced and looked at together, one query per burst. */
  const fresh = new Set<Listener>()
  let flushing: NodeJS.Immediate | undefined
  /** Stream ids are this instance's prefix and a count: an instance knows its own streams' echoes. */
  const instance = randomUUID().slice(0, 8)
  let opens = 0
  /** Each member's streams on every instance, oldest first, as announced on STREAMS_CHANNEL. */
  const announced = new Map<string, string[]>()
  const warn = (message: string) => (error: unknown) =>
    deps.log.warn({ reason: error instanceof Error ? error.message : String(error) }, message)
  const announce = (...messages: string[]) =>
    deps.repo
      .notifyMany(STREAMS_CHANNEL, messages)
      .catch(warn('a stream could not be announced to the other instances'))
  let lastSeq: number | undefined
  let running: Promise<void> | undefined
  let again = false
  let heartbeat: NodeJS.Timeout | undefined
  /** Readers waiting for what they missed before they reconnected. */
  const resuming = new Set<Listener>()

  const write = (listener: Listener, event: Framed) => writeFramed(listener.response, event)

  function remove(listener: Listener, options: { announce: boolean } = { announce: true }) {
    if (!listeners.delete(listener)) return
    byId.delete(listener.id)
    const mine = byUser.get(listener.userId)
    mine?.delete(listener)
    if (mine?.size === 0) byUser.delete(listener.userId)
    resuming.delete(listener)
    fresh.delete(listener)
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
    if (streamId.startsWith(`${instance}-`) && !byId.has(streamId)) return
    const ids = announced.get(userId) ?? []
    if (!ids.includes(streamId)) ids.push(streamId)
    announced.set(userId, ids)
    while (ids.length > deps.maxStreamsPerMember) {
      const oldest = byId.get(ids.shift()!)
      if (oldest) remove(oldest)
    }
  }

  /** Announces the streams opened since the last flush and looks at what each may see, in one go. */
  function flushFresh() {
    flushing = undefined
    const batch = [...fresh]
    fresh.clear()
    if (batch.length === 0) return
    void announce(...batch.map((listener) => `open ${listener.userId} ${listener.id}`))
    // What each may see from the start, so a loss of access is noticed even before its first event.
    void recheck(batch).catch(warn('new live streams could not be looked at'))
  }

  /** The members' plans now, each kept on its readers unless a change of the member came meanwhile. */
  async function lookAtPlans(audience: Listener[]): Promise<Map<string, { planIds: string[] }>> {
    const now = deps.clock.now().valueOf()
    const before = audience.map((listener) => listener.changes)
    const held = await deps.accessPlans([...new Set(audience.map((l) => l.userId))])
    audience.forEach((listener, index) => {
      if (listener.changes !== before[index]) return
      const plans = held.get(listener.userId)
      listener.plans = plans?.planIds
      listener.lookedUntil = Math.min(plans?.until ?? Number.POSITIVE_INFINITY, now + LOOK_TRUSTED_MS)
    })
    return held
  }

  /** A change of these members was announced: what was looked at of them no longer holds. */
  function changed(audience: Iterable<Listener>) {
    for (const listener of audience) {
      listener.changes++
      listener.lookedUntil = 0
    }
  }

  /**
   * Looks at readers again now (not at the next event): a session signed out or revoked, a member
   * disabled, a role changed, or access lost ends the stream.
   */
  async function recheck(audience: Listener[]): Promise<void> {
    if (audience.length === 0) return
    const [standing, held] = await Promise.all([
      deps.repo.liveSessionRoles([...new Set(audience.map((l) => l.sessionId))]),
      lookAtPlans(audience),
    ])
    for (const listener of audience) {
      if (!listeners.has(listener)) continue
      const role = standing.get(listener.sessionId)
      const staff = role === 'admin' || role === 'analyst'
      const full = staff || held.has(listener.userId)
      if (role === undefined || staff !== listener.staff || (listener.full === true && !full))
        remove(listener)
      else listener.full = full
    }
  }

  /**
   * Before a delivery, the readers whose last look no longer holds: the sessions of those that
   * ended, and their plans (kept on them). Nothing is asked when every look holds.
   */
  async function lookBeforeSending(audience: Listener[]) {
    const now = deps.clock.now().valueOf()
    const stale = new Set(audience.filter((listener) => listener.lookedUntil <= now))
    if (stale.size === 0)
      return { stale, ended: new Set<string>(), held: new Map<string, { planIds: string[] }>() }
    const [ended, held] = await Promise.all([
      deps.repo.endedSessions([...new Set([...stale].map((listener) => listener.sessionId))]),
      lookAtPlans([...stale]),
    ])
    return { stale, ended, held }
  }

  /**
   * Writes ledger entries to the given readers, each as they may see it. Each reader's access is as
   * last looked at (at its opening, at every announced change of the member, at the end of a plan by
   * time); a reader past its look is looked at again first, all of them in one statement, and one
   * whose session ended is dropped instead. The plans' grants are read at every delivery (a handful
   * of rows), so an edit of a plan applies at once. Each view of an entry is serialized and framed
   * once, and the same Buffer written to every reader of it; what a reader may see is decided once
   * per distinct grant (members of one plan share it), not per reader.
   */
  async function send(entries: SignalLedgerRow[], audience: Listener[]): Promise<void> {
    // Independent reads, at once: the delivery waits for the slowest, not for their sum.
    const [rows, grantOf, looked, heads] = await Promise.all([
      deps.repo.findManyByIds([...new Set(entries.map((entry) => entry.signal_id))]),
      deps.signalGrants(),
      lookBeforeSending(audience),
      deps.headsAt(entries.map((entry) => entry.seq)),
    ])
    const signals = new Map(rows.map((row) => [row.id, row]))
    const readers: Listener[] = []
    const granted = new Map<Listener, 'all' | string[] | undefined>()
    for (const listener of audience) {
      if (looked.ended.has(listener.sessionId)) {
        remove(listener)
        continue
      }
      readers.push(listener)
      // A reader just looked at gets this look's answer, even where a newer change kept it off the
      // reader (that change's own look decides the next delivery); any other, what it holds.
      const plans = looked.stale.has(listener) ? looked.held.get(listener.userId)?.planIds : listener.plans
      granted.set(listener, plans && grantOf(plans))
    }
    for (const entry of entries) {
      const row = signals.get(entry.signal_id)
      if (!row) continue
      const event = (reader: Reader) =>
        framed(
          `id: ${entry.seq}\nevent: signal\ndata: ${JSON.stringify({
            type: EVENT_OF[entry.type],
            seq: entry.seq,
            signal: toSignalView(row, reader),
            head: heads.get(entry.seq) ?? null,
          } satisfies SignalEvent)}\n\n`,
        )
      const views: Partial<Record<Reader, Framed>> = {}
      const view = (reader: Reader) => (views[reader] ??= event(reader))
      // Whether a grant opens this entry's category, once per distinct grant.
      const opens = new Map<'all' | string[], boolean>()
      for (const listener of readers) {
        if (!listeners.has(listener)) continue
        const categories = granted.get(listener)
        let full = listener.staff
        if (!full && categories !== undefined) {
          let open = opens.get(categories)
          if (open === undefined) {
            open = categoryGranted(categories, row.category)
            opens.set(categories, open)
          }
          full = open
        }
        listener.full = listener.staff || categories !== undefined
        write(listener, view(full ? 'full' : 'public'))
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
        const soon = deps.clock.now().valueOf() + HEARTBEAT_MS
        const due: Listener[] = []
        for (const listener of listeners) {
          write(listener, KEEP_ALIVE)
          if (listener.lookedUntil <= soon && !fresh.has(listener)) due.push(listener)
        }
        // Readers whose look ends before the next run are looked at now, so deliveries rarely wait.
        void recheck(due).catch(warn('live streams could not be looked at again'))
        // Notifications can be missed (a database failover); the sequence numbers catch up.
        wake()
      }, HEARTBEAT_MS)
      heartbeat.unref()
    },

    stop() {
      clearInterval(heartbeat)
      if (flushing) clearImmediate(flushing)
      flushing = undefined
      fresh.clear()
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
        changed(listeners)
        void recheck([...listeners]).catch(warn('live streams could not be looked at again'))
        return
      }
      const [kind, userId, streamId] = channel === 'auth' ? ['user', payload] : payload.split(' ')
      if (!userId) return
      if (kind === 'open' && streamId) return opened(userId, streamId)
      if (kind === 'close' && streamId) return forget(userId, streamId)
      const theirs = [...(byUser.get(userId) ?? [])]
      changed(theirs)
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
        lookedUntil: 0,
        changes: 0,
        response,
        closeTimer: setTimeout(() => remove(listener), deps.maxStreamMs),
      }
      listeners.add(listener)
      byId.set(listener.id, listener)
      const mine = byUser.get(listener.userId)
      if (mine) mine.add(listener)
      else byUser.set(listener.userId, new Set([listener]))
      response.on('close', () => remove(listener))
      listener.response.write(CONNECTED)
      // Counted here at once (a burst of connections is cut to the limit without waiting for the
      // database), then announced so the other instances count it too, and looked at: together with
      // the others opened in the same turn of the event loop (a burst is a few statements, not three
      // per stream).
      opened(listener.userId, listener.id)
      if (listeners.has(listener)) {
        fresh.add(listener)
        flushing ??= setImmediate(flushFresh)
      }
      if (reader.resumeAfter !== undefined) resuming.add(listener)
      if (lastSeq === undefined || reader.resumeAfter !== undefined) wake()
    },

    size: () => listeners.size,
  }
}
export type SignalStream = ReturnType<typeof createSignalStream>
