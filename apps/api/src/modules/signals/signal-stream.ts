import type { ServerResponse } from 'node:http'
import type { SignalEvent } from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import type { SignalLedgerRow } from '../../db/types'
import type { Clock } from '../../lib/clock'
import { type Reader, toSignalView } from './signal-views'
import type { SignalsRepository } from './signals-repository'

/** A reader of the live stream: who, which session, and the open response to write to. */
interface Listener {
  userId: string
  sessionId: string
  staff: boolean
  response: ServerResponse
  closeTimer: NodeJS.Timeout
  /** The last entry this reader saw before it reconnected (its Last-Event-ID), until caught up. */
  resumeAfter?: number
}

const EVENT_OF = { publish: 'published', settle: 'settled', void: 'voided' } as const

/**
 * The live signal stream of one app instance (server-sent events). Every instance listens to the
 * ledger's NOTIFY channel, so a signal published on any instance reaches the members connected to
 * all of them. Delivery follows the ledger's sequence numbers: after a missed notification or a
 * lost database connection the hub catches up from the last entry it sent, so nothing is skipped.
 * Access is checked for every delivery, not only on connect: a member whose access lapsed gets the
 * public view at once, and a revoked session's stream is closed.
 */
export function createSignalStream(deps: {
  repo: SignalsRepository
  clock: Clock
  log: FastifyBaseLogger
  /** The longest a stream stays open on one access token (the client reconnects with a fresh one). */
  maxStreamMs: number
}) {
  const listeners = new Set<Listener>()
  let lastSeq: number | undefined
  let running: Promise<void> | undefined
  let again = false
  let heartbeat: NodeJS.Timeout | undefined
  /** Readers waiting for what they missed before they reconnected. */
  const resuming = new Set<Listener>()

  const write = (listener: Listener, chunk: string) => {
    if (!listener.response.writableEnded) listener.response.write(chunk)
  }

  function remove(listener: Listener) {
    listeners.delete(listener)
    resuming.delete(listener)
    clearTimeout(listener.closeTimer)
    if (!listener.response.writableEnded) listener.response.end()
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
    const [withAccess, live] = await Promise.all([
      deps.repo.usersWithAccess([...new Set(audience.map((l) => l.userId))], deps.clock.now()),
      deps.repo.liveSessions([...new Set(audience.map((l) => l.sessionId))]),
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
        } satisfies SignalEvent),
        public: JSON.stringify({
          type: EVENT_OF[entry.type],
          seq: entry.seq,
          signal: toSignalView(row, 'public'),
        } satisfies SignalEvent),
      }
      for (const listener of audience) {
        if (!listeners.has(listener)) continue
        const reader: Reader = listener.staff || withAccess.has(listener.userId) ? 'full' : 'public'
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
      for (const listener of [...listeners]) remove(listener)
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
        response,
        closeTimer: setTimeout(() => remove(listener), deps.maxStreamMs),
      }
      listeners.add(listener)
      response.on('close', () => remove(listener))
      write(listener, `retry: 3000\n: connected\n\n`)
      if (reader.resumeAfter !== undefined) resuming.add(listener)
      if (lastSeq === undefined || reader.resumeAfter !== undefined) wake()
    },

    size: () => listeners.size,
  }
}
export type SignalStream = ReturnType<typeof createSignalStream>
