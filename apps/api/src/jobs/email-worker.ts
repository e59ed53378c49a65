import { createHash } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import type { Mailer, MailMessage } from '../integrations/mail/mailer'
import type { EnqueueOptions, JobContext, Jobs } from './job-runner'

export interface EmailQueue {
  /**
   * Queues a message; the request that caused it never waits for, or fails with, the delivery. With
   * `trx` it is sent only if that transaction commits; with `key` it is sent at most once.
   */
  enqueue(message: MailMessage, options?: Pick<EnqueueOptions, 'trx' | 'key'>): Promise<void>
}

export function createEmailQueue(jobs: Jobs): EmailQueue {
  return { enqueue: (message, options = {}) => jobs.enqueue('email', { message }, options) }
}

/**
 * Delivers one queued email. A keyed message carries a Message-ID made from its key, so even a resend
 * after a lost acknowledgement is recognisable as the same message by the receiving side.
 */
export function emailWorker(deps: { mailer: Mailer; log: FastifyBaseLogger; domain: string }) {
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
