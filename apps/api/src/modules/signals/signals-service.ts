import { randomBytes, randomUUID } from 'node:crypto'
import {
  AUTO_SETTLED_INSTRUMENTS,
  categoryGranted,
  commitmentPreimage,
  computeRecordFigures,
  entryPreimage,
  GENESIS_HASH,
  type LedgerEntry,
  type MarketPrices,
  type PublishData,
  pickProfit,
  publicViewOf,
  type RevealedSignal,
  revealMatches,
  type SettleSignal,
  type SignalContent,
  type SignalInput,
  type SignalPage,
  type SignalRecord,
  type SignalView,
  signalMessages,
  tradeOutcome,
} from '@edgeclub/shared'
import type { FastifyBaseLogger } from 'fastify'
import { sql, type Transaction } from 'kysely'
import { setAuditTarget } from '../../audit/audit-scope'
import type { DB, SignalRow } from '../../db/types'
import { createInvalidation } from '../../lib/cached-route'
import type { Clock } from '../../lib/clock'
import { sha256 } from '../../lib/crypto'
import { badRequest, conflict, notFound } from '../../lib/errors'
import { isUuid } from '../../lib/ids'
import type { Jobs } from '../../queue/job-runner'
import type { RecordLog } from './record-log/record-log-service'
import { type Reader, toLedgerEntry, toSignalView } from './signal-views'
import type { NewLedgerEntry, SignalsRepository } from './signals-repository'

/** The NOTIFY channel that tells every instance the ledger moved (payload: the new entry's seq). */
export const LEDGER_CHANNEL = 'signal_ledger'

/** The content exactly as it is committed to: no empty optional fields. */
function contentOf(input: SignalInput): SignalContent {
  return Object.fromEntries(
    Object.entries(input).filter(([, value]) => value !== undefined && value !== ''),
  ) as SignalContent
}

/**
 * The signal room: analysts publish picks and trading signals, settle and void them; every step is
 * one entry of the public hash chain, appended in the same transaction as the change, with its
 * delivery (Discord, email, the live stream) queued in the outbox beside it.
 */
export function createSignalsService(deps: {
  repo: SignalsRepository
  /** Signs the head of each new size in the append's transaction (the signed log, decision 020). */
  recordLog: Pick<RecordLog, 'signAppended'>
  jobs: Jobs
  clock: Clock
  /**
   * The signal categories a member receives now, by the access rule and their plans' places (absent:
   * no access).
   */
  categoriesFor: (userIds: readonly string[]) => Promise<Map<string, 'all' | string[]>>
  prices: () => Promise<MarketPrices>
  audit: {
    record(entry: {
      actor: null
      action: string
      targetType: string
      targetId: string
      outcome: 'success' | 'failure'
      details: Record<string, unknown>
    }): Promise<void>
  }
  log: FastifyBaseLogger
}) {
  const { repo, clock } = deps
  const recordChanged = createInvalidation()
  // Reveals already checked against their commitments, keyed by everything the check reads (a row
  // changed behind our back is a new key, checked afresh).
  const checkedReveals = new Map<string, boolean>()
  const revealMatchesMemo = (reveal: RevealedSignal, commitment: string) => {
    const key = `${reveal.id}\u0000${commitment}\u0000${reveal.salt}\u0000${JSON.stringify(reveal.content)}`
    let matches = checkedReveals.get(key)
    if (matches === undefined) {
      matches = revealMatches(reveal, commitment, sha256)
      if (checkedReveals.size > 200_000) checkedReveals.clear()
      checkedReveals.set(key, matches)
    }
    return matches
  }

  async function append(trx: Transaction<DB>, entry: Omit<NewLedgerEntry, 'seq' | 'prevHash' | 'hash'>) {
    const head = await repo.head(trx)
    const unsigned = {
      seq: (head?.seq ?? 0) + 1,
      type: entry.type,
      signalId: entry.signalId,
      at: entry.at,
      prevHash: head?.hash ?? GENESIS_HASH,
      data: entry.data,
    }
    const full = { ...unsigned, hash: sha256(entryPreimage(unsigned as Omit<LedgerEntry, 'hash'>)) }
    await repo.appendEntry(full, trx)
    await deps.recordLog.signAppended(trx, full.seq)
    // Each delivery through the outbox as its own keyed job; the live stream hears of it when this commits.
    await deps.jobs.enqueue('signals.discord', { seq: full.seq }, { trx, key: `signal-discord:${full.seq}` })
    await deps.jobs.enqueue(
      'signals.telegram',
      { seq: full.seq },
      { trx, key: `signal-telegram:${full.seq}` },
    )
    if (full.type === 'publish')
      await deps.jobs.enqueue('signals.email', { seq: full.seq }, { trx, key: `signal-email:${full.seq}` })
    // Web push for publications and results alike (modules/push; every instance's fan-out worker is
    // woken by the NOTIFY below).
    await deps.jobs.enqueue('push.fanout', { seq: full.seq }, { trx, key: `push-fanout:${full.seq}` })
    await sql`select pg_notify(${LEDGER_CHANNEL}, ${String(full.seq)})`.execute(trx)
    return full
  }

  /** How a viewer sees signals of each category: in full with a plan that grants it (staff: all). */
  async function readerFor(
    viewer: { id: string; role: string } | null,
  ): Promise<(category: string) => Reader> {
    if (!viewer) return () => 'public'
    if (viewer.role === 'admin' || viewer.role === 'analyst') return () => 'full'
    const granted = (await deps.categoriesFor([viewer.id])).get(viewer.id)
    return (category) => (granted && categoryGranted(granted, category) ? 'full' : 'public')
  }

  async function close(
    actor: { id: string } | null,
    id: string,
    decide: (
      row: SignalRow,
      now: Date,
    ) =>
      | {
          status: 'settled'
          result: 'won' | 'lost' | 'push' | 'closed'
          profitUnits: number
          exitPrice: number | null
          closingOdds?: number
        }
      | { status: 'void'; reason: string; afterStart: boolean },
  ): Promise<SignalView> {
    if (!isUuid(id)) throw notFound(signalMessages.notFound)
    const now = clock.now()
    const row = await repo.transaction(async (trx) => {
      await repo.lockLedger(trx)
      const current = await repo.findByIdForUpdate(id, trx)
      if (!current) throw notFound(signalMessages.notFound)
      if (current.status !== 'open') throw conflict(signalMessages.alreadySettled)
      const outcome = decide(current, now)
      const closed = await repo.close(id, outcome, actor?.id ?? null, now, trx)
      await append(trx, {
        type: outcome.status === 'void' ? 'void' : 'settle',
        signalId: id,
        at: now.toISOString(),
        data:
          outcome.status === 'void'
            ? { reason: outcome.reason, ...(outcome.afterStart ? { afterStart: true } : {}) }
            : {
                result: outcome.result,
                profitUnits: outcome.profitUnits,
                ...(outcome.exitPrice !== null ? { exitPrice: outcome.exitPrice } : {}),
                ...(outcome.closingOdds !== undefined ? { closingOdds: outcome.closingOdds } : {}),
              },
      })
      return closed
    })
    recordChanged.invalidate()
    return toSignalView(row, 'full')
  }

  const settleTrade = (row: SignalRow, exit: number) => {
    if (row.content.kind !== 'signal') throw badRequest(signalMessages.pickNeedsResult)
    const outcome = tradeOutcome(row.content, exit)
    return { status: 'settled' as const, ...outcome, exitPrice: exit }
  }

  return {
    /** POST /signals: content, salt and commitment are fixed here, for good. */
    async publish(author: { id: string }, input: SignalInput): Promise<SignalView> {
      const now = clock.now()
      if (input.kind === 'pick' && new Date(input.startsAt) <= now)
        throw badRequest(signalMessages.startsInPast, [
          { field: 'startsAt', message: signalMessages.startsInPast },
        ])
      if (input.kind === 'signal' && new Date(input.expiresAt) <= now)
        throw badRequest(signalMessages.expiresInPast, [
          { field: 'expiresAt', message: signalMessages.expiresInPast },
        ])
      const content = contentOf(input)
      const salt = randomBytes(16).toString('hex')
      const commitment = sha256(commitmentPreimage(content, salt))
      const id = randomUUID()
      setAuditTarget(id)
      const category = content.kind === 'pick' ? content.sport : content.instrument
      const row = await repo.transaction(async (trx) => {
        await repo.lockLedger(trx)
        const head = await repo.head(trx)
        const inserted = await repo.insertSignal(
          {
            id,
            kind: content.kind,
            content,
            salt,
            commitment,
            category,
            startsAt: content.kind === 'pick' ? new Date(content.startsAt) : null,
            expiresAt: content.kind === 'signal' ? new Date(content.expiresAt) : null,
            stake: content.stake,
            publishedSeq: (head?.seq ?? 0) + 1,
            publishedBy: author.id,
            publishedAt: now,
          },
          trx,
        )
        await append(trx, {
          type: 'publish',
          signalId: id,
          at: now.toISOString(),
          data: {
            commitment,
            kind: content.kind,
            category,
            ...(content.kind === 'pick' ? { startsAt: content.startsAt } : { expiresAt: content.expiresAt }),
          },
        })
        return inserted
      })
      recordChanged.invalidate()
      return toSignalView(row, 'full')
    },

    /** POST /signals/{id}/settle: a pick's result after its start, or a trading signal's exit price. */
    settle(actor: { id: string } | null, id: string, input: SettleSignal): Promise<SignalView> {
      return close(actor, id, (row, now) => {
        if (row.content.kind === 'pick') {
          if (input.result === undefined) throw badRequest(signalMessages.pickNeedsResult)
          if (row.starts_at && new Date(row.starts_at) > now) throw badRequest(signalMessages.notStarted)
          return {
            status: 'settled',
            result: input.result,
            profitUnits: pickProfit(row.content, input.result),
            exitPrice: null,
            ...(input.closingOdds !== undefined ? { closingOdds: input.closingOdds } : {}),
          }
        }
        if (input.exitPrice === undefined) throw badRequest(signalMessages.signalNeedsExit)
        return settleTrade(row, input.exitPrice)
      })
    },

    /** POST /signals/{id}/void: a mistake is corrected by voiding (with a reason) and publishing anew. */
    void: (actor: { id: string }, id: string, input: { reason: string; afterStart?: boolean }) =>
      close(actor, id, (row, now) => {
        // Voiding a sealed pick after its event started (or a signal after its expiry) could hide a
        // loser: it needs the mark, which the void entry carries and the record counts apart.
        const due = row.starts_at ?? row.expires_at
        const late = due !== null && new Date(due) <= now
        if (late && input.afterStart !== true)
          throw badRequest(signalMessages.lateVoid, [
            { field: 'afterStart', message: signalMessages.lateVoid },
          ])
        return { status: 'void', reason: input.reason, afterStart: late }
      }),

    /**
     * Trading signals on the instruments the price feed covers settle by themselves: the target
     * reached is a win at the target, the stop a loss at the stop, the expiry a close at the last price.
     */
    async settleFromPrices(): Promise<number> {
      const open = await repo.listOpenTrades(AUTO_SETTLED_INSTRUMENTS)
      if (open.length === 0) return 0
      const { prices } = await deps.prices()
      const last = new Map(prices.map((price) => [price.symbol.toUpperCase(), price.current_price]))
      let settled = 0
      for (const row of open) {
        const price = last.get(row.category)
        if (price === undefined) continue
        const signal = row.content
        if (signal.kind !== 'signal') continue
        const long = signal.direction === 'long'
        const exit = (long ? price >= signal.target : price <= signal.target)
          ? signal.target
          : (long ? price <= signal.stop : price >= signal.stop)
            ? signal.stop
            : row.expires_at && new Date(row.expires_at) <= clock.now()
              ? price
              : undefined
        if (exit === undefined) continue
        try {
          const view = await close(null, row.id, (current) => settleTrade(current, exit))
          await deps.audit.record({
            actor: null,
            action: 'signal.settle',
            targetType: 'signal',
            targetId: row.id,
            outcome: 'success',
            details: {
              automatic: true,
              price,
              exitPrice: exit,
              result: view.result,
              profitUnits: view.profitUnits,
            },
          })
          settled += 1
        } catch (error) {
          // Settled by hand meanwhile, or the database is away: the next run looks again.
          deps.log.warn(
            { signalId: row.id, reason: error instanceof Error ? error.message : String(error) },
            'could not settle a signal from the price feed',
          )
        }
      }
      return settled
    },

    /** GET /signals: newest first; content for staff and members with access, the public view otherwise. */
    async list(
      viewer: { id: string; role: string },
      query: { cursor?: number; limit: number; kind?: 'pick' | 'signal'; category?: string },
    ): Promise<SignalPage> {
      const reader = await readerFor(viewer)
      const rows = await repo.list({
        before: query.cursor,
        limit: query.limit,
        kind: query.kind,
        category: query.category,
      })
      return {
        items: rows.map((row) => toSignalView(row, reader(row.category))),
        nextCursor: rows.length === query.limit ? (rows.at(-1)?.published_seq ?? null) : null,
      }
    },

    readerFor,

    /**
     * The record computed from the ledger's entries alone (and what they revealed, checked against
     * the commitments): the same function `verify-record` runs on the downloaded entries.
     */
    async record(since?: Date): Promise<SignalRecord> {
      const [rows, reveals] = await Promise.all([repo.allEntries(), repo.reveals()])
      return computeRecordFigures({
        entries: rows.map(toLedgerEntry),
        revealed: reveals.map((row) => ({
          id: row.id,
          commitment: row.commitment,
          content: row.content,
          salt: row.salt,
        })),
        sha256,
        revealMatches: revealMatchesMemo,
        asOf: clock.now().toISOString(),
        since: since ? since.toISOString() : null,
      })
    },

    /** Raised when the ledger moves (here or on another instance): the record is out of date. */
    recordChanged,

    /** GET /record/ledger: the entries in order, after `after`. */
    async ledger(after: number, limit: number) {
      const [rows, head] = await Promise.all([repo.entriesAfter(after, limit), repo.head()])
      return { entries: rows.map(toLedgerEntry), head: head ? { seq: head.seq, hash: head.hash } : null }
    },

    /** GET /record/signals/{id}: from its ledger entries; content and salt once closed and matching. */
    async publicSignal(id: string): Promise<SignalView> {
      const entries = isUuid(id) ? (await repo.entriesOf(id)).map(toLedgerEntry) : []
      const publish = entries.find((entry) => entry.type === 'publish')
      if (!publish) throw notFound(signalMessages.notFound)
      const close = entries.find((entry) => entry.type !== 'publish')
      const reveal = close ? await repo.reveal(id) : undefined
      const matches =
        reveal !== undefined &&
        sha256(commitmentPreimage(reveal.content, reveal.salt)) === (publish.data as PublishData).commitment
      return publicViewOf({
        id,
        publish,
        close,
        ...(matches ? { content: reveal.content, salt: reveal.salt } : {}),
      })
    },
  }
}
export type SignalsService = ReturnType<typeof createSignalsService>
