import { randomUUID } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'
import type { FastifyBaseLogger } from 'fastify'
import nodemailer from 'nodemailer'

export interface MailMessage {
  to: string
  subject: string
  text: string
  html: string
  replyTo?: string
  /** A stable Message-ID for a message that may be sent again (a retried job). */
  messageId?: string
}

export interface Mailer {
  /** Delivers one message: over SMTP when configured, otherwise as an .eml file in the outbox. */
  send(message: MailMessage): Promise<{ messageId: string }>
  close(): void
}

export function createMailer(options: {
  smtpUrl: string | undefined
  from: string
  outboxDir: string
  log: FastifyBaseLogger
}): Mailer {
  if (options.smtpUrl) {
    // Pooled: a few connections stay open and carry many messages, instead of a handshake per email.
    const transport = nodemailer.createTransport({
      url: options.smtpUrl,
      pool: true,
      maxConnections: 5,
      maxMessages: 200,
      // A server that does not answer fails the send in seconds (and the job retries), never minutes.
      connectionTimeout: 10_000,
      greetingTimeout: 10_000,
      socketTimeout: 30_000,
    })
    return {
      send: async (message) => {
        const info = await transport.sendMail({ from: options.from, ...message })
        return { messageId: String(info.messageId) }
      },
      close: () => transport.close(),
    }
  }

  // No SMTP server: write real RFC 822 messages to disk so a local user can still open a reset link.
  const transport = nodemailer.createTransport({ streamTransport: true, buffer: true, newline: 'unix' })
  return {
    send: async (message) => {
      const info = await transport.sendMail({ from: options.from, ...message })
      await fs.mkdir(options.outboxDir, { recursive: true })
      const file = path.join(
        options.outboxDir,
        `${new Date().toISOString().replaceAll(':', '-')}-${randomUUID()}.eml`,
      )
      await fs.writeFile(file, info.message as Buffer, { mode: 0o600 })
      options.log.info({ outbox: file }, 'email written to the outbox (SMTP_URL is not set)')
      return { messageId: String(info.messageId) }
    },
    close: () => transport.close(),
  }
}
