import { createHash } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Mailer, MailMessage } from '../integrations/mail/mailer'
import type { EnqueueOptions, JobContext, Jobs, QueuePolicies, QueuePolicy } from '../queue/job-runner'

declare module '../queue/job-runner' {
  interface JobData {
    /** Receipts, notices and reset links: never behind a broadcast. */
    email: { message: MailMessage }
    /** Broadcast and signal emails, one job per recipient. */
    'email.bulk': { message: MailMessage }
  }
}

/** Mail waits out an outage: 11 tries over about three hours (10 s, 20 s, 40 s ... doubling, jittered). */
export const MAIL_POLICY: QueuePolicy = {
  retryLimit: 10,
  retryDelay: 10,
  batchSize: 20,
  concurrency: 5,
  // A send gives up well within this (see the mailer's timeouts); a worker killed mid-send is retried after it.
  expireInSeconds: 60,
  forgetWhenDone: true,
}

export const MAIL_QUEUES: QueuePolicies<'email' | 'email.bulk'> = {
  email: MAIL_POLICY,
  'email.bulk': { ...MAIL_POLICY, concurrency: 3 },
}

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
   * try); that job's own retries stand in for the queue's.
   */
  sendNow(message: MailMessage): Promise<void>
}

export function createMailQueue(jobs: Pick<Jobs, 'enqueue' | 'enqueueMany'>, mailer: Mailer): MailQueue {
  return {
    enqueue: (message, options = {}) => jobs.enqueue('email', { message }, options),
    enqueueBulk: (messages, options = {}) =>
      jobs.enqueueMany(
        'email.bulk',
        messages.map(({ message, key }) => ({ key, data: { message } })),
        options,
      ),
    async sendNow(message) {
      await mailer.send(message)
    },
  }
}

/**
 * Delivers one queued email. A keyed message carries a Message-ID made from its key, so even a resend
 * after a lost acknowledgement is recognisable as the same message by the receiving side.
 */
export function mailWorker(deps: { mailer: Mailer; log: FastifyBaseLogger; domain: string }) {
  return async (data: { message: MailMessage }, job: JobContext) => {
    const messageId = job.key
      ? `<${createHash('sha256').update(job.key).digest('hex').slice(0, 32)}@${deps.domain}>`
      : undefined
    const { messageId: sent } = await deps.mailer.send({
      ...data.message,
      ...(messageId ? { messageId } : {}),
    })
    deps.log.info({ jobId: job.id, messageId: sent }, 'email sent')
  }
}
