import { sql } from 'kysely'
import PgBoss from 'pg-boss'
import pino from 'pino'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { migrateToLatest } from '../src/db/migrate'
import { EFFECT_RECORD_DAYS } from '../src/queue/effects-prune'
import {
  type Jobs,
  type QueuePolicies,
  SWEEP_POLICY,
  startJobs,
  WORKER_BACKSTOP_SECONDS,
} from '../src/queue/job-runner'
import { eventually } from './helpers/billing'
import { createTestDatabase, type TestDatabase } from './helpers/test-app'

/**
 * A business key names an effect of one queue: a refund queues its member's Discord sync and its
 * Stripe cancellation under the same key, and both must happen (the first one done must not make the
 * other look done). The same key on the same queue is still done once.
 */
describe('business keys across queues', () => {
  let database: TestDatabase
  let jobs: Jobs
  const ran: string[] = []

  beforeAll(async () => {
    database = await createTestDatabase()
    const opened = await database.open()
    // A fresh PostgreSQL database is empty (the embedded one starts migrated): the runner needs job_effects.
    await migrateToLatest(opened.db)
    const quick = { ...SWEEP_POLICY, retryDelay: 1 }
    jobs = await startJobs(opened, {
      // Only the two queues this test works (the others are left alone).
      policies: { 'discord.sync': quick, 'stripe.cancel-subscription': quick } as QueuePolicies,
      pollSeconds: 0.5,
      log: pino({ level: 'silent' }),
    })
    await jobs.work('discord.sync', async (data) => {
      ran.push(`sync ${data.userId}`)
    })
    await jobs.work('stripe.cancel-subscription', async (data) => {
      ran.push(`cancel ${data.stripeSubscriptionId}`)
    })
  })
  afterAll(async () => {
    await jobs?.stop()
    await database?.drop()
  })

  it('runs both effects of one key on two queues, and each once', async () => {
    const key = 'refund:00000000-0000-4000-8000-000000000001'
    await jobs.enqueue('stripe.cancel-subscription', { stripeSubscriptionId: 'sub_1' }, { key })
    await eventually(
      async () => ran.length,
      (count) => count === 1,
    )
    await jobs.enqueue('discord.sync', { userId: 'member-1' }, { key })
    await eventually(
      async () => ran.length,
      (count) => count === 2,
    )
    // Queued again (a replayed cause): nothing runs twice.
    await jobs.enqueue('discord.sync', { userId: 'member-1' }, { key })
    await jobs.enqueue('stripe.cancel-subscription', { stripeSubscriptionId: 'sub_1' }, { key })
    await new Promise((resolve) => setTimeout(resolve, 2_000))
    expect(ran.sort()).toEqual(['cancel sub_1', 'sync member-1'])
  })

  it('forgets the records of effects done longer ago than any job of theirs can live, and only those', async () => {
    const opened = await database.open()
    try {
      const old = Array.from({ length: 25 }, (_, i) => ({
        key: `discord.sync:old-${i}`,
        queue: 'discord.sync',
      }))
      await opened.db.insertInto('job_effects').values(old).execute()
      await sql`update job_effects set done_at = now() - interval '31 days' where key like 'discord.sync:old-%'`.execute(
        opened.db,
      )
      await opened.db
        .insertInto('job_effects')
        .values({
          key: 'discord.sync:recent',
          queue: 'discord.sync',
          done_at: sql`now() - interval '29 days'`,
        })
        .execute()
      expect(await jobs.pruneEffects(EFFECT_RECORD_DAYS)).toBe(25)
      const left = await opened.db.selectFrom('job_effects').select('key').orderBy('key').execute()
      expect(left.map((row) => row.key)).toEqual(
        expect.arrayContaining([
          'discord.sync:recent',
          'discord.sync:refund:00000000-0000-4000-8000-000000000001',
        ]),
      )
      expect(left.some((row) => row.key.includes(':old-'))).toBe(false)
      expect(await jobs.pruneEffects(EFFECT_RECORD_DAYS)).toBe(0)
    } finally {
      await opened.close()
    }
    // The effect done by the first test is still remembered: queued again, it does not run.
    await jobs.enqueue(
      'discord.sync',
      { userId: 'member-1' },
      { key: 'refund:00000000-0000-4000-8000-000000000001' },
    )
    await new Promise((resolve) => setTimeout(resolve, 1_500))
    expect(ran.filter((line) => line === 'sync member-1')).toHaveLength(1)
  })
})

/**
 * An idle instance does not poll each of its ~30 queues: one query per poll asks which have a job
 * ready, and only those workers look. A job queued from anywhere still starts within a poll or two.
 */
describe('an idle instance', () => {
  it('asks once per poll which queues have work, fetches none while there is none, and starts a queued job within a poll', async () => {
    const database = await createTestDatabase()
    const opened = await database.open()
    await migrateToLatest(opened.db)
    // The queue each of pg-boss's fetches asked (its first parameter), as the database saw them.
    const fetched: string[] = []
    const counted = {
      ...opened,
      boss: {
        executeSql: (text: string, values?: unknown[]) => {
          if (text.includes('SKIP LOCKED')) fetched.push(String(values?.[0]))
          return opened.boss.executeSql(text, values)
        },
      },
    }
    const names = ['discord.sync', 'stripe.cancel-subscription', 'rollups.settle', 'places.plan-changed']
    const jobs = await startJobs(counted, {
      policies: Object.fromEntries(names.map((name) => [name, SWEEP_POLICY])) as QueuePolicies,
      pollSeconds: 0.5,
      log: pino({ level: 'silent' }),
    })
    try {
      const ran: string[] = []
      await jobs.work('discord.sync', async (data) => {
        ran.push(data.userId)
      })
      for (const name of names.slice(1) as ('stripe.cancel-subscription' | 'rollups.settle')[])
        await jobs.work(name, async () => {})
      // Each worker looks once as it starts; then the queues are idle for six polls.
      await new Promise((resolve) => setTimeout(resolve, 1_000))
      fetched.length = 0
      await new Promise((resolve) => setTimeout(resolve, 3_000))
      expect(fetched).toEqual([])

      // Woken by the scan: a sleeping worker would look by itself only after WORKER_BACKSTOP_SECONDS.
      await jobs.enqueue('discord.sync', { userId: 'member-1' })
      await eventually(
        async () => ran.length,
        (count) => count === 1,
        WORKER_BACKSTOP_SECONDS * 1000 - 10_000,
      )
      expect(ran).toEqual(['member-1'])
      expect(new Set(fetched)).toEqual(new Set(['discord.sync']))
    } finally {
      await jobs.stop()
      await database.drop()
    }
  })
})

/**
 * A start makes the queues that are missing and applies a changed policy; an unchanged queue is not
 * written at all (on the embedded database those writes were most of a start).
 */
describe('queues at start', () => {
  it('a new queue is made, a changed policy applied, an unchanged queue left as it was', async () => {
    const database = await createTestDatabase()
    try {
      const opened = await database.open()
      await migrateToLatest(opened.db)
      const start = async (retryDelay: number) => {
        const jobs = await startJobs(opened, {
          policies: { 'discord.sync': { ...SWEEP_POLICY, retryDelay } } as QueuePolicies,
          pollSeconds: 0.5,
          log: pino({ level: 'silent' }),
        })
        await jobs.stop()
        const { rows } = await sql<{ retry_delay: number; updated_on: Date }>`
          select retry_delay, updated_on from pgboss.queue where name = 'discord.sync'`.execute(opened.db)
        return rows[0]
      }
      expect((await start(3))?.retry_delay).toBe(3)
      const changed = await start(7)
      expect(changed?.retry_delay).toBe(7)
      const again = await start(7)
      expect(again).toEqual(changed)
    } finally {
      await database.drop()
    }
  })
})

/**
 * pg-boss marks a finished batch completed without awaiting it; at shutdown that call can reach the
 * database after it closed. It must resolve ("nothing touched"), not become an unhandled rejection
 * that would take the process (or a test run) down.
 */
describe('job queue calls that arrive after the database closed', () => {
  it('complete, fail and delete resolve with nothing affected; a fetch finds nothing', async () => {
    const database = await createTestDatabase()
    const opened = await database.open()
    await migrateToLatest(opened.db)
    const boss = new PgBoss({ db: opened.boss as PgBoss.Db, schema: 'pgboss' })
    try {
      await boss.start()
      await boss.createQueue('late.queue')
      await boss.stop({ graceful: false, wait: true })
      await opened.close()
      const id = '00000000-0000-4000-8000-000000000002'
      await expect(boss.complete('late.queue', id)).resolves.toMatchObject({ affected: 0 })
      await expect(boss.fail('late.queue', id)).resolves.toMatchObject({ affected: 0 })
      await expect(boss.deleteJob('late.queue', id)).resolves.toMatchObject({ affected: 0 })
      await expect(boss.fetch('late.queue')).resolves.toEqual([])
    } finally {
      await database.drop()
    }
  })
})
