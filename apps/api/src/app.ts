import path from 'node:path'
import { API_BASE } from '@edgeclub/shared'
import Fastify, { type FastifyInstance } from 'fastify'
import { serializerCompiler } from 'fastify-type-provider-zod'
import type { Config } from './config'
import { type Database, openDatabase } from './db/database'
import { btcpaySettings } from './integrations/btcpay/btcpay-client'
import { createMailer } from './integrations/mail/mailer'
import { type Clock, systemClock } from './lib/clock'
import { createHotLane } from './lib/hot-lane'
import { resolveJwtSecret } from './lib/jwt-secret'
import { censorLogLine, LOG_REDACT_PATHS, redactUrl } from './lib/redact'
import { requestId } from './lib/request-id'
import { trustProxyOption } from './lib/trust-proxy'
import { validatorCompiler } from './lib/validator-compiler'
import { adminRoutes } from './modules/admin/admin-routes'
import { ensureAdmin } from './modules/auth/admin-accounts'
import { authRoutes } from './modules/auth/auth-routes'
import { AUTH_CHANNEL } from './modules/auth/session-cache'
import { claimsRoutes } from './modules/claims/claims-routes'
import { clientConfigRoutes } from './modules/client-config/client-config-routes'
import { communityRoutes } from './modules/community/community-routes'
import { discordConnectRoutes } from './modules/community/discord-connect-routes'
import { contactRoutes } from './modules/contact/contact-routes'
import { marketRoutes } from './modules/market/market-routes'
import { cardRoutes } from './modules/payments/card/card-routes'
import { stripeWebhookRoutes } from './modules/payments/card/stripe-webhook-routes'
import { paymentRoutes } from './modules/payments/common/payments-routes'
import { btcpayWebhookRoutes, cryptoRoutes } from './modules/payments/crypto/crypto-routes'
import { promoCodeRoutes } from './modules/payments/promo/promo-codes-routes'
import { tipRoutes } from './modules/payments/tips/tips-routes'
import { placesRoutes } from './modules/places/places-routes'
import { plansAdminRoutes } from './modules/plans/plans-admin-routes'
import { planRoutes } from './modules/plans/plans-routes'
import { createPushRepository, PUSH_CHANNEL } from './modules/push/push-repository'
import { pushRoutes } from './modules/push/push-routes'
import { resolveVapidKeys } from './modules/push/vapid-keys'
import { recordLogRoutes } from './modules/signals/record-log/record-log-routes'
import { resolveLedgerKey } from './modules/signals/record-log/signing-key'
import { STREAMS_CHANNEL } from './modules/signals/signal-stream'
import { recordRoutes, signalRoutes } from './modules/signals/signals-routes'
import { LEDGER_CHANNEL } from './modules/signals/signals-service'
import { membershipAdminRoutes } from './modules/subscriptions/membership-admin-routes'
import { membershipRoutes } from './modules/subscriptions/membership-routes'
import { subscriptionRoutes } from './modules/subscriptions/subscriptions-routes'
import { telegramRoutes } from './modules/telegram/telegram-routes'
import auditPlugin from './plugins/audit'
import authPlugin from './plugins/auth'
import errorsPlugin, { apiNotFound, clientErrorHandler, frameworkErrorHandler } from './plugins/errors'
import { healthRoutes } from './plugins/health'
import { countJobAttempts, metricsPlugin } from './plugins/metrics'
import openapiPlugin from './plugins/openapi'
import securityPlugin, {
  apiSecurityHeaders,
  cspDirectives,
  jsonSecurityHeaders,
  responseSecurityHeaders,
} from './plugins/security'
import { webRoutes } from './plugins/web'
import { prepareDatabase } from './prepare-database'
import type { Jobs } from './queue/job-runner'
import { createServices, type Services } from './services'
import { QUEUES, registerWorkers } from './workers'

declare module 'fastify' {
  interface FastifyInstance {
    /** The wired services, for the CLI and for tests that act as the scheduler would. */
    services: Services
  }
}

export interface BuildOptions {
  /** The services' clock (tests move it). */
  clock?: Clock
  /** An open database to use instead of the one the config names (tests). */
  database?: Database
  /** Close `database` with the app (the server opened it early, for the app); tests keep theirs. */
  closeDatabase?: boolean
  /** Where log lines go (tests read them); stdout by default. */
  logStream?: NodeJS.WritableStream
}

/** How long a closing server waits for requests in flight (the process gives up at 20 s: server.ts). */
const DRAIN_MS = 10_000

function logger(config: Config, stream: NodeJS.WritableStream | undefined) {
  return {
    level: config.logLevel,
    redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
    // Every object a line carries, an error included, with its credential fields censored.
    formatters: { log: censorLogLine },
    serializers: {
      req: (request: { method: string; url: string; id: string; ip: string }) => ({
        method: request.method,
        url: redactUrl(request.url),
        id: request.id,
        // The client's address as TRUST_PROXY lets the server see it.
        ip: request.ip,
      }),
    },
    ...(stream ? { stream } : {}),
  }
}

/**
 * Builds the whole server: database (migrated and seeded), job queue, services and routes.
 * Plugins load external → app → routes (fastify/demo); services are wired here, once.
 */
export async function buildApp(config: Config, options: BuildOptions = {}): Promise<FastifyInstance> {
  const headers = responseSecurityHeaders(config)
  // Both refusals below answer with the JSON envelope, so with an API answer's security headers.
  const envelopeHeaders = apiSecurityHeaders(headers)
  // Cached public JSON is answered before Fastify routes the request (lib/hot-lane.ts).
  const hotLane = createHotLane({ securityHeaders: jsonSecurityHeaders(headers) })
  const app = Fastify({
    serverFactory: hotLane.serverFactory,
    logger: logger(config, options.logStream),
    bodyLimit: 1024 * 1024,
    trustProxy: trustProxyOption(config.trustProxy),
    // genReqId reads x-request-id itself, so a malformed value is replaced instead of echoed; every
    // answer sends the id back (plugins/security.ts).
    requestIdHeader: false,
    genReqId: (request) => requestId(request.headers),
    routerOptions: { ignoreTrailingSlash: true },
    frameworkErrors: frameworkErrorHandler(envelopeHeaders),
    clientErrorHandler: clientErrorHandler(envelopeHeaders),
    forceCloseConnections: 'idle',
    // A request that reaches a stopping instance on a connection it already had is answered (with
    // Connection: close, so the client goes elsewhere next): the database is closed only after the
    // last connection ends. Fastify's own 503 here would carry no Retry-After.
    return503OnClosing: false,
  })
  app.decorate('hotLane', hotLane)
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  // Request bodies are JSON (webhooks read theirs raw): any other type is answered 415, never parsed.
  app.removeContentTypeParser('text/plain')

  const database =
    options.database ??
    (await openDatabase(
      config.databaseUrl
        ? {
            databaseUrl: config.databaseUrl,
            timeouts: config.database.timeouts,
            onError: (error) =>
              app.log.warn(
                { err: { message: error.message } },
                'a database connection failed; the pool replaces it',
              ),
          }
        : { pgliteDir: config.dataDir },
    ))
  let closing = false
  let drained = Promise.resolve()
  app.addHook('preClose', async () => {
    closing = true
    hotLane.stop()
    // New connections are refused from the first moment of the close, not after the other hooks;
    // the last preClose hook waits for the requests in flight (see below).
    if (app.server.listening) drained = new Promise((resolve) => app.server.close(() => resolve()))
    // Requests in flight get this long to finish; then what is left (a client that sent half a request
    // and went quiet) is cut, so the close goes on to stop the jobs and the database cleanly.
    setTimeout(() => app.server.closeAllConnections(), DRAIN_MS).unref()
  })

  let jobs: Jobs
  try {
    jobs = await prepareDatabase(database, {
      policies: QUEUES,
      pollSeconds: config.jobs.pollSeconds,
      retryDelayScale: config.jobs.retryDelayScale,
      log: app.log,
    })
  } catch (error) {
    await database.close()
    throw error
  }
  const mailer = createMailer({
    smtpUrl: config.mail.smtpUrl,
    from: config.mail.from,
    outboxDir: path.join(config.dataDir, 'outbox'),
    log: app.log,
  })
  app.addHook('onClose', async () => {
    await jobs.stop()
    mailer.close()
    if (!options.database || options.closeDatabase) await database.close()
  })

  const clock = options.clock ?? systemClock
  const jwtSecret = await resolveJwtSecret(config.jwtSecret, config.dataDir)
  const ledgerKey = await resolveLedgerKey({
    configured: config.ledgerSigningKey,
    dataDir: config.dataDir,
    kind: database.kind,
    db: database.db,
  })
  const vapid = await resolveVapidKeys({
    configured: config.push.vapid,
    database: database.kind,
    dataDir: config.dataDir,
    repo: createPushRepository(database.db),
  })
  const services = createServices({
    config,
    database,
    jobs,
    mailer,
    clock,
    jwtSecret,
    ledgerKey,
    vapid,
    log: app.log,
  })
  // Every size of the ledger has its signed head (a ledger older than the signed log is signed now).
  await services.recordLog.init()
  await app.register(metricsPlugin, { config, database, liveStreams: () => services.signalStream.size() })
  // The configured Discord member role is a place from the start: what every plan granted before places.
  await services.places.ensureBuiltIn()
  await registerWorkers(countJobAttempts(jobs, app.metrics), services, {
    log: app.log,
    appOrigin: config.appOrigin,
    signalsChannelId: config.discord.signalsChannelId,
  })
  // Every instance hears the ledger move (PostgreSQL NOTIFY) and streams it to its own readers.
  const stopListening = await database.listen(LEDGER_CHANNEL, () => {
    services.signals.recordChanged.invalidate()
    services.signalStream.wake()
    jobs.wake('push.fanout')
  })
  // Push notifications were queued (here or on another instance): this instance's senders start now.
  const stopPushListening = await database.listen(PUSH_CHANNEL, () => jobs.wake('push.send'))
  services.signalStream.start()
  // Every instance forgets a signed-in user whose row or session changed anywhere (a trigger NOTIFYs),
  // and looks at that member's live streams again (signed out, disabled: closed at once).
  const stopAuthListening = await database.listen(AUTH_CHANNEL, (payload) => {
    services.sessions.heard(payload)
    services.signalStream.heard('auth', payload)
  })
  // Streams opened and closed on every instance (the per-member limit), and access changes.
  const stopStreamsListening = await database.listen(STREAMS_CHANNEL, (payload) =>
    services.signalStream.heard('streams', payload),
  )
  app.addHook('preClose', async () => {
    services.signalStream.stop()
    await stopListening()
    await stopAuthListening()
    await stopStreamsListening()
    await stopPushListening()
  })
  // Registered after the hook that ends the signal streams, so those do not hold the close open.
  app.addHook('preClose', async () => {
    await drained
  })
  if (config.admin) {
    const outcome = await ensureAdmin(
      services.authRepo,
      config.admin.email,
      config.admin.password,
      clock.now(),
    )
    if (outcome !== 'unchanged') app.log.info({ outcome }, 'admin account from ADMIN_EMAIL is ready')
  }
  app.decorate('services', services)

  await app.register(errorsPlugin, { logStacks: config.env !== 'production' })
  await app.register(securityPlugin, { config, headers })
  await app.register(openapiPlugin)
  await app.register(authPlugin, { auth: services.auth })
  await app.register(auditPlugin, { log: services.audit })
  await app.register(healthRoutes, { database, isClosing: () => closing })

  await app.register(
    async (api) => {
      api.setNotFoundHandler(apiNotFound)
      await api.register(clientConfigRoutes, { config })
      await api.register(authRoutes, { auth: services.auth, limits: config.limits.auth })
      await api.register(planRoutes, { plans: services.plans })
      await api.register(marketRoutes, { market: services.market })
      await api.register(contactRoutes, { contact: services.contact, perHour: config.limits.contactPerHour })
      await api.register(paymentRoutes, { payments: services.payments })
      await api.register(cardRoutes, { card: services.card })
      await api.register(subscriptionRoutes, { subscriptions: services.subscriptions, card: services.card })
      await api.register(membershipRoutes, { membership: services.membership })
      await api.register(membershipAdminRoutes, {
        membership: services.membership,
        accounts: services.accounts,
        grant: (userId, input) => services.admin.grant(userId, input),
      })
      await api.register(tipRoutes, { tips: services.tips })
      await api.register(promoCodeRoutes, { promos: services.promos })
      await api.register(cryptoRoutes, { crypto: services.crypto })
      await api.register(stripeWebhookRoutes, {
        stripe: services.stripe,
        secret: config.stripe.webhookSecret,
        webhooks: services.stripeWebhooks,
      })
      await api.register(btcpayWebhookRoutes, {
        secret: btcpaySettings(config.btcpay)?.webhookSecret,
        crypto: services.crypto,
      })
      await api.register(communityRoutes, { community: services.community })
      await api.register(discordConnectRoutes, { connect: services.discordConnect })
      await api.register(telegramRoutes, {
        telegram: services.telegram,
        webhookSecret: config.telegram?.webhookSecret,
      })
      await api.register(placesRoutes, { places: services.places })
      await api.register(signalRoutes, { signals: services.signals, stream: services.signalStream })
      await api.register(recordRoutes, { signals: services.signals })
      await api.register(recordLogRoutes, { recordLog: services.recordLog })
      await api.register(claimsRoutes, { claims: services.claims })
      await api.register(pushRoutes, { push: services.push })
      await api.register(adminRoutes, {
        admin: services.admin,
        accounts: services.accounts,
        subscriptions: services.subscriptions,
        audit: services.audit,
      })
      await api.register(plansAdminRoutes, { plansAdmin: services.plansAdmin })
    },
    { prefix: API_BASE },
  )

  if (config.webRoot) {
    await app.register(webRoutes, {
      root: config.webRoot,
      appOrigin: config.appOrigin,
      csp: cspDirectives(config),
      claims: () => services.claims.shown(),
    })
  } else {
    app.setNotFoundHandler(apiNotFound)
  }

  return app
}
