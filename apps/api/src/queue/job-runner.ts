import { createHash } from 'node:crypto'
import type { FastifyBaseLogger } from 'fastify'
import { CompiledQuery, type Kysely, sql, type Transaction } from 'kysely'
import PgBoss from 'pg-boss'
import type { Database } from '../db/database'
import type { DB } from '../db/types'

/**
 * Background work on pg-boss, in the app's own database.
 *
 * - **Outbox.** A side effect of a state change is enqueued with the transaction that makes the
 *   change (`trx`): the job exists exactly when the change committed, so a crash in between loses
 *   nothing and invents nothing.
 * - **Business keys.** A job enqueued with a `key` gets an id derived from it, so the same effect is
 *   queued once however often its cause is replayed, and a worker records the key when the effect is
 *   done, so a job that runs again (its completion was lost with the database) does not repeat it.
 * - **Throughput.** Workers fetch batches, run them with bounded concurrency and fetch again at once
 *   while work is waiting; they sleep only when their queue is empty. While they sleep, one query
 *   every poll asks which of this instance's queues have jobs ready and wakes only those workers
 *   (~30 queues polled one by one cost an idle instance a query every 70 ms). Failures retry per job with
 *   growing, jittered delays (pg-boss's exponential backoff with random spread), under a ceiling for
 *   queues that must come back soon after an outage (`retryCeiling`: transactional mail).
 */

/**
 * Every queue and the data its jobs carry. Empty here: the code that owns a queue declares it beside
 * its worker (module augmentation of this interface), so this folder knows no domain.
 *
 * ```ts
 * declare module '../../queue/job-runner' {
 *   interface JobData { 'signals.discord': { seq: number } }
 * }
 * ```
 */
// biome-ignore lint/suspicious/noEmptyInterface: filled by module augmentation
export interface JobData {}
export type QueueName = keyof JobData

export interface QueuePolicy {
  /** Retries after the first try; with backoff the waits double from retryDelay (seconds). */
  retryLimit: number
  retryDelay: number
  /**
   * A ceiling on the doubling waits: none longer than `seconds` while the job is younger than
   * `forSeconds`, then none longer than `thenSeconds`. pg-boss's own backoff has no ceiling (its waits
   * double to hours), so the runner sets the next try of such a queue itself (retryDelaySeconds).
   */
  retryCeiling?: { seconds: number; forSeconds: number; thenSeconds: number }
  /** Jobs fetched at once, and how many of them run at the same time. */
  batchSize: number
  concurrency: number
  /** A job still active after this long is failed (and retried) by pg-boss. */
  expireInSeconds: number
  /** Delete a done job at once instead of archiving it (its data may hold an address or a link). */
  forgetWhenDone?: boolean
}

/** Each queue's policy, given by the code that declares the queue. */
export type QueuePolicies<Q extends QueueName = QueueName> = { [K in Q]: QueuePolicy }

/** For schedules and sweeps: one at a time, a couple of retries, plenty of time. */
export const SWEEP_POLICY: QueuePolicy = {
  retryLimit: 2,
  retryDelay: 30,
  batchSize: 1,
  concurrency: 1,
  expireInSeconds: 600,
}

/**
 * How long a sleeping worker waits before it looks at its queue by itself: the ready scan wakes it
 * within a poll when a job is there, so this is only a backstop (a scan lost to a database fault).
 */
export const WORKER_BACKSTOP_SECONDS = 60

/** Rows of job_effects one prune statement deletes (an index range, quick to delete and vacuum). */
const EFFECTS_PRUNED_PER_STATEMENT = 10_000

type Executor = Kysely<DB> | Transaction<DB>

/**
 * How long a failed job of `policy` waits before its next try: about twice as long as the wait before
 * (between half and all of `retryDelay × 2^(retryCount+1)`, like pg-boss's jittered backoff), under the
 * policy's ceiling for the job's age. `scale` shortens every duration alike (tests).
 */
export function retryDelaySeconds(
  policy: Pick<QueuePolicy, 'retryDelay' | 'retryCeiling'>,
  retryCount: number,
  ageSeconds: number,
  random: () => number = Math.random,
  scale = 1,
): number {
  const doubled = policy.retryDelay * scale * 2 ** Math.min(16, retryCount + 1)
  const ceiling = policy.retryCeiling
  const cap = !ceiling
    ? Number.POSITIVE_INFINITY
    : (ageSeconds < ceiling.forSeconds * scale ? ceiling.seconds : ceiling.thenSeconds) * scale
  const top = Math.min(doubled, cap)
  return (top / 2) * (1 + random())
}

/** The longest wait a RetryLater is granted: a service asking for more is tried again after this. */
const RETRY_LATER_MAX_SECONDS = 3600

/**
 * A failed try whose next one must wait at least `afterSeconds` (a service answered 429 or 503 with
 * Retry-After): the runner schedules it no sooner, whatever the queue's own backoff would say.
 */
export class RetryLater extends Error {
  constructor(
    message: string,
    readonly afterSeconds: number,
  ) {
    super(message)
    this.name = 'RetryLater'
  }
}

export interface EnqueueOptions {
  /** The transaction of the change this job follows (the outbox); without it the job is queued now. */
  trx?: Executor
  /** Business key: the same key is queued, and done, at most once. */
  key?: string
  startAfter?: Date
  /** At most one job per `throttle.key` in each window of `throttle.seconds`. */
  throttle?: { key: string; seconds: number }
}

export interface JobContext {
  id: string
  /** The business key it was queued with, if any. */
  key: string | null
  /** 0 on the first try. */
  retryCount: number
  /** Whether pg-boss will try again if this attempt throws. */
  lastAttempt: boolean
  /**
   * For a job made of many effects (a batch: one per recipient), each under its own business key of
   * this queue: which of `keys` are done, and recording some as done while the job runs, so that a try
   * after a crash or a failure repeats none of them. The job's own key is recorded when it returns.
   */
  effects: { done(keys: string[]): Promise<Set<string>>; record(keys: string[]): Promise<void> }
}

export interface Jobs {
  enqueue<Q extends QueueName>(queue: Q, data: JobData[Q], options?: EnqueueOptions): Promise<void>
  /** Many jobs of one queue in one statement (a broadcast's recipients). */
  enqueueMany<Q extends QueueName>(
    queue: Q,
    jobs: { data: JobData[Q]; key: string }[],
    options?: { trx?: Executor },
  ): Promise<void>
  work<Q extends QueueName>(
    queue: Q,
    handler: (data: JobData[Q], job: JobContext) => Promise<void>,
  ): Promise<void>
  schedule(queue: QueueName, cron: string): Promise<void>
  /**
   * Makes this instance's workers of `queue` look for jobs now instead of at their next poll (a NOTIFY
   * heard from the instance that queued them: pushes leave within a second, not a polling interval).
   */
  wake(queue: QueueName): void
  /** Jobs of a queue that are waiting or running (operators, tests and benchmarks read it). */
  pending(queue: QueueName): Promise<number>
  /**
   * Forgets the records of effects done more than `olderThanDays` ago (queue/effects-prune.ts), a
   * batch at a time so no statement holds the table long; how many were forgotten.
   */
  pruneEffects(olderThanDays: number): Promise<number>
  stop(): Promise<void>
}

interface Envelope<T> {
  key: string | null
  body: T
}

/** A UUID derived from the queue and a business key, so the same effect always has the same job id. */
function jobIdFor(queue: string, key: string): string {
  const hex = createHash('sha256').update(`${queue}\n${key}`).digest('hex')
  // Shaped as a version-5 style UUID (pg-boss ids are uuid columns).
  return `${hex.slice(0, 8)}-${hex.slice(8, 12)}-5${hex.slice(13, 16)}-${((Number.parseInt(hex.slice(16, 18), 16) & 0x3f) | 0x80).toString(16)}${hex.slice(18, 20)}-${hex.slice(20, 32)}`
}

function executorOf(trx: Executor): PgBoss.Db {
  return {
    executeSql: async (text, values) => {
      const result = await trx.executeQuery(CompiledQuery.raw(text, values ?? []))
      return { rows: result.rows as unknown[] as never[] }
    },
  }
}

const reason = (error: unknown) => (error instanceof Error ? error.message : String(error))

function createBoss(database: Database, log: FastifyBaseLogger): PgBoss {
  const boss = new PgBoss({
    db: database.boss as PgBoss.Db,
    schema: 'pgboss',
    // Completed jobs may carry addresses and links; keep them no longer than needed.
    archiveCompletedAfterSeconds: 3600,
    deleteAfterDays: 7,
    // Expiry of jobs whose worker died (a crash, a kill) is checked here: pg-boss's default of two
    // minutes would leave a receipt or a role change waiting up to three minutes after a restart.
    maintenanceIntervalSeconds: 20,
  })
  boss.on('error', (error) =>
    log.error({ err: { type: error.name, message: error.message } }, 'job queue error'),
  )
  return boss
}

/**
 * What pg-boss itself applies. A queue with a ceiling gets a flat wait of its ceiling from pg-boss
 * (what a job whose worker died waits); its failures are rescheduled by the runner (`recordFailure`).
 */
function queueSettings(name: string, policy: QueuePolicy, scale: number) {
  return {
    name,
    retryLimit: policy.retryLimit,
    retryDelay: Math.max(1, Math.round((policy.retryCeiling?.seconds ?? policy.retryDelay) * scale)),
    retryBackoff: !policy.retryCeiling,
    expireInSeconds: policy.expireInSeconds,
  }
}

/**
 * Every queue exists with its policy: one read of them all, then a write only for a queue that is
 * missing or whose policy changed (createQueue leaves an existing queue as it was). On the embedded
 * database each write is tens of milliseconds, and a start used to spend a second on them.
 */
async function ensureQueues(boss: PgBoss, policies: QueuePolicies, scale: number): Promise<void> {
  const existing = new Map((await boss.getQueues()).map((queue) => [queue.name, queue]))
  for (const [name, policy] of Object.entries(policies) as [string, QueuePolicy][]) {
    const settings = queueSettings(name, policy, scale)
    const current = existing.get(name) as Record<string, unknown> | undefined
    if (!current) await boss.createQueue(name, settings)
    else if (Object.entries(settings).some(([key, value]) => value !== undefined && current[key] !== value))
      await boss.updateQueue(name, settings)
  }
}

/**
 * Installs (or upgrades) the job queue's own schema and creates the queues, then stops: what a
 * database template needs, so that a new database's first start finds them made.
 */
export async function installJobSchema(
  database: Database,
  log: FastifyBaseLogger,
  policies: QueuePolicies,
): Promise<void> {
  const boss = createBoss(database, log)
  await boss.start()
  await ensureQueues(boss, policies, 1)
  await boss.stop({ graceful: false, close: false, wait: true })
}

export async function startJobs(
  database: Database,
  options: {
    /** Every queue's policy (the composition root gathers them from the code that owns each queue). */
    policies: QueuePolicies
    pollSeconds: number
    retryDelayScale?: number
    log: FastifyBaseLogger
  },
): Promise<Jobs> {
  const scale = options.retryDelayScale ?? 1
  const { log, policies } = options
  const db = database.db
  const boss = createBoss(database, log)
  await boss.start()
  await ensureQueues(boss, policies, scale)

  const sendOptions = (queue: QueueName, options: EnqueueOptions): PgBoss.SendOptions => ({
    ...(options.key ? { id: jobIdFor(queue, options.key) } : {}),
    ...(options.startAfter ? { startAfter: options.startAfter } : {}),
    ...(options.throttle
      ? { singletonKey: options.throttle.key, singletonSeconds: options.throttle.seconds }
      : {}),
    ...(options.trx ? { db: executorOf(options.trx) } : {}),
  })

  // An effect is a queue's: the same business key on two queues (a refund's Discord sync and its Stripe
  // cancellation) names two effects, each done once.
  const effectOf = (queue: string, key: string) => `${queue}:${key}`
  /** The keys of `keys` whose effects are done: one query for a whole fetched batch. */
  const doneAmong = async (queue: string, keys: string[]): Promise<Set<string>> => {
    if (keys.length === 0) return new Set()
    const rows = await db
      .selectFrom('job_effects')
      .select('key')
      .where(
        'key',
        'in',
        keys.map((key) => effectOf(queue, key)),
      )
      .execute()
    return new Set(rows.map((row) => row.key))
  }
  const markDone = (queue: string, key: string) => markAllDone(queue, [key])
  const markAllDone = async (queue: string, keys: string[]) => {
    if (keys.length === 0) return
    await db
      .insertInto('job_effects')
      .values(keys.map((key) => ({ key: effectOf(queue, key), queue })))
      .onConflict((oc) => oc.column('key').doNothing())
      .execute()
  }
  /** A job's many effects (JobContext.effects), under keys of its queue. */
  const effectsOf = (queue: string): JobContext['effects'] => ({
    async done(keys) {
      const found = await doneAmong(queue, keys)
      return new Set(keys.filter((key) => found.has(effectOf(queue, key))))
    },
    record: (keys) => markAllDone(queue, keys),
  })

  /**
   * A failed try: pg-boss records it and (tries left) schedules the next; for a queue with a retry
   * ceiling the next try's time is then set from its own schedule, and a RetryLater's wait is kept as
   * the least, in the same transaction.
   */
  const recordFailure = async (queue: QueueName, job: PgBoss.JobWithMetadata<unknown>, error: unknown) => {
    const policy = policies[queue]
    const output = { message: reason(error) }
    // What the service said, as it said it (not shortened by `scale`, which is the queue's own timing).
    const asked = error instanceof RetryLater ? Math.min(RETRY_LATER_MAX_SECONDS, error.afterSeconds) : 0
    if (!policy.retryCeiling && asked === 0) {
      await boss.fail(queue, job.id, output)
      return
    }
    const ageSeconds = (Date.now() - new Date(job.createdOn).getTime()) / 1000
    const own = policy.retryCeiling
      ? retryDelaySeconds(policy, job.retryCount, ageSeconds, Math.random, scale)
      : 0
    await db.transaction().execute(async (trx) => {
      await boss.fail(queue, job.id, output, { db: executorOf(trx) })
      // Without a ceiling pg-boss has set its own backoff: it stands unless the service asked for longer.
      await sql`update pgboss.job
        set start_after = greatest(${policy.retryCeiling ? sql`now()` : sql`start_after`}, now() + make_interval(secs => ${Math.max(own, asked)}))
        where name = ${queue} and id = ${job.id} and state = 'retry'`.execute(trx)
    })
  }

  const stopping = { value: false }
  /** Each queue's workers on this instance (wake). */
  const workerIds = new Map<string, string[]>()

  const wakeWorkers = (queue: string) => {
    if (stopping.value) return
    for (const id of workerIds.get(queue) ?? []) boss.notifyWorker(id)
  }

  /**
   * The ready scan: every poll, which of the queues worked here have a job to start now (pg-boss's
   * own fetch condition, one index probe per queue), and only their workers are woken. A failed
   * scan is logged once until one succeeds again.
   */
  let scanTimer: NodeJS.Timeout | undefined
  let scanFailing = false
  const scan = async () => {
    const names = [...workerIds.keys()]
    if (names.length === 0) return
    try {
      const ready = await sql<{ name: string }>`select q.name from unnest(${names}::text[]) as q (name)
        where exists (select 1 from pgboss.job j
          where j.name = q.name and j.state < 'active' and j.start_after < now())`.execute(db)
      if (scanFailing) log.info('the job queue can be read again')
      scanFailing = false
      for (const row of ready.rows) wakeWorkers(row.name)
    } catch (error) {
      if (!scanFailing && !stopping.value)
        log.warn({ reason: reason(error) }, 'could not look for ready jobs; trying again each poll')
      scanFailing = true
    }
  }
  const scanEvery = () => {
    scanTimer = setTimeout(() => {
      void scan().finally(() => {
        if (!stopping.value) scanEvery()
      })
    }, options.pollSeconds * 1000)
    // The scan serves work that is running anyway: it never keeps a process alive by itself.
    scanTimer.unref()
  }
  scanEvery()

  return {
    async enqueue(queue, data, enqueueOptions = {}) {
      const envelope: Envelope<typeof data> = { key: enqueueOptions.key ?? null, body: data }
      await boss.send(queue, envelope, sendOptions(queue, enqueueOptions))
    },

    async enqueueMany(queue, jobs, enqueueOptions = {}) {
      if (jobs.length === 0) return
      const rows = jobs.map(({ data, key }) => ({
        id: jobIdFor(queue, key),
        name: queue,
        data: { key, body: data } satisfies Envelope<typeof data>,
      }))
      // pg-boss's insert takes the queue's retry policy only from explicit fields.
      const { name: _name, ...settings } = queueSettings(queue, policies[queue], scale)
      for (const row of rows) Object.assign(row, settings)
      for (let start = 0; start < rows.length; start += 500) {
        await boss.insert(
          rows.slice(start, start + 500),
          enqueueOptions.trx ? { db: executorOf(enqueueOptions.trx) } : {},
        )
      }
    },

    async work(queue, handler) {
      const policy = policies[queue]
      const effects = effectsOf(queue)
      let workerId: string | undefined

      const runOne = async (job: PgBoss.JobWithMetadata<Envelope<never>>, done: Set<string>) => {
        const { key, body } = job.data
        if (key && done.has(effectOf(queue, key))) return
        await handler(body, {
          id: job.id,
          key,
          retryCount: job.retryCount,
          lastAttempt: job.retryCount >= job.retryLimit,
          effects,
        })
        if (key) await markDone(queue, key)
      }

      workerId = await boss.work<Envelope<never>>(
        queue,
        {
          batchSize: policy.batchSize,
          // It sleeps until the ready scan (above) wakes it.
          pollingIntervalSeconds: Math.max(options.pollSeconds, WORKER_BACKSTOP_SECONDS),
          includeMetadata: true,
        },
        async (jobs) => {
          const done: string[] = []
          // Effects already done (a job run again after its completion was lost), asked once per batch.
          let effectsDone: Set<string>
          try {
            effectsDone = await doneAmong(
              queue,
              jobs.map((job) => job.data.key).filter((key): key is string => Boolean(key)),
            )
          } catch (error) {
            log.warn(
              { queue, reason: reason(error) },
              'could not read done effects; the batch waits for its retry',
            )
            await Promise.all(jobs.map((job) => recordFailure(queue, job, error).catch(() => {})))
            return
          }
          let next = 0
          const lane = async () => {
            while (next < jobs.length) {
              const job = jobs[next++]!
              try {
                await runOne(job, effectsDone)
                done.push(job.id)
              } catch (error) {
                log.warn(
                  { queue, jobId: job.id, retryCount: job.retryCount, reason: reason(error) },
                  'job failed; it will be retried if tries are left',
                )
                await recordFailure(queue, job, error).catch((failError: unknown) => {
                  log.error(
                    { queue, jobId: job.id, reason: reason(failError) },
                    'could not record a job failure',
                  )
                })
              }
            }
          }
          await Promise.all(Array.from({ length: Math.min(policy.concurrency, jobs.length) }, lane))
          if (done.length > 0) {
            // Completed here, awaited, so a lost database shows up as an error we log, not a crash.
            await (policy.forgetWhenDone ? boss.deleteJob(queue, done) : boss.complete(queue, done)).catch(
              (error: unknown) => {
                log.error({ queue, reason: reason(error) }, 'could not mark jobs completed')
              },
            )
          }
          // Work was waiting: look again now instead of sleeping through the polling interval.
          if (jobs.length > 0 && workerId && !stopping.value) boss.notifyWorker(workerId)
        },
      )
      workerIds.set(queue, [...(workerIds.get(queue) ?? []), workerId])
    },

    wake: wakeWorkers,

    schedule: (queue, cron) => boss.schedule(queue, cron, { key: null, body: {} }),

    async pending(queue) {
      return boss.getQueueSize(queue, { before: 'completed' })
    },

    async pruneEffects(olderThanDays) {
      let forgotten = 0
      while (true) {
        const result = await db
          .deleteFrom('job_effects')
          .where(
            'key',
            'in',
            db
              .selectFrom('job_effects')
              .select('key')
              .where('done_at', '<', sql<Date>`now() - make_interval(days => ${olderThanDays})`)
              .limit(EFFECTS_PRUNED_PER_STATEMENT),
          )
          .executeTakeFirst()
        const deleted = Number(result.numDeletedRows)
        forgotten += deleted
        if (deleted < EFFECTS_PRUNED_PER_STATEMENT) return forgotten
      }
    },

    async stop() {
      stopping.value = true
      clearTimeout(scanTimer)
      await boss.stop({ graceful: true, timeout: 10_000, close: false, wait: true })
    },
  }
}
