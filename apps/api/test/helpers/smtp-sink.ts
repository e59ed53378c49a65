import type { AddressInfo } from 'node:net'
import { type ParsedMail, simpleParser } from 'mailparser'
import { SMTPServer } from 'smtp-server'

/** A real SMTP server that keeps what it receives, so tests read the messages users would. */
export interface SmtpSink {
  url: string
  messages: ParsedMail[]
  /** Resolves with the first message (arrived or arriving) that matches. */
  waitFor(match: (mail: ParsedMail) => boolean, timeoutMs?: number): Promise<ParsedMail>
  /** Takes the server down (connections are refused) until `start`, on the same port. */
  stop(): Promise<void>
  start(): Promise<void>
  close(): Promise<void>
}

export async function startSmtpSink(): Promise<SmtpSink> {
  const messages: ParsedMail[] = []
  const waiters: { match: (mail: ParsedMail) => boolean; resolve: (mail: ParsedMail) => void }[] = []
  const create = () =>
    new SMTPServer({
      authOptional: true,
      // A stop drops open connections at once, as a real outage would (pooled clients keep theirs open).
      closeTimeout: 100,
      disabledCommands: ['STARTTLS'],
      logger: false,
      onData(stream, _session, callback) {
        simpleParser(stream)
          .then((mail) => {
            messages.push(mail)
            for (const waiter of [...waiters]) {
              if (waiter.match(mail)) {
                waiters.splice(waiters.indexOf(waiter), 1)
                waiter.resolve(mail)
              }
            }
            callback()
          })
          .catch(callback)
      },
    })
  let server = create()
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve))
  const { port } = server.server.address() as AddressInfo
  let running = true
  const stop = () =>
    new Promise<void>((resolve) => {
      if (!running) return resolve()
      running = false
      server.close(() => resolve())
    })
  return {
    url: `smtp://127.0.0.1:${port}`,
    messages,
    waitFor: (match, timeoutMs = 15_000) => {
      const found = messages.find(match)
      if (found) return Promise.resolve(found)
      return new Promise((resolve, reject) => {
        const timer = setTimeout(() => reject(new Error('no matching email arrived')), timeoutMs)
        waiters.push({
          match,
          resolve: (mail) => {
            clearTimeout(timer)
            resolve(mail)
          },
        })
      })
    },
    stop,
    start: async () => {
      if (running) return
      server = create()
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve))
      running = true
    },
    close: stop,
  }
}
