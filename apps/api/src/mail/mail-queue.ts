import { createHash } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Mailer, MailMessage } from '../integrations/mail/mailer'
import {
  type EnqueueOptions,
  type JobContext,
  type Jobs,
  type QueuePolicies,
  type QueuePolicy,
  SWEEP_POLICY,
} from '../queue/job-runner'
import type { MailDeliveries } from './mail-deliveries'

declare module '../queue/job-runner' {
  interface JobData {
    /** Receipts, notices and reset links: never behind a broadcast. */
    email: { message: MailMessage }
    /** Broadcast and signal emails, one job per recipient. */
    'email.bulk': { message: MailMessage }
    /** Daily: forgets send records older than any job that could still send them. */
    'email.prune': Record<string, never>
  }
}

/**
 * Mail a member is waiting for (receipts, notices, reset links): it comes back within about a minute
 * of the mail server's return during its first hour (waits 10 s, 20 s, 40 s, then at most 60 s), then
 * tries every 7½–15 minutes; 150 tries span about half a day. One message at a time per instance: a
 * process that dies mid-send leaves at most that one message to be sent again (with its Message-ID).
 */
export const TRANSACTIONAL_MAIL_POLICY: QueuePolicy = {
  retryLimit: 150,
  retryDelay: 10,
  retryCeiling: { seconds: 60, forSeconds: 3600, thenSeconds: 900 },
  batchSize: 20,
  concurrency: 1,
  // A send gives up well within this (see the mailer's timeouts); a worker killed mid-send is retried after it.
  expireInSeconds: 60,
  forgetWhenDone: true,
}

/** Broadcasts and signals wait out an outage too: 11 tries over a few hours (10 s, 20 s, 40 s ... doubling, jittered). */
export const BULK_MAIL_POLICY: QueuePolicy = {
  retryLimit: 10,
  retryDelay: 10,
  batchSize: 20,
  concurrency: 1,
  expireInSeconds: 60,
  forgetWhenDone: true,
}

export const MAIL_QUEUES: QueuePolicies<'email' | 'email.bulk' | 'email.prune'> = {
  email: TRANSACTIONAL_MAIL_POLICY,
  'email.bulk': BULK_MAIL_POLICY,
  'email.prune': SWEEP_POLICY,
}

/** Send records are kept 30 days: pg-boss drops jobs long before, so none can still need one. */
const SEND_RECORD_DAYS = 30

/**
 * The one way mail leaves EdgeClub. A message is queued (with `trx`, only if that transaction commits;
 * with `key`, at most once) and sent by the mail worker; the request that caused it never waits for,
 * or fails with, the delivery. Transactional mail and bulk mail (broadcasts, signals) travel in two
 * lanes, so a broadcast never holds back a receipt.
 */
export interface MailQueue {
  enqueue(message: MailMessage, options?: Pick<EnqueueOptions, 'trx' | 'key'>): Promise<void>
  /** Many messages of the bulk lane in one statement (one per recipient), each keyed. */
  enqueueBulk(
    messages: { message: MailMessage; key: string }[],
    options?: Pick<EnqueueOptions, 'trx'>,
  ): Promise<void>
  /**
   * Sends now, from a job that composes its message at send time (a reset link made fresh for each
   * try); that job's own retries stand in for the queue's. `key` names the message (one link: one key).
   */
  sendNow(message: MailMessage, key: string): Promise<void>
}

export function createMailQueue(
  jobs: Pick<Jobs, 'enqueue' | 'enqueueMany'>,
  delivery: MailDelivery,
): MailQueue {
  return {
    enqueue: (message, options = {}) => jobs.enqueue('email', { message }, options),
    enqueueBulk: (messages, options = {}) =>
      jobs.enqueueMany(
        'email.bulk',
        messages.map(({ message, key }) => ({ key, data: { message } })),
        options,
      ),
    async sendNow(message, key) {
      await delivery.deliver(key, message)
    },
  }
}

/**
 * Sends one message at most once as far as its recipient can tell: three short steps, each committed
 * on its own (mail-deliveries.ts): the send is starting; the SMTP conversation; the server accepted it.
 * A try that finds the message accepted sends nothing. Only a crash between the server's acceptance
 * and the third step repeats a message, and then with the same `Message-ID` (made from its key), which
 * mail servers and clients recognise as the same message.
 */
export function createMailDelivery(deps: {
  mailer: Mailer
  deliveries: MailDeliveries
  log: FastifyBaseLogger
  /** The right-hand side of generated Message-IDs (the site's host name). */
  domain: string
}) {
  const messageIdOf = (key: string) =>
    `<${createHash('sha256').update(key).digest('hex').slice(0, 32)}@${deps.domain}>`

  return {
    async deliver(key: string, message: MailMessage): Promise<'sent' | 'already-accepted'> {
      const messageId = message.messageId ?? messageIdOf(key)
      const start = await deps.deliveries.start(key, messageId)
      if (start.accepted) return 'already-accepted'
      if (start.interrupted)
        deps.log.warn(
          { messageId, attempts: start.attempts },
          'sending again an email whose earlier send was cut off (same Message-ID)',
        )
      try {
        await deps.mailer.send({ ...message, messageId })
      } catch (error) {
        await deps.deliveries.failed(key).catch(() => {})
        throw error
      }
      await deps.deliveries.accepted(key)
      deps.log.info({ messageId }, 'email sent')
      return 'sent'
    },

    prune: () => deps.deliveries.prune(SEND_RECORD_DAYS),
  }
}
export type MailDelivery = ReturnType<typeof createMailDelivery>

/** The workers of both mail lanes (a message without a business key is named by its job) and the prune. */
export async function registerMailJobs(jobs: Pick<Jobs, 'work' | 'schedule'>, delivery: MailDelivery) {
  const send = async (data: { message: MailMessage }, job: JobContext) => {
    await delivery.deliver(job.key ?? `job:${job.id}`, data.message)
  }
  await jobs.work('email', send)
  await jobs.work('email.bulk', send)
  await jobs.work('email.prune', async () => {
    await delivery.prune()
  })
  await jobs.schedule('email.prune', '41 3 * * *')
}
