import type { FastifyBaseLogger } from 'fastify'
import { createAuditLog } from './audit/audit-log'
import type { Config } from './config'
import type { Database } from './db/database'
import { createRollups } from './db/rollups'
import { transactionRunner } from './db/transaction'
import { btcpaySettings, createBtcpayClient } from './integrations/btcpay/btcpay-client'
import { createDiscordClient } from './integrations/discord/discord-client'
import { createDiscordOAuth } from './integrations/discord/discord-oauth'
import type { Mailer } from './integrations/mail/mailer'
import { fetchPrices } from './integrations/prices/price-feed'
import { createStripe } from './integrations/stripe/stripe-client'
import { createTelegramClient } from './integrations/telegram/telegram-client'
import { createPushClient } from './integrations/webpush/push-client'
import type { Clock } from './lib/clock'
import { createMailDeliveries } from './mail/mail-deliveries'
import { createMailDelivery, createMailQueue } from './mail/mail-queue'
import { createAdminRepository } from './modules/admin/admin-repository'
import { createAdminService } from './modules/admin/admin-service'
import { createAccessTokens } from './modules/auth/access-tokens'
import { createAccountsService } from './modules/auth/accounts-service'
import { createAuthRepository } from './modules/auth/auth-repository'
import { createAuthService } from './modules/auth/auth-service'
import { createSessionCache } from './modules/auth/session-cache'
import { createClaimsRepository } from './modules/claims/claims-repository'
import { createClaimsService } from './modules/claims/claims-service'
import { discordFollowsAccess } from './modules/community/community-jobs'
import { createCommunityRepository } from './modules/community/community-repository'
import { createCommunityService } from './modules/community/community-service'
import { createDiscordConnectRepository } from './modules/community/discord-connect-repository'
import { createDiscordConnectService } from './modules/community/discord-connect-service'
import { createContactRepository } from './modules/contact/contact-repository'
import { createContactService } from './modules/contact/contact-service'
import { createMarketService } from './modules/market/market-service'
import { createCardCheckoutService } from './modules/payments/card/card-checkout-service'
import { createStripeCatalog } from './modules/payments/card/stripe-catalog'
import { createStripeMembership } from './modules/payments/card/stripe-membership'
import { createStripePromotions } from './modules/payments/card/stripe-promotions'
import { createStripeReconciliation } from './modules/payments/card/stripe-reconciliation'
import { createStripeWebhooks } from './modules/payments/card/stripe-webhooks'
import { createTrialClaims } from './modules/payments/card/trial-claims'
import { createFulfilment } from './modules/payments/common/fulfilment'
import { createPaymentEffects } from './modules/payments/common/payment-effects'
import { createPaymentsRepository } from './modules/payments/common/payments-repository'
import { createPaymentsService } from './modules/payments/common/payments-service'
import { createReconciliation, type ReconciliationSource } from './modules/payments/common/reconciliation'
import { createCryptoService } from './modules/payments/crypto/crypto-service'
import { createPromoCodesRepository } from './modules/payments/promo/promo-codes-repository'
import { createPromoCodesService } from './modules/payments/promo/promo-codes-service'
import { createTipsRepository } from './modules/payments/tips/tips-repository'
import { createTipsService } from './modules/payments/tips/tips-service'
import { createPlacesRepository } from './modules/places/places-repository'
import { createPlacesService } from './modules/places/places-service'
import { createPlansAdminService } from './modules/plans/plans-admin-service'
import { createPlansRepository } from './modules/plans/plans-repository'
import { createPlansService } from './modules/plans/plans-service'
import { createPushRepository } from './modules/push/push-repository'
import { createPushService } from './modules/push/push-service'
import { createRecordLogRepository } from './modules/signals/record-log/record-log-repository'
import { createRecordLog } from './modules/signals/record-log/record-log-service'
import type { LedgerKey } from './modules/signals/record-log/signing-key'
import { createSignalStream, streamsFollowAccess } from './modules/signals/signal-stream'
import { toSignalView } from './modules/signals/signal-views'
import { createSignalsRepository } from './modules/signals/signals-repository'
import { createSignalsService } from './modules/signals/signals-service'
import { createAccessService, type NoticeListener } from './modules/subscriptions/access-service'
import { createMembershipService } from './modules/subscriptions/membership-service'
import { createSubscriptionsRepository } from './modules/subscriptions/subscriptions-repository'
import { createSubscriptionsService } from './modules/subscriptions/subscriptions-service'
import { telegramFollowsAccess, telegramReminders } from './modules/telegram/telegram-jobs'
import { createTelegramRepository } from './modules/telegram/telegram-repository'
import { createTelegramSender } from './modules/telegram/telegram-sender'
import { createTelegramService } from './modules/telegram/telegram-service'
import type { Jobs } from './queue/job-runner'

/** What the services are built from: the process's connections to the outside world. */
export interface Infrastructure {
  config: Config
  database: Database
  jobs: Jobs
  mailer: Mailer
  clock: Clock
  jwtSecret: string
  /** The club's Ed25519 key that signs the record's heads. */
  ledgerKey: LedgerKey
  /** The VAPID key pair web push signs with (modules/push/vapid-keys.ts). */
  vapid: { publicKey: string; privateKey: string }
  log: FastifyBaseLogger
}

/**
 * The one place services are built and wired to each other, in dependency order: accounts and plans,
 * the one writer of access, the payment rails around the shared payments record, then the domains that
 * read them. A module's repository is its own: other modules get the narrow operations they use.
 */
export function createServices(infra: Infrastructure) {
  const { config, jobs, clock, log } = infra
  const db = infra.database.db
  const transaction = transactionRunner(db)
  // Every email leaves through one delivery: its send recorded in steps, so a crash repeats at most one.
  const mailDelivery = createMailDelivery({
    mailer: infra.mailer,
    deliveries: createMailDeliveries(db),
    log,
    domain: new URL(config.appOrigin).hostname,
  })
  const mail = createMailQueue(jobs, mailDelivery)
  const audit = createAuditLog(db)

  // Accounts and sessions. Live sessions' users stay in memory for a few seconds (session-cache.ts).
  const authRepo = createAuthRepository(db)
  const sessions = createSessionCache()
  const accounts = createAccountsService({ repo: authRepo, sessions, clock })
  const auth = createAuthService({
    sessions,
    repo: authRepo,
    accessTokens: createAccessTokens(infra.jwtSecret, () => clock.now()),
    mail,
    jobs,
    clock,
    appOrigin: config.appOrigin,
    resetLinkSecret: infra.jwtSecret,
    emailLogKey: infra.jwtSecret,
  })
  const plansRepo = createPlansRepository(db)
  const plans = createPlansService({ repo: plansRepo })

  // Access: the one writer of subscriptions; every change tells the communities in its transaction.
  // Notices (failed renewals, reminders) also go to Telegram; its service joins the list below.
  const communitiesFollow = [
    discordFollowsAccess(jobs),
    ...(config.telegram ? [telegramFollowsAccess(jobs)] : []),
  ]
  const notices: NoticeListener[] = []
  const access = createAccessService({
    repo: createSubscriptionsRepository(db),
    plans,
    mail,
    clock,
    graceDays: config.billing.graceDays,
    appOrigin: config.appOrigin,
    onAccessChanged: [...communitiesFollow, streamsFollowAccess()],
    onNotice: notices,
  })

  // Card: Stripe (when configured).
  const stripe = createStripe({ secretKey: config.stripe.secretKey, apiBase: config.stripe.apiBase })
  const catalog = stripe ? createStripeCatalog({ db, stripe }) : undefined

  // Promo codes: our rules for every rail, a Stripe coupon and promotion code for card payments.
  const promos = createPromoCodesService({
    repo: createPromoCodesRepository(db),
    stripe: stripe && catalog ? createStripePromotions({ stripe, catalog }) : undefined,
    plans,
    access: { hasAccessNow: async (userId) => Boolean(await access.currentAccess(userId)) },
    clock,
  })

  // The payments record every rail shares: one fulfilment, its outbox effects, refunds, the member's view.
  const paymentsRepo = createPaymentsRepository(db)
  const fulfilment = createFulfilment({
    payments: paymentsRepo,
    access,
    plans,
    clock,
    effects: createPaymentEffects({
      jobs,
      mail,
      appOrigin: config.appOrigin,
      redeemCode: (trx, paymentId) => promos.redeem(trx, paymentId),
    }),
  })
  const payments = createPaymentsService({ repo: paymentsRepo, access, jobs, clock })

  // Card: Stripe's checkout.
  const card = createCardCheckoutService({
    stripe,
    promos,
    trials: createTrialClaims({ transaction, payments: paymentsRepo, accounts }),
    transaction,
    testClocks: config.stripe.testClocks,
    catalog,
    payments: paymentsRepo,
    ledger: payments,
    access,
    plans,
    accounts,
    fulfilment,
    clock,
  })
  const subscriptions = createSubscriptionsService({
    repo: createSubscriptionsRepository(db),
    access,
    plans,
    card,
    clock,
  })
  // Changing a renewing plan: upgrades, downgrades, pauses, a new card, the offer at cancel.
  const membership = createMembershipService({
    access,
    stripe: stripe && catalog ? createStripeMembership({ stripe, catalog }) : undefined,
    checkout: card,
    plans,
    promos,
    clock,
  })
  const stripeWebhooks =
    stripe && catalog
      ? createStripeWebhooks({
          stripe,
          catalog,
          payments: paymentsRepo,
          ledger: payments,
          card,
          access,
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
    clock,
  })

  // Crypto: BTCPay (when configured).
  const btcpayConfig = btcpaySettings(config.btcpay)
  const crypto = createCryptoService({
    btcpay: btcpayConfig ? createBtcpayClient(btcpayConfig) : undefined,
    storeId: btcpayConfig?.storeId,
    payments: paymentsRepo,
    access,
    plans,
    fulfilment,
    promos,
    transaction,
    clock,
    appOrigin: config.appOrigin,
    log,
  })

  const reconciliationSources: ReconciliationSource[] = []
  if (stripe && catalog)
    reconciliationSources.push(
      createStripeReconciliation({
        stripe,
        catalog,
        payments: paymentsRepo,
        checkout: card,
        fulfilment,
        access,
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

  // Discord: invites, the roles that follow access, Connect Discord, moderation, broadcasts.
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
  const telegramClient = config.telegram
    ? createTelegramClient({ botToken: config.telegram.botToken, apiBase: config.telegram.apiBase })
    : undefined

  // Places: the roles and chats plans open, read by every community through `grantFor`.
  const placesRepo = createPlacesRepository(db)
  const places = createPlacesService({
    repo: placesRepo,
    jobs,
    clock,
    memberRoleId: config.discord.memberRoleId,
    discord: discordClient,
    telegram: telegramClient,
    log,
  })

  // Telegram: Connect Telegram, the chats that follow access, the bot's commands, rate-limited sends.
  const telegramRepo = createTelegramRepository(db)
  const telegramSender = telegramClient
    ? createTelegramSender({
        telegram: telegramClient,
        repo: telegramRepo,
        limits: config.limits.telegram,
        log,
      })
    : undefined
  const telegram = createTelegramService({
    telegram: telegramClient,
    repo: telegramRepo,
    places,
    access,
    jobs,
    clock,
    appOrigin: config.appOrigin,
    linkBase: config.telegram?.linkBase ?? 'https://t.me',
    webhook: config.telegram
      ? { url: config.telegram.webhookUrl, secret: config.telegram.webhookSecret }
      : undefined,
    sendNow: telegramSender ? (message) => telegramSender.send(message) : undefined,
    log,
  })
  notices.push(telegramReminders(telegram))

  const communityRepo = createCommunityRepository(db)
  const discordConnectRepo = createDiscordConnectRepository(db)
  const community = createCommunityService({
    config: config.discord,
    discord: discordClient,
    repo: communityRepo,
    connections: discordConnectRepo,
    accounts,
    access,
    places,
    telegram: telegramClient ? telegram : undefined,
    jobs,
    mail,
    clock,
    log,
  })
  const discordConnect = createDiscordConnectService({
    oauth: config.discord.oauth ? createDiscordOAuth(config.discord.oauth) : undefined,
    discord: discordClient,
    repo: discordConnectRepo,
    links: communityRepo,
    access,
    places,
    audit,
    jobs,
    clock,
    log,
    pkceSecret: infra.jwtSecret,
  })

  const plansAdmin = createPlansAdminService({ repo: plansRepo, plans, catalog, places, clock, log })
  const admin = createAdminService({
    repo: createAdminRepository(db),
    accounts,
    plans,
    payments,
    subscriptions,
    access,
    card,
    reconciliation,
    places,
    telegram,
    transaction,
    clock,
  })
  const market = createMarketService({
    fetchPrices: () => fetchPrices(config.priceFeedUrl, { timeoutMs: config.limits.priceFeedTimeoutMs }),
    cacheMs: config.limits.priceCacheMs,
    log,
  })
  const contact = createContactService({ repo: createContactRepository(db), mail })

  // The signal room: the ledger, the record, and the live stream of this instance.
  const signalsRepo = createSignalsRepository(db)
  // The signed log over the ledger (decision 020): each append signs its size's head.
  const recordLog = createRecordLog({ repo: createRecordLogRepository(db), key: infra.ledgerKey, clock, log })
  const signals = createSignalsService({
    repo: signalsRepo,
    recordLog,
    jobs,
    clock,
    categoriesFor: (userIds) => places.categoriesFor(userIds),
    prices: () => market.getPrices(),
    audit,
    log,
  })
  const claims = createClaimsService({
    repo: createClaimsRepository(db),
    record: () => signals.record(),
    clock,
  })
  const signalStream = createSignalStream({
    repo: signalsRepo,
    headsAt: (sizes) => recordLog.headsAt(sizes),
    accessPlans: (userIds) => places.accessPlans(userIds),
    signalGrants: () => places.signalGrants(),
    clock,
    log,
    maxStreamMs: 15 * 60_000,
    maxStreamsPerMember: 5,
  })

  // Web push: members' subscriptions, and each ledger step to every device that asked (decision 023).
  const push = createPushService({
    repo: createPushRepository(db),
    jobs,
    client: createPushClient(
      { ...infra.vapid, subject: config.push.subject },
      { timeoutMs: config.push.timeoutMs },
    ),
    serviceOrigins: config.push.serviceOrigins,
    categoriesFor: (userIds) => places.categoriesFor(userIds),
    async loadEntry(seq) {
      const entry = await signalsRepo.entry(seq)
      const row = entry ? await signalsRepo.findById(entry.signal_id) : undefined
      return entry && row ? { type: entry.type, signal: toSignalView(row, 'full') } : undefined
    },
    appOrigin: config.appOrigin,
    log,
  })

  return {
    jobs,
    clock,
    mail,
    push,
    promos,
    mailDelivery,
    rollups: createRollups(db),
    authRepo,
    sessions,
    accounts,
    auth,
    plans,
    plansAdmin,
    payments,
    fulfilment,
    card,
    stripe,
    stripeWebhooks,
    access,
    subscriptions,
    membership,
    tips,
    crypto,
    reconciliation,
    community,
    discordConnect,
    discordConfigured: Boolean(discordClient),
    places,
    placesTransaction: placesRepo.transaction,
    communitiesFollow,
    telegram,
    telegramSender,
    audit,
    admin,
    market,
    contact,
    discordClient,
    signalsRepo,
    signals,
    signalStream,
    recordLog,
    claims,
  }
}
export type Services = ReturnType<typeof createServices>
