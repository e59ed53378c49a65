import type { FastifyBaseLogger } from 'fastify'
import type { Mailer, MailMessage } from '../integrations/mail/mailer'
import type { Jobs } from './boss'

export interface EmailQueue {
  /** Queues a message; the request that caused it never waits for, or fails with, the delivery. */
  enqueue(message: MailMessage): Promise<void>
}

export function createEmailQueue(jobs: Jobs): EmailQueue {
  return {
    enqueue: async (message) => {
      await jobs.send('email', message, { retryLimit: 6, retryDelay: 10, retryBackoff: true })
    },
  }
}

export async function startEmailWorker(jobs: Jobs, mailer: Mailer, log: FastifyBaseLogger): Promise<void> {
  await jobs.work<MailMessage>('email', async (job) => {
    const { messageId } = await mailer.send(job.data)
    log.info({ jobId: job.id, messageId }, 'email sent')
    // The message may hold a reset link; do not keep it in the queue tables once it is delivered.
    await jobs.deleteJob('email', job.id)
  })
}
