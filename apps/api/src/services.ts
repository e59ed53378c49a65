import type { FastifyBaseLogger } from 'fastify'
import type { Config } from './config'
import type { Database } from './db/database'
import { createTallies } from './db/tallies'
import { btcpaySettings, createBtcpayClient } from './integrations/btcpay/btcpay-client'
import { createDiscordClient } from './integrations/discord/discord-client'
import { createDiscordOAuth } from './integrations/discord/discord-oauth'
import type { Mailer } from './integrations/mail/mailer'
import { fetchPrices } from './integrations/prices/price-feed'
import { createStripe } from './integrations/stripe/stripe-client'
import { createEmailQueue } from './jobs/email-worker'
import type { Jobs } from './jobs/job-runner'
import type { Clock } from './lib/clock'
import { createAdminRepository } from './modules/admin/admin-repository'
import { createAdminService } from './modules/admin/admin-service'
import { createAudit } from './modules/admin/audit'
import { createAccessTokens } from './modules/auth/access-tokens'
import { createAuthRepository } from './modules/auth/auth-repository'
import { createAuthService } from './modules/auth/auth-service'
import { createSessionCache } from './modules/auth/session-cache'
import { createCommunityRepository } from './modules/community/community-repository'
import { createCommunityService } from './modules/community/community-service'
import { createDiscordConnectRepository } from './modules/community/discord-connect-repository'
import { createDiscordConnectService } from './modules/community/discord-connect-service'
import { createContactRepository } from './modules/contact/contact-repository'
import { createContactService } from './modules/contact/contact-service'
import { createMarketService } from './modules/market/market-service'
import { createCardCheckoutService } from './modules/payments/card/card-checkout-service'
import { createStripeCatalog } from './modules/payments/card/stripe-catalog'
import { createStripeReconciliation } from './modules/payments/card/stripe-reconciliation'
import { createStripeWebhooks } from './modules/payments/card/stripe-webhooks'
import { createCryptoService } from './modules/payments/crypto/crypto-service'
import { createFulfilment } from './modules/payments/ledger/fulfilment'
import { createPaymentEffects } from './modules/payments/ledger/payment-effects'
import { createPaymentsRepository } from './modules/payments/ledger/payments-repository'
import { createPaymentsService } from './modules/payments/ledger/payments-service'
import { createReconciliation, type ReconciliationSource } from './modules/payments/ledger/reconciliation'
import { createPlansAdminService } from './modules/plans/plans-admin-service'
import { createPlansRepository } from './modules/plans/plans-repository'
import { createPlansService } from './modules/plans/plans-service'
import { createSignalStream } from './modules/signals/signal-stream'
import { createSignalsRepository } from './modules/signals/signals-repository'
import { createSignalsService } from './modules/signals/signals-service'
import { createSubscriptionsRepository } from './modules/subscriptions/subscriptions-repository'
import { createSubscriptionsService } from './modules/subscriptions/subscriptions-service'
import { createTipsRepository } from './modules/tips/tips-repository'
import { createTipsService } from './modules/tips/tips-service'

/** What the services are built from: the process's connections to the outside world. */
export interface Infrastructure {
  config: Config
  database: Database
  jobs: Jobs
  mailer: Mailer
  clock: Clock
  jwtSecret: string
  log: FastifyBaseLogger
}

/**
 * The one place services are built and wired to each other, in dependency order: repositories, then
 * the access ledger and plans, the payment rails around the shared ledger, then the domains that read
 * them. No module builds another module's services.
 */
export function createServices(infra: Infrastructure) {
  const { config, jobs, clock, log } = infra
  const db = infra.database.db
  const email = createEmailQueue(jobs)

  // Repositories: queries only.
  const authRepo = createAuthRepository(db)
  const plansRepo = createPlansRepository(db)
  const paymentsRepo = createPaymentsRepository(db)
  const subscriptionsRepo = createSubscriptionsRepository(db)

  // Live sessions' users in memory for a few seconds, forgotten on every change (see session-cache.ts).
  const sessions = createSessionCache()
  const auth = createAuthService({
    sessions,
    repo: authRepo,
    accessTokens: createAccessTokens(infra.jwtSecret, () => clock.now()),
    email,
    jobs,
    mailer: infra.mailer,
    clock,
    appOrigin: config.appOrigin,
    resetLinkSecret: infra.jwtSecret,
    emailLogKey: infra.jwtSecret,
  })
  const plans = createPlansService({ repo: plansRepo })

  // The shared ledger: one fulfilment for every rail, its outbox effects, refunds, the member's view.
  const fulfilment = createFulfilment({
    payments: paymentsRepo,
    subscriptions: subscriptionsRepo,
    plans: plansRepo,
    clock,
    effects: createPaymentEffects({ jobs, appOrigin: config.appOrigin }),
  })
  const payments = createPaymentsService({
    repo: paymentsRepo,
    subscriptions: subscriptionsRepo,
    jobs,
    clock,
  })

  // Card: Stripe (when configured).
  const stripe = createStripe({ secretKey: config.stripe.secretKey, apiBase: config.stripe.apiBase })
  const catalog = stripe ? createStripeCatalog({ db, stripe }) : undefined
  const card = createCardCheckoutService({
    stripe,
    catalog,
    payments: paymentsRepo,
    ledger: payments,
    subscriptions: subscriptionsRepo,
    plans,
    plansRepo,
    users: authRepo,
    fulfilment,
    clock,
  })

  // The subscription lifecycle, which reaches Stripe through the card side.
  const subscriptions = createSubscriptionsService({
    repo: subscriptionsRepo,
    plans: plansRepo,
    card,
    jobs,
    clock,
    graceDays: config.billing.graceDays,
    appOrigin: config.appOrigin,
  })
  const stripeWebhooks = stripe
    ? createStripeWebhooks({
        stripe,
        payments: paymentsRepo,
        ledger: payments,
        card,
        subscriptions,
        fulfilment,
        clock,
      })
    : undefined
  const tips = createTipsService({
    stripe,
    repo: createTipsRepository(db),
    payments: paymentsRepo,
    ledger: payments,
    card,
    users: authRepo,
    clock,
  })

  // Crypto: BTCPay (when configured).
  const btcpayConfig = btcpaySettings(config.btcpay)
  const crypto = createCryptoService({
    btcpay: btcpayConfig ? createBtcpayClient(btcpayConfig) : undefined,
    storeId: btcpayConfig?.storeId,
    payments: paymentsRepo,
    subscriptions: subscriptionsRepo,
    plans,
    fulfilment,
    users: authRepo,
    jobs,
    clock,
    appOrigin: config.appOrigin,
    log,
  })

  const audit = createAudit(db)
  const reconciliationSources: ReconciliationSource[] = []
  if (stripe)
    reconciliationSources.push(
      createStripeReconciliation({
        stripe,
        payments: paymentsRepo,
        checkout: card,
        fulfilment,
        subscriptions,
        clock,
        log,
      }),
    )
  if (crypto.configured()) reconciliationSources.push(crypto.reconciliation)
  const reconciliation = createReconciliation({
    sources: reconciliationSources,
    payments: paymentsRepo,
    audit,
    clock,
    log,
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
  const communityRepo = createCommunityRepository(db)
  const discordConnectRepo = createDiscordConnectRepository(db)
  const community = createCommunityService({
    config: config.discord,
    discord: discordClient,
    repo: communityRepo,
    connections: discordConnectRepo,
    users: authRepo,
    access: subscriptions,
    jobs,
    clock,
    log,
  })
  // Connect Discord (OAuth2), when the application's credentials are configured.
  const discordConnect = createDiscordConnectService({
    config: config.discord,
    oauth: config.discord.oauth ? createDiscordOAuth(config.discord.oauth) : undefined,
    discord: discordClient,
    repo: discordConnectRepo,
    links: communityRepo,
    access: subscriptions,
    audit,
    jobs,
    clock,
    log,
  })

  const plansAdmin = createPlansAdminService({ repo: plansRepo, plans, catalog, clock, log })
  const admin = createAdminService({
    repo: createAdminRepository(db),
    users: authRepo,
    plans: plansRepo,
    payments: paymentsRepo,
    subscriptions: subscriptionsRepo,
    card,
    reconciliation,
    jobs,
    clock,
    sessions,
  })
  const market = createMarketService({
    fetchPrices: () => fetchPrices(config.priceFeedUrl, { timeoutMs: config.limits.priceFeedTimeoutMs }),
    cacheMs: config.limits.priceCacheMs,
    log,
  })
  const contact = createContactService({ repo: createContactRepository(db), email })

  // The signal room: the ledger, the record, and the live stream of this instance.
  const signalsRepo = createSignalsRepository(db)
  const signals = createSignalsService({
    repo: signalsRepo,
    jobs,
    clock,
    hasAccess: async (userId) => Boolean(await subscriptions.currentAccess(userId)),
    prices: () => market.getPrices(),
    audit,
    log,
  })
  const signalStream = createSignalStream({ repo: signalsRepo, clock, log, maxStreamMs: 15 * 60_000 })

  return {
    jobs,
    clock,
    tallies: createTallies(db),
    authRepo,
    paymentsRepo,
    sessions,
    auth,
    plans,
    plansAdmin,
    payments,
    fulfilment,
    card,
    stripe,
    stripeWebhooks,
    subscriptions,
    tips,
    crypto,
    reconciliation,
    community,
    discordConnect,
    discordConfigured: Boolean(discordClient),
    audit,
    admin,
    market,
    contact,
    discordClient,
    signalsRepo,
    signals,
    signalStream,
  }
}
export type Services = ReturnType<typeof createServices>
