import type { FastifyBaseLogger } from 'fastify'
import PgBoss from 'pg-boss'
import type { Database } from '../db/database'

/** Every queue the app uses; a job is only ever sent to one of these. */
export const QUEUES = [
  'email',
  'auth.password-reset',
  'payments.reconcile',
  'subscriptions.expire',
  'discord.sync',
  'discord.sync-all',
  'crypto.reminders',
] as const
export type QueueName = (typeof QUEUES)[number]

export interface Jobs {
  send(queue: QueueName, data: object, options?: PgBoss.SendOptions): Promise<string | null>
  work<T extends object>(queue: QueueName, handler: (job: PgBoss.Job<T>) => Promise<void>): Promise<void>
  schedule(queue: QueueName, cron: string, data?: object): Promise<void>
  deleteJob(queue: QueueName, id: string): Promise<void>
  stop(): Promise<void>
}

/**
 * pg-boss on the app's own database: on PostgreSQL through its own pool, on the embedded database
 * through the same serialized connection as Kysely (see db/database.ts).
 */
export async function startJobs(
  database: Database,
  options: { pollSeconds: number; log: FastifyBaseLogger },
): Promise<Jobs> {
  const boss = new PgBoss({
    ...('connectionString' in database.boss
      ? { connectionString: database.boss.connectionString, max: 4 }
      : { db: database.boss.executor as PgBoss.Db }),
    schema: 'pgboss',
    // Completed jobs may carry addresses and links; keep them no longer than needed.
    archiveCompletedAfterSeconds: 3600,
    deleteAfterDays: 7,
  })
  boss.on('error', (error) =>
    options.log.error({ err: { type: error.name, message: error.message } }, 'job queue error'),
  )
  await boss.start()
  for (const queue of QUEUES) await boss.createQueue(queue)

  return {
    send: (queue, data, sendOptions = {}) => boss.send(queue, data, sendOptions),
    work: async (queue, handler) => {
      await boss.work(queue, { pollingIntervalSeconds: options.pollSeconds, batchSize: 1 }, async (jobs) => {
        for (const job of jobs) await handler(job as PgBoss.Job<never>)
      })
    },
    schedule: (queue, cron, data = {}) => boss.schedule(queue, cron, data),
    deleteJob: (queue, id) => boss.deleteJob(queue, id),
    stop: () => boss.stop({ graceful: true, timeout: 10_000, close: true }),
  }
}
