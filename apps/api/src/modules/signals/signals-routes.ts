import {
  LedgerPageSchema,
  LedgerQuerySchema,
  RecordQuerySchema,
  RecordSchema,
  SettleSignalSchema,
  SignalInputSchema,
  SignalPageSchema,
  SignalsQuerySchema,
  SignalViewSchema,
  text,
  VoidSignalSchema,
} from '@edgeclub/shared'
import type { FastifyReply } from 'fastify'
import type { FastifyPluginAsyncZod } from 'fastify-type-provider-zod'
import { z } from 'zod'
import { cachedJsonRoute } from '../../lib/cached-route'
import { toCsv } from '../../lib/csv'
import { envelope, ok } from '../../lib/envelope'
import { bodyOf } from '../../plugins/audit'
import { authOf } from '../../plugins/auth'
import type { SignalStream } from './signal-stream'
import { LEDGER_COLUMNS } from './signal-views'
import type { SignalsService } from './signals-service'

const IdParams = z.object({ id: text().min(1).max(64) })

/** Whether a query asks for the record from a date (computed per request) rather than as it stands. */
const hasSince = (query: unknown) => typeof query === 'object' && query !== null && 'since' in query

/** The ledger seq a reconnecting reader saw last (the SSE Last-Event-ID header), if it is one. */
function lastEventId(headers: Record<string, string | string[] | undefined>): number | undefined {
  const value = headers['last-event-id']
  if (typeof value !== 'string' || !/^\d{1,12}$/.test(value.trim())) return undefined
  return Number(value.trim())
}

/** The signal room for members and its authors (admins and analysts). */
export const signalRoutes: FastifyPluginAsyncZod<{
  signals: SignalsService
  stream: SignalStream
}> = async (app, { signals, stream }) => {
  const tags = ['signals']
  const security = [{ bearerAuth: [] }]

  app.post(
    '/signals',
    {
      onRequest: app.requireSignalAuthor,
      // The new signal's id is set as the target by the service (setAuditTarget).
      config: {
        audit: {
          action: 'signal.publish',
          targetType: 'signal',
          target: () => null,
          details: (request) => ({ kind: bodyOf(request).kind }),
        },
      },
      schema: {
        tags,
        security,
        summary: 'Publish a pick or a trading signal (admins and analysts); it can never change afterwards',
        body: SignalInputSchema,
        response: { 201: envelope(SignalViewSchema) },
      },
    },
    async (request, reply) => {
      const signal = await signals.publish(authOf(request).user, request.body)
      return reply.status(201).send(ok(signal, 'Signal published'))
    },
  )

  app.post(
    '/signals/:id/settle',
    {
      onRequest: app.requireSignalAuthor,
      config: {
        audit: {
          action: 'signal.settle',
          targetType: 'signal',
          details: (request) => ({ ...bodyOf(request) }),
        },
      },
      schema: {
        tags,
        security,
        summary:
          'Settle a pick (won, lost, push, and optionally its closing odds) after its start, or a trading signal at its exit price',
        params: IdParams,
        body: SettleSignalSchema,
        response: { 200: envelope(SignalViewSchema) },
      },
    },
    async (request) =>
      ok(await signals.settle(authOf(request).user, request.params.id, request.body), 'Signal settled'),
  )

  app.post(
    '/signals/:id/void',
    {
      onRequest: app.requireSignalAuthor,
      config: {
        audit: {
          action: 'signal.void',
          targetType: 'signal',
          details: (request) => ({ reason: bodyOf(request).reason, afterStart: bodyOf(request).afterStart }),
        },
      },
      schema: {
        tags,
        security,
        summary:
          'Void a signal with a reason (a mistake is corrected by voiding and publishing anew); after a pick started (or a signal expired) only with afterStart: true, and the record counts it as a late void',
        params: IdParams,
        body: VoidSignalSchema,
        response: { 200: envelope(SignalViewSchema) },
      },
    },
    async (request) =>
      ok(await signals.void(authOf(request).user, request.params.id, request.body), 'Signal voided'),
  )

  app.get(
    '/signals',
    {
      onRequest: app.requireAuth,
      schema: {
        tags,
        security,
        summary: 'Signals, newest first: full content for members with access, the public view otherwise',
        querystring: SignalsQuerySchema,
        response: { 200: envelope(SignalPageSchema) },
      },
    },
    async (request) => ok(await signals.list(authOf(request).user, request.query)),
  )

  app.get(
    '/signals/stream',
    {
      onRequest: app.requireAuth,
      schema: {
        tags,
        security,
        summary:
          'Live signals as server-sent events (event "signal", data a SignalEvent, id its ledger seq); send the token in the Authorization header, and Last-Event-ID on reconnecting to receive what was missed',
        produces: ['text/event-stream'],
        response: {
          200: z
            .string()
            .describe(
              'event: signal, data: a SignalEvent (published, settled or voided), one per ledger entry',
            ),
        },
      },
    },
    async (request, reply) => {
      const { user, sessionId } = authOf(request)
      const staff = user.role === 'admin' || user.role === 'analyst'
      reply.hijack()
      reply.raw.writeHead(200, {
        ...(reply.getHeaders() as Record<string, string>),
        'content-type': 'text/event-stream; charset=utf-8',
        'cache-control': 'no-cache, no-transform',
        connection: 'keep-alive',
        // Proxies such as nginx must pass events through as they come.
        'x-accel-buffering': 'no',
      })
      stream.add({ userId: user.id, sessionId, staff, resumeAfter: lastEventId(request.headers) }, reply.raw)
    },
  )
}

/** The public, verifiable record: anyone may read it, without signing in. */
export const recordRoutes: FastifyPluginAsyncZod<{ signals: SignalsService }> = async (app, { signals }) => {
  const tags = ['record']

  cachedJsonRoute(app, {
    url: '/record',
    tags,
    summary:
      'The verified record, computed from the ledger entries alone: counts, win rate, units, ROI overall, per kind, category and month; commitments made, due, revealed and overdue; late voids; bettor figures for picks (yield at stated and level stakes, break-even, Wilson interval, luck, drawdown, losing runs, closing-line value, breakdowns) and trading signals (return, drawdown, Sharpe); the chain head. Recompute it with npm run verify-record',
    data: RecordSchema,
    load: () => signals.record(),
    // Recomputed at most every few seconds, and as soon as the ledger moves (here or, by NOTIFY, anywhere).
    ttlMs: 5_000,
    cacheControl: 'public, max-age=5, stale-while-revalidate=30',
    invalidatedBy: signals.recordChanged,
    // A member's own record (`since` a date) is computed per request and keeps the per-address budget.
    perRequest: {
      querystring: RecordQuerySchema,
      applies: (request) => hasSince(request.query),
      load: (request) => signals.record(new Date((request.query as { since: string }).since)),
    },
  })

  app.get(
    '/record/ledger',
    {
      schema: {
        tags,
        summary: 'The ledger entries in order after `after` (JSON, or CSV with format=csv)',
        querystring: LedgerQuerySchema,
        response: { 200: envelope(LedgerPageSchema) },
      },
    },
    async (request, reply) => {
      const page = await signals.ledger(request.query.after, request.query.limit)
      if (request.query.format === 'csv') {
        return (reply as FastifyReply)
          .header('content-type', 'text/csv; charset=utf-8')
          .header('content-disposition', 'attachment; filename="edgeclub-ledger.csv"')
          .send(toCsv(page.entries, LEDGER_COLUMNS))
      }
      return ok(page)
    },
  )

  app.get(
    '/record/signals/:id',
    {
      schema: {
        tags,
        summary:
          'One signal from its ledger entries: public metadata and commitment; its content and salt once settled or void',
        params: IdParams,
        response: { 200: envelope(SignalViewSchema) },
      },
    },
    async (request) => ok(await signals.publicSignal(request.params.id)),
  )
}
