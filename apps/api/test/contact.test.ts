import { site } from '@edgeclub/shared'
import { sql } from 'kysely'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type SmtpSink, startSmtpSink } from './helpers/smtp-sink'
import { createTestApp, type TestApp } from './helpers/test-app'

const valid = {
  name: 'Ann Punter',
  email: 'ann@example.com',
  subject: 'billing',
  message: 'Can I switch to yearly?',
}

describe('the contact form', () => {
  let smtp: SmtpSink
  let t: TestApp
  beforeAll(async () => {
    smtp = await startSmtpSink()
    t = await createTestApp({
      env: { SMTP_URL: smtp.url },
      configure: (config) => {
        config.limits.contactPerHour = 3
      },
    })
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })

  const count = async () =>
    Number(
      (await sql<{ n: number }>`select count(*)::int as n from contact_messages`.execute(t.database.db))
        .rows[0]?.n,
    )

  it('stores a valid message and emails it to the support address with a reply-to of the sender', async () => {
    const response = await t.app.inject({
      method: 'POST',
      url: '/discord/api/contact',
      payload: valid,
      remoteAddress: '10.1.0.1',
    })
    expect(response.statusCode).toBe(201)
    expect(response.json()).toMatchObject({
      success: true,
      message: expect.stringContaining('message has been sent'),
    })
    expect(await count()).toBe(1)
    const mail = await smtp.waitFor((m) => m.subject?.includes('Billing Question') ?? false)
    expect(mail.to).toMatchObject({ text: site.supportEmail })
    expect(mail.replyTo?.text).toBe('ann@example.com')
    expect(mail.text).toContain('Can I switch to yearly?')
    expect(mail.html).toContain('Can I switch to yearly?')
  })

  it('rejects an invalid message with a message per field and stores nothing', async () => {
    const before = await count()
    const response = await t.app.inject({
      method: 'POST',
      url: '/discord/api/contact',
      payload: { name: ' ', email: 'not-an-email', subject: 'spam', message: '' },
      remoteAddress: '10.1.0.2',
    })
    expect(response.statusCode).toBe(400)
    const body = response.json()
    expect(body).toMatchObject({ success: false, error: 'VALIDATION_ERROR' })
    expect(body.errors).toEqual([
      { field: 'name', message: 'Please enter your name' },
      { field: 'email', message: 'Please enter a valid email address' },
      { field: 'subject', message: 'Please choose a subject' },
      { field: 'message', message: 'Please enter a message' },
    ])
    expect(await count()).toBe(before)
  })

  it('escapes what a sender writes in the HTML email', async () => {
    await t.app.inject({
      method: 'POST',
      url: '/discord/api/contact',
      payload: { ...valid, subject: 'other', message: '<img src=x onerror=alert(1)>' },
      remoteAddress: '10.1.0.3',
    })
    const mail = await smtp.waitFor((m) => m.text?.includes('<img src=x') ?? false)
    expect(mail.html).not.toContain('<img src=x')
    expect(mail.html).toContain('&lt;img src=x')
  })

  it('limits how often one address may write', async () => {
    const statuses: number[] = []
    for (let i = 0; i < 4; i++) {
      const response = await t.app.inject({
        method: 'POST',
        url: '/discord/api/contact',
        payload: valid,
        remoteAddress: '10.1.0.9',
      })
      statuses.push(response.statusCode)
    }
    expect(statuses).toEqual([201, 201, 201, 429])
  })
})

describe('email without SMTP', () => {
  it('writes each message to DATA_DIR/outbox as an .eml file and logs where', async () => {
    const t = await createTestApp()
    try {
      await t.app.inject({
        method: 'POST',
        url: '/discord/api/contact',
        payload: valid,
        remoteAddress: '10.2.0.1',
      })
      const fs = await import('node:fs/promises')
      const path = await import('node:path')
      const outbox = path.join(t.config.dataDir, 'outbox')
      let files: string[] = []
      for (let i = 0; i < 50 && files.length === 0; i++) {
        files = await fs.readdir(outbox).catch(() => [])
        if (files.length === 0) await new Promise((resolve) => setTimeout(resolve, 200))
      }
      expect(files.some((file) => file.endsWith('.eml'))).toBe(true)
      const message = await fs.readFile(path.join(outbox, files[0]!), 'utf8')
      expect(message).toContain('Subject: [Contact] Billing Question from Ann Punter')
      expect(message).toContain('Content-Type: text/html')
      expect(t.logs()).toContain('email written to the outbox')
    } finally {
      await t.close()
    }
  })
})
