import net from 'node:net'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { type Emulator, startEmulator } from '../src/server'

/** The mail sink speaks SMTP as a mail server does, including to a sender that dies mid-conversation. */

let emulator: Emulator
let port: number

beforeAll(async () => {
  emulator = await startEmulator()
  port = Number(new URL(emulator.mail.smtpUrl).port)
})
afterAll(async () => {
  await emulator?.close()
})

/** One SMTP conversation: each line is sent once the server has answered the one before. */
function converse(lines: string[], end: (socket: net.Socket) => void = (socket) => socket.end()) {
  return new Promise<string[]>((resolve, reject) => {
    const socket = net.connect(port, '127.0.0.1')
    const replies: string[] = []
    const queue = [...lines]
    socket.setEncoding('utf8')
    socket.on('error', reject)
    socket.on('data', (chunk: string) => {
      replies.push(chunk.trim())
      const next = queue.shift()
      if (next === undefined) {
        end(socket)
        resolve(replies)
      } else socket.write(`${next}\r\n`)
    })
  })
}

describe('the SMTP sink', () => {
  it('drops a sender whose connection resets mid-message, and goes on taking mail', async () => {
    // A killed app process: its connection is reset with a message under way (the envelope given).
    await converse(
      ['EHLO crashed.test', 'MAIL FROM:<app@edgeclub.test>', 'RCPT TO:<ann@example.com>'],
      (socket) => socket.resetAndDestroy(),
    )
    const replies = await converse([
      'EHLO restarted.test',
      'MAIL FROM:<app@edgeclub.test>',
      'RCPT TO:<ann@example.com>',
      'DATA',
      'Subject: Whole message\r\nMessage-ID: <whole@edgeclub.test>\r\n\r\nAll of it.\r\n.',
      'QUIT',
    ])
    expect(replies.at(-2)).toMatch(/^250/)
    await expect.poll(() => emulator.mail.messages().map((mail) => mail.subject)).toEqual(['Whole message'])
  })
})
