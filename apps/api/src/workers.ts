import type { FastifyBaseLogger } from 'fastify'
import { MAIL_QUEUES, registerMailJobs } from './mail/mail-queue'
import { ADMIN_QUEUES, registerAdminJobs } from './modules/admin/admin-jobs'
import { AUTH_QUEUES, registerAuthJobs } from './modules/auth/auth-jobs'
import { COMMUNITY_QUEUES, registerCommunityJobs } from './modules/community/community-jobs'
import { PAYMENTS_QUEUES, registerPaymentsJobs } from './modules/payments/payments-jobs'
import { PLACES_QUEUES, registerPlacesJobs } from './modules/places/places-jobs'
import { PUSH_QUEUES, registerPushJobs } from './modules/push/push-jobs'
import { registerSignalsJobs, SIGNALS_QUEUES } from './modules/signals/signals-jobs'
import { registerSubscriptionsJobs, SUBSCRIPTIONS_QUEUES } from './modules/subscriptions/subscriptions-jobs'
import { registerTelegramJobs, TELEGRAM_QUEUES } from './modules/telegram/telegram-jobs'
import { RUNNER_QUEUES, registerRunnerJobs } from './queue/effects-prune'
import type { Jobs, QueuePolicies } from './queue/job-runner'
import type { Services } from './services'

/** Every queue's policy, from the code that owns each queue (the job runner creates them at start). */
export const QUEUES: QueuePolicies = {
  ...MAIL_QUEUES,
  ...AUTH_QUEUES,
  ...SUBSCRIPTIONS_QUEUES,
  ...COMMUNITY_QUEUES,
  ...TELEGRAM_QUEUES,
  ...PLACES_QUEUES,
  ...PAYMENTS_QUEUES,
  ...SIGNALS_QUEUES,
  ...PUSH_QUEUES,
  ...ADMIN_QUEUES,
  ...RUNNER_QUEUES,
}

/** Every queue's worker and every schedule, registered in this one place; each module owns its own. */
export async function registerWorkers(
  jobs: Jobs,
  services: Services,
  deps: {
    log: FastifyBaseLogger
    appOrigin: string
    signalsChannelId: string | undefined
  },
): Promise<void> {
  await registerRunnerJobs(jobs)
  await registerMailJobs(jobs, services.mailDelivery)
  await registerAuthJobs(jobs, { auth: services.auth, log: deps.log })
  await registerSubscriptionsJobs(jobs, {
    access: services.access,
    cryptoConfigured: services.crypto.configured(),
    log: deps.log,
  })
  await registerCommunityJobs(jobs, {
    community: services.community,
    discordConfigured: services.discordConfigured,
  })
  await registerTelegramJobs(jobs, { telegram: services.telegram, sender: services.telegramSender })
  await registerPlacesJobs(jobs, {
    places: services.places,
    transaction: services.placesTransaction,
    onGrantChanged: services.communitiesFollow,
  })
  await registerPaymentsJobs(jobs, {
    payments: services.payments,
    card: services.card,
    crypto: services.crypto,
    reconciliation: services.reconciliation,
  })
  await registerSignalsJobs(jobs, {
    repo: services.signalsRepo,
    headsAt: (sizes) => services.recordLog.headsAt(sizes),
    signals: services.signals,
    mail: services.mail,
    discord: services.discordClient,
    channelId: deps.signalsChannelId,
    telegram: services.telegram.configured() ? services.telegram : undefined,
    categoriesFor: (userIds) => services.places.categoriesFor(userIds),
    clock: services.clock,
    appOrigin: deps.appOrigin,
  })
  await registerPushJobs(jobs, services.push)
  await registerAdminJobs(jobs, {
    rollups: services.rollups,
    compactMovements: services.admin.compactMovements,
  })
}
