import { createHash } from 'node:crypto'
import fs from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

/**
 * One process at a time owns an embedded database directory: two PostgreSQL engines writing the same
 * files would corrupt them, and nothing inside PGlite stops a second one. The owner listens on a Unix
 * socket beside the directory (`<DATA_DIR>/pglite.sock`, readable by the directory's user only);
 * whoever finds it answering knows the database is taken, and may ask the owner for what only the
 * owner can do safely: a consistent backup of a database that is in use (`npm run backup`). A socket
 * left by a process that died answers nothing and is taken over.
 */

export class EmbeddedDatabaseBusyError extends Error {
  override name = 'EmbeddedDatabaseBusyError'
  constructor(
    readonly directory: string,
    readonly ownerPid: number | undefined,
  ) {
    super(
      `The embedded database in ${directory} is in use by another process${ownerPid ? ` (pid ${ownerPid})` : ''}. ` +
        'One process at a time can open it: stop that process, give this one its own DATA_DIR, or use PostgreSQL (DATABASE_URL) for several instances.',
    )
  }
}

/** What the owner answers to. */
export interface OwnerHandlers {
  /** A consistent, gzipped copy of the data directory (PGlite's dump format). */
  backup?: () => Promise<Blob>
}

export interface Ownership {
  release(): Promise<void>
}

/** Unix socket paths are limited to ~107 bytes; a deeper DATA_DIR gets its socket in the temp dir. */
const MAX_SOCKET_PATH = 100

export function ownerSocketPath(pgliteDir: string): string {
  const beside = `${path.resolve(pgliteDir)}.sock`
  if (Buffer.byteLength(beside) <= MAX_SOCKET_PATH) return beside
  const hash = createHash('sha256').update(path.resolve(pgliteDir)).digest('hex').slice(0, 20)
  return path.join(os.tmpdir(), `edgeclub-${hash}.sock`)
}

interface Answer {
  ok: boolean
  pid?: number
  size?: number
  message?: string
}

/**
 * Sends one request to the owner and reads its answer: a JSON line, then `size` bytes of payload.
 * Resolves null when no process owns the directory.
 */
export function askOwner(
  pgliteDir: string,
  op: 'ping' | 'backup',
  timeoutMs = 120_000,
): Promise<{ answer: Answer; payload: Buffer } | null> {
  const socketPath = ownerSocketPath(pgliteDir)
  return new Promise((resolve, reject) => {
    const socket = net.connect(socketPath)
    const chunks: Buffer[] = []
    let received = 0
    let answer: Answer | undefined
    let settled = false
    const finish = (outcome: { answer: Answer; payload: Buffer } | null, error?: Error) => {
      if (settled) return
      settled = true
      clearTimeout(timer)
      socket.destroy()
      if (error) reject(error)
      else resolve(outcome)
    }
    const timer = setTimeout(
      () => finish(null, new Error(`the process owning ${pgliteDir} did not answer within ${timeoutMs} ms`)),
      timeoutMs,
    )
    socket.once('connect', () => socket.write(`${JSON.stringify({ op })}\n`))
    socket.on('data', (chunk: Buffer) => {
      chunks.push(chunk)
      received += chunk.length
      const all = Buffer.concat(chunks)
      if (!answer) {
        const newline = all.indexOf(10)
        if (newline < 0) return
        answer = JSON.parse(all.subarray(0, newline).toString('utf8')) as Answer
        chunks.length = 0
        chunks.push(all.subarray(newline + 1))
        received = all.length - newline - 1
      }
      if (received >= (answer.size ?? 0))
        finish({ answer, payload: Buffer.concat(chunks).subarray(0, answer.size ?? 0) })
    })
    socket.on('end', () => {
      if (answer) finish({ answer, payload: Buffer.concat(chunks) })
      else finish(null, new Error(`the process owning ${pgliteDir} closed the connection without an answer`))
    })
    socket.on('error', (error: NodeJS.ErrnoException) => {
      // No socket, or one nobody listens on (its process died): nobody owns the directory.
      if (error.code === 'ENOENT' || error.code === 'ECONNREFUSED') finish(null)
      else finish(null, error)
    })
  })
}

function serve(handlers: OwnerHandlers, ready: () => boolean) {
  return (socket: net.Socket) => {
    socket.on('error', () => {})
    // Until the socket is made private, nobody is answered.
    if (!ready()) {
      socket.destroy()
      return
    }
    let buffered = ''
    socket.on('data', (chunk: Buffer) => {
      buffered += chunk.toString('utf8')
      const newline = buffered.indexOf('\n')
      if (newline < 0) {
        if (buffered.length > 1024) socket.destroy()
        return
      }
      let op: unknown
      try {
        op = (JSON.parse(buffered.slice(0, newline)) as { op?: unknown }).op
      } catch {
        op = undefined
      }
      socket.removeAllListeners('data')
      const reply = (answer: Answer, payload?: Buffer) => {
        socket.write(`${JSON.stringify({ ...answer, pid: process.pid, size: payload?.length ?? 0 })}\n`)
        if (payload) socket.write(payload)
        socket.end()
      }
      if (op === 'ping') return reply({ ok: true })
      if (op === 'backup' && handlers.backup) {
        handlers.backup().then(
          async (blob) => reply({ ok: true }, Buffer.from(await blob.arrayBuffer())),
          (error: unknown) =>
            reply({ ok: false, message: error instanceof Error ? error.message : String(error) }),
        )
        return
      }
      reply({ ok: false, message: `this process does not do ${String(op)} now` })
    })
  }
}

function listen(server: net.Server, socketPath: string): Promise<void> {
  return new Promise((resolve, reject) => {
    const onError = (error: Error) => {
      server.off('listening', onListening)
      reject(error)
    }
    const onListening = () => {
      server.off('error', onError)
      resolve()
    }
    server.once('error', onError)
    server.once('listening', onListening)
    server.listen(socketPath)
  })
}

/**
 * Takes the directory for this process, or throws EmbeddedDatabaseBusyError naming the owner. A dead
 * owner's socket is removed under a short lock (mkdir), so two processes taking over at once cannot
 * both end up believing they own it.
 */
export async function claimEmbeddedDatabase(pgliteDir: string, handlers: OwnerHandlers): Promise<Ownership> {
  const socketPath = ownerSocketPath(pgliteDir)
  await fs.mkdir(path.dirname(socketPath), { recursive: true })
  let ready = false
  const server = net.createServer(serve(handlers, () => ready))
  for (let attempt = 0; ; attempt++) {
    try {
      await listen(server, socketPath)
      break
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EADDRINUSE' || attempt >= 20) throw error
    }
    const owner = await askOwner(pgliteDir, 'ping', 5_000).catch(() => undefined)
    if (owner !== null) throw new EmbeddedDatabaseBusyError(pgliteDir, owner?.answer.pid)
    const takeover = `${socketPath}.takeover`
    try {
      await fs.mkdir(takeover)
    } catch {
      // Another process is taking it over right now: look again in a moment.
      await new Promise((resolve) => setTimeout(resolve, 50 + Math.random() * 100))
      continue
    }
    try {
      if ((await askOwner(pgliteDir, 'ping', 5_000).catch(() => undefined)) === null)
        await fs.rm(socketPath, { force: true })
    } finally {
      await fs.rmdir(takeover).catch(() => {})
    }
  }
  // The socket hands out backups: only the directory's own user may connect.
  await fs.chmod(socketPath, 0o600)
  ready = true
  server.unref()
  return {
    release: () =>
      new Promise<void>((resolve) => {
        server.close(() => resolve())
      }),
  }
}
