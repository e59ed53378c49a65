import { describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { accessTokenOf, crashHarness, jobsLeft } from './helpers/crash-harness'
import { freePort, startServerProcess } from './helpers/server-process'

/**
 * The re-audit's measurement: the process is killed (SIGKILL) in the middle of a 1,000-recipient
 * broadcast and started again. Every member gets the broadcast; a crash repeats at most the one
 * message that was in flight (not a batch), and a repeat carries the same Message-ID, so every member
 * has exactly one message as far as their mail server and client can tell.
 */
const onPostgres = process.env.TEST_DB === 'postgres'
const RECIPIENTS = 1000
const ADMIN = { email: 'crash-admin@edgeclub.test', password: 'Crash$Admin2026-mail' }

describe.skipIf(!onPostgres)('a crash in the middle of a broadcast', () => {
  const h = crashHarness('mail-crash', (emulator) => {
    const discord = emulator.discord.config
    return {
      SMTP_URL: emulator.mail.smtpUrl,
      ADMIN_EMAIL: ADMIN.email,
      ADMIN_PASSWORD: ADMIN.password,
      DISCORD_BOT_TOKEN: discord.botToken,
      DISCORD_GUILD_ID: discord.guildId,
      DISCORD_INVITE_CHANNEL_ID: discord.inviteChannelId,
      DISCORD_MEMBER_ROLE_ID: discord.memberRoleId,
      DISCORD_ANNOUNCE_CHANNEL_ID: discord.announceChannelId,
      DISCORD_API_BASE: `${emulator.url}/discord/api`,
    }
  })

  it('killed mid-broadcast and started again: every member has it once (one Message-ID each)', async () => {
    const { emulator, db, env } = h
    const port = await freePort()
    let server = await startServerProcess(env, { port })
    try {
      await db.query(
        `insert into users (email, email_normalized, password_hash, first_name, last_name,
           discord_username, email_updates)
         select 'reader' || n || '@crash.test', 'reader' || n || '@crash.test', 'not-a-hash',
           'Reader', 'No. ' || n, 'reader' || n, true
         from generate_series(1, $1::int) as n`,
        [RECIPIENTS],
      )
      const token = await accessTokenOf(server.origin, ADMIN)
      emulator.mail.clear()
      const subject = 'EdgeClub: Crash check'
      const sent = await fetch(`${server.origin}/discord/api/admin/broadcast`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', authorization: `Bearer ${token}` },
        body: JSON.stringify({ title: 'Crash check', message: 'One each.', alsoEmail: true }),
      })
      expect(sent.status).toBe(200)
      const ofBroadcast = () => emulator.mail.messages().filter((mail) => mail.subject === subject)

      // Killed while the queue drains, a good way in.
      await eventually(
        async () => ofBroadcast().length,
        (count) => count >= RECIPIENTS / 3,
        120_000,
      )
      await server.kill()
      const atKill = ofBroadcast().length

      server = await startServerProcess(env, { port })
      // Every recipient, and then nothing left in the queue: the jobs the dead process held come back
      // once their time is up (a minute, found within 20 s) and find their messages accepted.
      await eventually(
        async () => ({
          recipients: new Set(ofBroadcast().map((mail) => mail.to)).size,
          pending: await jobsLeft(db, ['email.bulk']),
        }),
        (state) => state.recipients === RECIPIENTS && state.pending === 0,
        240_000,
      )
      await new Promise((resolve) => setTimeout(resolve, 2_000))

      const perRecipient = new Map<string, { copies: number; ids: Set<string> }>()
      for (const mail of ofBroadcast()) {
        const entry = perRecipient.get(mail.to) ?? { copies: 0, ids: new Set<string>() }
        entry.copies += 1
        entry.ids.add(mail.messageId)
        perRecipient.set(mail.to, entry)
      }
      const repeated = [...perRecipient.values()].filter((entry) => entry.copies > 1)
      console.info(
        `killed after ${atKill} of ${RECIPIENTS}: ${ofBroadcast().length} emails, ${repeated.length} members had a copy twice`,
      )
      expect(perRecipient.size).toBe(RECIPIENTS)
      expect(ofBroadcast().length).toBeLessThanOrEqual(RECIPIENTS + 1)
      for (const entry of perRecipient.values()) expect(entry.ids.size).toBe(1)
      expect(server.output()).not.toMatch(/"level":(50|60)/)
    } finally {
      await server.kill()
    }
  }, 420_000)
})
