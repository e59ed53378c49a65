import { startEmulator } from '@edgeclub/emulator'
import pg from 'pg'
import { atMost, figure, round } from '../lib/figures'
import type { Section } from '../lib/section'
import { startApp } from '../lib/servers'
import { envNumber, sleep } from '../lib/util'

const ADMIN = { email: 'bench-admin@edgeclub.test', password: 'Bench$Admin2026-jobs' }

/**
 * Job throughput on PostgreSQL: an admin's broadcast to BENCH_JOBS_RECIPIENTS (1,000) members who
 * opted in to emails, through the real route, queue and pooled SMTP client, into the emulator's SMTP
 * sink. Figures: request → last email in the sink, emails per second while the queue drains, and how
 * long a password-reset email asked for in the middle of the broadcast takes to arrive (the
 * transactional queue must not wait behind the bulk one).
 */
export const jobsSection: Section = {
  name: 'jobs',
  title: 'job throughput (a broadcast through the SMTP sink, PostgreSQL)',
  async run({ postgresUrl, log }) {
    const recipients = envNumber('BENCH_JOBS_RECIPIENTS', 1000)
    const dbName = `edgeclub_bench_jobs_${process.pid}`
    const adminClient = new pg.Client({ connectionString: postgresUrl })
    await adminClient.connect()
    await adminClient.query(`create database ${dbName}`)
    const databaseUrl = Object.assign(new URL(postgresUrl), { pathname: `/${dbName}` }).toString()
    const emulator = await startEmulator()
    try {
      const discord = emulator.discord.config
      const app = await startApp({
        databaseUrl,
        env: {
          SMTP_URL: emulator.mail.smtpUrl,
          ADMIN_EMAIL: ADMIN.email,
          ADMIN_PASSWORD: ADMIN.password,
          DISCORD_BOT_TOKEN: discord.botToken,
          DISCORD_GUILD_ID: discord.guildId,
          DISCORD_INVITE_CHANNEL_ID: discord.inviteChannelId,
          DISCORD_MEMBER_ROLE_ID: discord.memberRoleId,
          DISCORD_ANNOUNCE_CHANNEL_ID: discord.announceChannelId,
          DISCORD_API_BASE: `${emulator.url}/discord/api`,
        },
      })
      try {
        // The members, written straight into the app's schema (the app migrated it at start).
        const db = new pg.Client({ connectionString: databaseUrl })
        await db.connect()
        await db.query(
          `insert into users (email, email_normalized, password_hash, first_name, last_name,
             discord_username, email_updates)
           select 'reader' || n || '@bench.test', 'reader' || n || '@bench.test', 'not-a-hash',
             'Reader', 'No. ' || n, 'reader' || n, true
           from generate_series(1, $1::int) as n`,
          [recipients],
        )
        await db.end()

        const login = await fetch(`${app.url}/discord/api/auth/login`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify(ADMIN),
        })
        const token = ((await login.json()) as { data: { tokens: { accessToken: string } } }).data.tokens
          .accessToken

        emulator.mail.clear()
        log(`broadcast to ${recipients} members`)
        const subject = 'EdgeClub: Bench broadcast'
        const startedAt = performance.now()
        const response = await fetch(`${app.url}/discord/api/admin/broadcast`, {
          method: 'POST',
          headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
          body: JSON.stringify({ title: 'Bench broadcast', message: 'Throughput check.', alsoEmail: true }),
        })
        if (!response.ok) throw new Error(`broadcast answered ${response.status}: ${await response.text()}`)
        const queuedMs = performance.now() - startedAt

        // A member asks for a password reset while the broadcast drains.
        let resetAskedAt = 0
        let resetMs: number | null = null
        let firstAt: number | null = null
        let lastAt: number | null = null
        const deadline = Date.now() + 600_000
        while (Date.now() < deadline) {
          const mails = emulator.mail.messages()
          const delivered = mails.filter((mail) => mail.subject === subject).length
          const now = performance.now()
          if (delivered > 0 && firstAt === null) firstAt = now
          if (delivered > 0 && resetAskedAt === 0) {
            resetAskedAt = now
            await fetch(`${app.url}/discord/api/auth/forgot-password`, {
              method: 'POST',
              headers: { 'content-type': 'application/json', 'x-forwarded-for': '203.0.113.77' },
              body: JSON.stringify({ email: 'reader1@bench.test' }),
            })
          }
          if (
            resetAskedAt > 0 &&
            resetMs === null &&
            mails.some((mail) => mail.to.includes('reader1@bench.test') && mail.subject !== subject)
          )
            resetMs = now - resetAskedAt
          if (delivered >= recipients) {
            lastAt = now
            if (resetMs !== null) break
          }
          await sleep(10)
        }
        if (lastAt === null || firstAt === null)
          throw new Error('the broadcast did not drain within 10 minutes')
        const drainS = (lastAt - firstAt) / 1000
        return {
          figures: [
            figure(
              'jobs.broadcast',
              `${recipients}-recipient broadcast, request → last email`,
              round((lastAt - startedAt) / 1000, 1),
              {
                unit: 's',
                note: `the request itself (queueing ${recipients} jobs in one transaction) took ${Math.round(queuedMs)} ms`,
              },
            ),
            figure(
              'jobs.emailsPerSecond',
              'emails/s through the SMTP sink while draining',
              drainS > 0 ? Math.round(recipients / drainS) : null,
              {
                unit: '/s',
              },
            ),
            figure(
              'jobs.receiptDuringBroadcast',
              'password-reset email asked for mid-broadcast, request → inbox',
              resetMs === null ? null : Math.round(resetMs),
              {
                unit: 'ms',
                goal: atMost(5000),
                note: 'transactional mail has its own queue: it must not wait for the broadcast',
              },
            ),
          ],
        }
      } finally {
        await app.stop()
      }
    } finally {
      await emulator.close()
      await adminClient.query(`drop database if exists ${dbName} with (force)`)
      await adminClient.end()
    }
  },
}
