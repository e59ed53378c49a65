import type { FastifyBaseLogger } from 'fastify'
import type { Mailer } from '../integrations/mail/mailer'
import type { Services } from '../services'
import { closeOtherRailWorker } from './close-other-rail-worker'
import { cryptoRemindersWorker } from './crypto-reminders-worker'
import { discordReleaseWorker, discordSweepWorker, discordSyncWorker } from './discord-sync-worker'
import { emailWorker } from './email-worker'
import { expiryWorker } from './expiry-worker'
import type { Jobs } from './job-runner'
import { passwordResetWorker } from './password-reset-worker'
import { reconciliationWorker, sweepWorker } from './reconciliation-worker'
import { rollupsWorker } from './rollups-worker'
import { signalsDeliveryWorker } from './signals-delivery-worker'
import { signalsSettlementWorker } from './signals-settlement-worker'
import { stripeCancelWorker } from './stripe-cancel-worker'

/** Every queue's worker and every schedule, registered in this one place. */
export async function registerWorkers(
  jobs: Jobs,
  services: Services,
  deps: {
    mailer: Mailer
    log: FastifyBaseLogger
    mailDomain: string
    appOrigin: string
    signalsChannelId: string | undefined
  },
): Promise<void> {
  const { log } = deps
  const mail = emailWorker({ mailer: deps.mailer, log, domain: deps.mailDomain })
  await jobs.work('email', mail)
  await jobs.work('email.bulk', mail)
  await jobs.work('auth.password-reset', passwordResetWorker({ auth: services.auth, log }))

  await jobs.work('discord.sync', discordSyncWorker({ community: services.community }))
  await jobs.work('discord.sync-all', discordSweepWorker({ community: services.community, jobs }))
  await jobs.work('discord.release', discordReleaseWorker({ community: services.community }))
  if (services.discordConfigured) await jobs.schedule('discord.sync-all', '*/15 * * * *')

  await jobs.work('subscriptions.expire', expiryWorker({ subscriptions: services.subscriptions, log }))
  await jobs.schedule('subscriptions.expire', '* * * * *')
  await jobs.work('rollups.settle', rollupsWorker({ tallies: services.tallies }))
  await jobs.schedule('rollups.settle', '*/5 * * * *')

  await jobs.work(
    'payments.close-other-rail',
    closeOtherRailWorker({ payments: services.paymentsRepo, card: services.card, crypto: services.crypto }),
  )
  await jobs.work('stripe.cancel-subscription', stripeCancelWorker({ card: services.card }))
  if (services.reconciliation.configured()) {
    await jobs.work('payments.reconcile', reconciliationWorker({ reconciliation: services.reconciliation }))
    await jobs.schedule('payments.reconcile', '*/5 * * * *')
    await jobs.work('payments.sweep', sweepWorker({ reconciliation: services.reconciliation }))
    await jobs.schedule('payments.sweep', '17 * * * *')
  }
  await jobs.work(
    'signals.deliver',
    signalsDeliveryWorker({
      repo: services.signalsRepo,
      jobs,
      discord: services.discordClient,
      channelId: deps.signalsChannelId,
      clock: services.clock,
      appOrigin: deps.appOrigin,
    }),
  )
  await jobs.work('signals.settle-prices', signalsSettlementWorker({ signals: services.signals }))
  await jobs.schedule('signals.settle-prices', '* * * * *')

  if (services.crypto.configured()) {
    await jobs.work('crypto.reminders', cryptoRemindersWorker({ crypto: services.crypto }))
    // Daily: the reminder window is 3 days wide and each period is reminded once (its end date is the key).
    await jobs.schedule('crypto.reminders', '30 8 * * *')
  }
}
