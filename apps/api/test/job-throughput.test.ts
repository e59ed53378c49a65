import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { eventually } from './helpers/billing'
import { type SmtpSink, startSmtpSink } from './helpers/smtp-sink'
import { createTestApp, type TestApp } from './helpers/test-app'

/**
 * The job runner keeps up: a thousand queued emails drain without waiting out a polling interval
 * between batches, each is delivered once, and mail on the bulk queue (a broadcast) never holds up
 * a receipt on the transactional one.
 */
describe('job throughput', () => {
  let t: TestApp
  let smtp: SmtpSink
  beforeAll(async () => {
    smtp = await startSmtpSink()
    t = await createTestApp({ env: { SMTP_URL: smtp.url } })
  })
  afterAll(async () => {
    await t.close()
    await smtp.close()
  })

  const message = (to: string, subject: string) => ({
    message: { to, subject, text: subject, html: `<p>${subject}</p>` },
  })

  it('drains 1,000 queued emails, each delivered exactly once, and a receipt is not held up behind them', async () => {
    const bulk = Array.from({ length: 1000 }, (_, index) => ({
      key: `drain-test:${index}`,
      data: message(`member${index}@example.com`, `Bulk ${index}`),
    }))
    await t.app.services.jobs.enqueueMany('email.bulk', bulk)
    await t.app.services.jobs.enqueue('email', message('payer@example.com', 'Your receipt'), {
      key: 'drain-receipt',
    })

    const receipt = await smtp.waitFor((mail) => mail.subject === 'Your receipt', 60_000)
    const bulkWhenReceiptArrived = smtp.messages.filter((mail) => mail.subject?.startsWith('Bulk ')).length
    expect(receipt).toBeDefined()
    expect(bulkWhenReceiptArrived).toBeLessThan(1000)

    await eventually(
      async () => smtp.messages.filter((mail) => mail.subject?.startsWith('Bulk ')).length,
      (count) => count >= 1000,
      240_000,
    )
    const subjects = smtp.messages
      .map((mail) => mail.subject)
      .filter((subject) => subject?.startsWith('Bulk '))
    expect(new Set(subjects).size).toBe(1000)
    expect(subjects).toHaveLength(1000)
    // The last batch is marked completed just after its emails leave.
    await eventually(
      () => t.app.services.jobs.pending('email.bulk'),
      (pending) => pending === 0,
      10_000,
    )
  }, 300_000)
})
