import { randomUUID } from 'node:crypto'
import path from 'node:path'
import { API_BASE } from '@edgeclub/shared'
import Fastify, { type FastifyInstance } from 'fastify'
import { serializerCompiler, validatorCompiler } from 'fastify-type-provider-zod'
import type { Config } from './config'
import { type Database, openDatabase } from './db/database'
import { migrateToLatest } from './db/migrate'
import { seedPlans } from './db/seed'
import { createDiscordClient } from './integrations/discord/discord-client'
import { createMailer } from './integrations/mail/mailer'
import { fetchPrices } from './integrations/prices/price-feed'
import type { Jobs } from './jobs/boss'
import { startJobs } from './jobs/boss'
import { createEmailQueue, startEmailWorker } from './jobs/email'
import { type Clock, systemClock } from './lib/clock'
import { resolveJwtSecret } from './lib/jwt-secret'
import { LOG_REDACT_PATHS, redactUrl } from './lib/redact'
import { createAdminRepository } from './modules/admin/admin-repository'
import { adminRoutes } from './modules/admin/admin-routes'
import { createAdminService } from './modules/admin/admin-service'
import { createAudit } from './modules/admin/audit'
import { createAccessTokens } from './modules/auth/access-tokens'
import { ensureAdmin } from './modules/auth/admin-accounts'
import { createAuthRepository } from './modules/auth/auth-repository'
import { authRoutes } from './modules/auth/auth-routes'
import type { AuthService } from './modules/auth/auth-service'
import { createAuthService } from './modules/auth/auth-service'
import { clientConfigRoutes } from './modules/client-config/client-config-routes'
import { createCommunityRepository } from './modules/community/community-repository'
import { communityRoutes } from './modules/community/community-routes'
import { type CommunityService, createCommunityService } from './modules/community/community-service'
import { createContactRepository } from './modules/contact/contact-repository'
import { contactRoutes } from './modules/contact/contact-routes'
import { createContactService } from './modules/contact/contact-service'
import { marketRoutes } from './modules/market/market-routes'
import { createMarketService } from './modules/market/market-service'
import { type AccessListeners, type Billing, createBilling } from './modules/payments/billing'
import { createPlansAdminService } from './modules/plans/plans-admin-service'
import { createPlansRepository } from './modules/plans/plans-repository'
import { planRoutes } from './modules/plans/plans-routes'
import type { PlansService } from './modules/plans/plans-service'
import { createPlansService } from './modules/plans/plans-service'
import authPlugin from './plugins/auth'
import errorsPlugin, { apiNotFound } from './plugins/errors'
import { healthRoutes } from './plugins/health'
import openapiPlugin from './plugins/openapi'
import securityPlugin, { cspDirectives } from './plugins/security'
import { webRoutes } from './plugins/web'

/** The wired services, for jobs, the CLI and tests that need to act as the scheduler would. */
export interface Services {
  auth: AuthService
  billing: Billing
  plans: PlansService
  jobs: Jobs
  clock: Clock
  community: CommunityService
}

declare module 'fastify' {
  interface FastifyInstance {
    services: Services
  }
}

export interface BuildOptions {
  /** The services' clock (tests move it). */
  clock?: Clock
  /** An open database to use instead of the one the config names (tests). */
  database?: Database
  /** Where log lines go (tests read them); stdout by default. */
  logStream?: NodeJS.WritableStream
}

const REQUEST_ID = /^[A-Za-z0-9._-]{8,64}$/

function logger(config: Config, stream: NodeJS.WritableStream | undefined) {
  return {
    level: config.logLevel,
    redact: { paths: LOG_REDACT_PATHS, censor: '[redacted]' },
    serializers: {
      req: (request: { method: string; url: string; id: string }) => ({
        method: request.method,
        url: redactUrl(request.url),
        id: request.id,
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
  const app = Fastify({
    logger: logger(config, options.logStream),
    bodyLimit: 1024 * 1024,
    trustProxy: config.trustProxy,
    // genReqId reads x-request-id itself, so a malformed value is replaced instead of echoed.
    requestIdHeader: false,
    genReqId: (request) => {
      const incoming = request.headers['x-request-id']
      return typeof incoming === 'string' && REQUEST_ID.test(incoming) ? incoming : randomUUID()
    },
    routerOptions: { ignoreTrailingSlash: true },
    forceCloseConnections: 'idle',
    return503OnClosing: true,
  })
  app.setValidatorCompiler(validatorCompiler)
  app.setSerializerCompiler(serializerCompiler)
  app.addHook('onRequest', (request, reply, done) => {
    reply.header('x-request-id', request.id)
    done()
  })

  const database =
    options.database ??
    (await openDatabase(
      config.databaseUrl ? { databaseUrl: config.databaseUrl } : { pgliteDir: config.dataDir },
    ))
  let closing = false
  app.addHook('preClose', async () => {
    closing = true
  })

  try {
    await migrateToLatest(database.db)
    await seedPlans(database.db)
  } catch (error) {
    await database.close()
    throw error
  }

  const jobs = await startJobs(database, { pollSeconds: config.jobs.pollSeconds, log: app.log })
  const mailer = createMailer({
    smtpUrl: config.mail.smtpUrl,
    from: config.mail.from,
    outboxDir: path.join(config.dataDir, 'outbox'),
    log: app.log,
  })
  app.addHook('onClose', async () => {
    await jobs.stop()
    mailer.close()
    if (!options.database) await database.close()
  })
  const email = createEmailQueue(jobs)
  await startEmailWorker(jobs, mailer, app.log)

  const clock = options.clock ?? systemClock
  const jwtSecret = await resolveJwtSecret(config.jwtSecret, config.dataDir)
  const authRepo = createAuthRepository(database.db)
  const auth = createAuthService({
    repo: authRepo,
    accessTokens: createAccessTokens(jwtSecret, () => clock.now()),
    email,
    mailer,
    clock,
    appOrigin: config.appOrigin,
    log: app.log,
  })
  await jobs.work<{ email: string }>('auth.password-reset', async (job) => {
    const outcome = await auth.sendPasswordReset(job.data.email)
    if (outcome === 'throttled') app.log.warn('password reset emails for one address hit the hourly limit')
    await jobs.deleteJob('auth.password-reset', job.id)
  })
  const enqueuePasswordReset = async (email: string) => {
    await jobs.send('auth.password-reset', { email }, { retryLimit: 3, retryDelay: 10, retryBackoff: true })
  }
  if (config.admin) {
    const outcome = await ensureAdmin(authRepo, config.admin.email, config.admin.password, clock.now())
    if (outcome !== 'unchanged') app.log.info({ outcome }, 'admin account from ADMIN_EMAIL is ready')
  }

  const plansRepo = createPlansRepository(database.db)
  const plans = createPlansService({ repo: plansRepo })
  // Discord follows the ledger: any change of someone's access queues a role sync for them.
  const requestDiscordSync = async (userId: string, options: { throttle?: boolean } = {}) => {
    await jobs.send(
      'discord.sync',
      { userId },
      {
        retryLimit: 8,
        retryDelay: 5,
        retryBackoff: true,
        // Polling dashboards and the 15-minute sweep ask at most every few seconds per member;
        // access changes always queue.
        ...(options.throttle ? { singletonKey: `poll-${userId}`, singletonSeconds: 5 } : {}),
      },
    )
  }
  const listeners: AccessListeners = { accessChanged: (userId) => requestDiscordSync(userId) }
  const billing = await createBilling({
    config,
    db: database.db,
    jobs,
    email,
    clock,
    users: authRepo,
    plans: plansRepo,
    log: app.log,
    listeners,
  })
  const audit = createAudit(database.db)
  const plansAdmin = createPlansAdminService({
    repo: plansRepo,
    plans,
    catalog: billing.catalog,
    clock,
    log: app.log,
  })
  const admin = createAdminService({
    db: database.db,
    repo: createAdminRepository(database.db),
    users: authRepo,
    plans: plansRepo,
    payments: billing.payments,
    subscriptions: billing.subscriptionsRepo,
    stripe: billing.stripe,
    webhooks: billing.webhooks,
    clock,
    listeners,
  })
  const discordClient =
    config.discord.botToken && config.discord.guildId
      ? createDiscordClient({
          botToken: config.discord.botToken,
          guildId: config.discord.guildId,
          inviteChannelId: config.discord.inviteChannelId,
          memberRoleId: config.discord.memberRoleId,
          announceChannelId: config.discord.announceChannelId,
          apiBase: config.discord.apiBase,
        })
      : undefined
  const community = createCommunityService({
    config: config.discord,
    discord: discordClient,
    repo: createCommunityRepository(database.db),
    users: authRepo,
    access: billing.subscriptions,
    email,
    clock,
    log: app.log,
  })
  await jobs.work<{ userId: string }>('discord.sync', async (job) => {
    await community.syncMember(job.data.userId)
  })
  await jobs.work('discord.sync-all', async () => {
    for (const userId of await community.syncCandidates())
      await requestDiscordSync(userId, { throttle: true })
  })
  if (discordClient) await jobs.schedule('discord.sync-all', '*/15 * * * *')

  app.decorate('services', { auth, billing, plans, jobs, clock, community })
  const market = createMarketService({
    fetchPrices: () => fetchPrices(config.priceFeedUrl, { timeoutMs: config.limits.priceFeedTimeoutMs }),
    cacheMs: config.limits.priceCacheMs,
    log: app.log,
  })
  const contact = createContactService({ repo: createContactRepository(database.db), email })

  await app.register(errorsPlugin, { logStacks: config.env !== 'production' })
  await app.register(securityPlugin, { config })
  await app.register(openapiPlugin)
  await app.register(authPlugin, { auth })
  await app.register(healthRoutes, { database, isClosing: () => closing })

  await app.register(
    async (api) => {
      api.setNotFoundHandler(apiNotFound)
      await api.register(clientConfigRoutes, { config })
      await api.register(authRoutes, { auth, limits: config.limits.auth, enqueuePasswordReset })
      await api.register(planRoutes, { plans })
      await api.register(marketRoutes, { market })
      await api.register(contactRoutes, { contact, perHour: config.limits.contactPerHour })
      await billing.registerRoutes(api)
      await api.register(communityRoutes, {
        community,
        audit,
        requestSync: (userId) => requestDiscordSync(userId, { throttle: true }),
      })
      await api.register(adminRoutes, {
        admin,
        audit,
        plansAdmin,
        plans: plansRepo,
        payments: billing.payments,
        subscriptions: billing.subscriptionsRepo,
      })
    },
    { prefix: API_BASE },
  )

  if (config.webRoot) {
    await app.register(webRoutes, {
      root: config.webRoot,
      appOrigin: config.appOrigin,
      csp: cspDirectives(config),
    })
  } else {
    app.setNotFoundHandler(apiNotFound)
  }

  return app
}
