import type { Jobs, QueuePolicies, QueuePolicy } from '../../queue/job-runner'
import { SWEEP_POLICY } from '../../queue/job-runner'
import type { AccessListener, NoticeListener } from '../subscriptions/access-service'
import type { OutgoingMessage, TelegramSender } from './telegram-sender'
import type { TelegramService } from './telegram-service'

declare module '../../queue/job-runner' {
  interface JobData {
    /** One bot message, sent within the flood limits (telegram-sender.ts). */
    'telegram.send': OutgoingMessage
    /** Brings one member's Telegram chats in line with their access (`resend`: their links again). */
    'telegram.sync': { userId: string; resend: boolean }
    /** The sweep behind the per-change syncs. */
    'telegram.sync-all': Record<string, never>
    /** A request to join a chat through one of the bot's links, to approve or decline. */
    'telegram.join-request': { chatId: string; telegramUserId: string }
    /** A Telegram account its member let go (or that moved): out of the chats unless someone holds it. */
    'telegram.release': { userId: string; telegramUserId: string }
    /** At start: the webhook and the bot's commands. */
    'telegram.setup': Record<string, never>
  }
}

const TELEGRAM_CALLS: QueuePolicy = {
  retryLimit: 10,
  retryDelay: 5,
  batchSize: 10,
  concurrency: 2,
  expireInSeconds: 120,
}

export const TELEGRAM_QUEUES: QueuePolicies<
  | 'telegram.send'
  | 'telegram.sync'
  | 'telegram.sync-all'
  | 'telegram.join-request'
  | 'telegram.release'
  | 'telegram.setup'
> = {
  // Sends wait for their slot inside the job (up to 90 s), so several run at once and expiry is long;
  // the message text is not kept once it is sent.
  'telegram.send': {
    retryLimit: 10,
    retryDelay: 5,
    batchSize: 40,
    concurrency: 8,
    expireInSeconds: 300,
    forgetWhenDone: true,
  },
  'telegram.sync': TELEGRAM_CALLS,
  'telegram.sync-all': SWEEP_POLICY,
  'telegram.join-request': { ...TELEGRAM_CALLS, concurrency: 4 },
  'telegram.release': TELEGRAM_CALLS,
  'telegram.setup': SWEEP_POLICY,
}

/**
 * A member's access changed: their Telegram chats follow, once per change. The key is the change's,
 * marked as Telegram's (a business key is done once per key, whatever the queue).
 */
export function telegramFollowsAccess(jobs: Pick<Jobs, 'enqueue'>): AccessListener {
  return ({ userId, key }, trx) =>
    jobs.enqueue('telegram.sync', { userId, resend: false }, { trx, key: `tg-sync:${key}` })
}

/** Renewal and failed-payment notices also go by bot message to members who asked for it. */
export function telegramReminders(telegram: Pick<TelegramService, 'remind'>): NoticeListener {
  return (notice, trx) => telegram.remind(notice, trx)
}

export async function registerTelegramJobs(
  jobs: Pick<Jobs, 'work' | 'schedule' | 'enqueue'>,
  deps: {
    telegram: Pick<
      TelegramService,
      'configured' | 'syncMember' | 'syncCandidates' | 'answerJoinRequest' | 'releaseAccount' | 'setUp'
    >
    sender: TelegramSender | undefined
  },
): Promise<void> {
  await jobs.work('telegram.send', async (message) => {
    // Without a bot (its token was removed since) there is nobody to send as.
    await deps.sender?.send(message)
  })
  // Telegram errors throw: the job is retried with backoff.
  await jobs.work('telegram.sync', async ({ userId, resend }) => {
    await deps.telegram.syncMember(userId, { resend })
  })
  await jobs.work('telegram.sync-all', async () => {
    for (const userId of await deps.telegram.syncCandidates())
      await jobs.enqueue(
        'telegram.sync',
        { userId, resend: false },
        { throttle: { key: `tg-poll-${userId}`, seconds: 5 } },
      )
  })
  await jobs.work('telegram.join-request', async ({ chatId, telegramUserId }) => {
    await deps.telegram.answerJoinRequest(chatId, telegramUserId)
  })
  await jobs.work('telegram.release', async ({ userId, telegramUserId }) => {
    await deps.telegram.releaseAccount(userId, telegramUserId)
  })
  await jobs.work('telegram.setup', async () => {
    await deps.telegram.setUp()
  })
  if (deps.telegram.configured()) {
    await jobs.schedule('telegram.sync-all', '*/15 * * * *')
    // Every start sets the webhook again (Telegram answers "already set" when nothing changed); a
    // fleet starting at once does it once a minute.
    await jobs.enqueue('telegram.setup', {}, { throttle: { key: 'telegram-setup', seconds: 60 } })
  }
}
