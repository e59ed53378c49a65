import type { AddressInfo } from 'node:net'
import { simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'
import { type Router, sendJson, sendText } from '../http'

/**
 * A real SMTP server that keeps every message it receives: the app sends its emails here in the demo
 * and in end-to-end tests (SMTP_URL), and people read them at /mail, tests at /_control/mail.
 */

export interface ReceivedMail {
  id: number
  to: string
  from: string
  subject: string
  text: string
  html: string
  date: string
  /** The Message-ID header as sent (a message sent again keeps it), or '' when there was none. */
  messageId: string
  /** Every http(s) link of the text part, in order (tests follow them). */
  links: string[]
}

export interface MailSinkControl {
  /** The SMTP_URL to give the app. */
  smtpUrl: string
  messages(): ReceivedMail[]
  clear(): void
  close(): Promise<void>
}

const escapeHtml = (value: string) =>
  value.replaceAll('&', '&amp;').replaceAll('<', '&lt;').replaceAll('>', '&gt;').replaceAll('"', '&quot;')

const linkify = (text: string) =>
  escapeHtml(text).replace(/https?:\/\/[^\s<]+/g, (url) => `<a href="${url}">${url}</a>`)

export async function mountMailSink(
  router: Router,
  options: { smtpPort?: number; host?: string } = {},
): Promise<MailSinkControl> {
  const received: ReceivedMail[] = []
  let nextId = 1
  const server = new SMTPServer({
    authOptional: true,
    disabledCommands: ['STARTTLS'],
    logger: false,
    onData(stream, _session, callback) {
      simpleParser(stream)
        .then((mail) => {
          const text = mail.text ?? ''
          received.push({
            id: nextId++,
            to: mail.to
              ? Array.isArray(mail.to)
                ? mail.to.map((a) => a.text).join(', ')
                : mail.to.text
              : '',
            from: mail.from?.text ?? '',
            subject: mail.subject ?? '',
            text,
            html: typeof mail.html === 'string' ? mail.html : '',
            date: (mail.date ?? new Date()).toISOString(),
            messageId: mail.messageId ?? '',
            links: text.match(/https?:\/\/[^\s<>"]+/g) ?? [],
          })
          callback()
        })
        .catch(callback)
    },
  })
  // A sender that dies mid-conversation (a killed app process) resets its connection: the sink drops
  // that conversation, as a real mail server does, instead of crashing whoever hosts it.
  server.on('error', () => {})
  const host = options.host ?? '127.0.0.1'
  await new Promise<void>((resolve) => server.listen(options.smtpPort ?? 0, host, resolve))
  const { port } = server.server.address() as AddressInfo

  router.on('GET', '/_control/mail', ({ res, url }) => {
    const to = url.searchParams.get('to')?.toLowerCase()
    sendJson(res, 200, { messages: to ? received.filter((m) => m.to.toLowerCase().includes(to)) : received })
  })
  router.on('DELETE', '/_control/mail', ({ res }) => {
    received.length = 0
    sendJson(res, 200, { ok: true })
  })
  router.on('GET', '/mail', ({ res }) => {
    const rows = [...received]
      .reverse()
      .map(
        (m) =>
          `<li><a href="/mail/${m.id}"><strong>${escapeHtml(m.subject)}</strong></a><br><small>to ${escapeHtml(m.to)} · ${escapeHtml(m.date)}</small></li>`,
      )
      .join('')
    sendText(
      res,
      200,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>Emulator inbox</title></head><body><h1>Emulator inbox</h1><p>Every email EdgeClub sent in this run (newest first).</p><ul>${rows || '<li>No emails yet.</li>'}</ul></body></html>`,
      'text/html; charset=utf-8',
    )
  })
  router.on('GET', '/mail/:id', ({ res, params }) => {
    const mail = received.find((m) => m.id === Number(params.id))
    if (!mail) return sendText(res, 404, 'No such email', 'text/plain')
    sendText(
      res,
      200,
      `<!doctype html><html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(mail.subject)}</title></head><body><p><a href="/mail">Back to the inbox</a></p><h1>${escapeHtml(mail.subject)}</h1><p>From ${escapeHtml(mail.from)}<br>To ${escapeHtml(mail.to)}</p><pre style="white-space:pre-wrap">${linkify(mail.text)}</pre></body></html>`,
      'text/html; charset=utf-8',
    )
  })

  return {
    smtpUrl: `smtp://${host}:${port}`,
    messages: () => [...received],
    clear: () => {
      received.length = 0
    },
    close: () => new Promise((resolve) => server.close(() => resolve())),
  }
}
