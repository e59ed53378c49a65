import { type ChildProcess, spawn } from 'node:child_process'
import path from 'node:path'
import { cpuMs, root } from './util'

export interface StreamTarget {
  url: string
  headers: Record<string, string>
}

/**
 * Live-stream readers spread over several processes (each holds at most `perProcess` sockets, well
 * under the file limit): open them all, then ask when each received a given event.
 */
export interface StreamReaders {
  count: number
  failed: number
  failures: string[]
  /** Absolute arrival times (ms since the epoch, sub-ms precision) of the event naming `id`; null: not yet. */
  arrivals(id: string): Promise<(number | null)[]>
  /**
   * The same, answered by each reader process once all its streams have the event (or at the
   * timeout): nothing is asked of the readers while the event spreads.
   */
  awaitArrivals(id: string, timeoutMs: number): Promise<(number | null)[]>
  /** CPU the reader processes used so far (ms). */
  cpuMs(): Promise<number>
  close(): Promise<void>
}

type Reply = { type: string; [key: string]: unknown }

function child(): Promise<{
  process: ChildProcess
  ask: (message: object, answer: string) => Promise<Reply>
}> {
  const proc = spawn(
    process.execPath,
    ['--import', 'tsx', path.join(root, 'bench/lib/stream-reader-process.ts')],
    {
      cwd: root,
      stdio: ['ignore', 'inherit', 'inherit', 'ipc'],
    },
  )
  const waiting = new Map<string, { resolve: (reply: Reply) => void; reject: (error: Error) => void }>()
  proc.on('exit', (code) => {
    for (const waiter of waiting.values()) waiter.reject(new Error(`a stream reader exited (${code})`))
    waiting.clear()
  })
  proc.on('message', (reply: Reply) => {
    const key = reply.type === 'arrivals' ? `arrivals:${reply.id as string}` : reply.type
    const waiter = waiting.get(key)
    waiting.delete(key)
    waiter?.resolve(reply)
  })
  const ask = (message: object, answer: string) =>
    new Promise<Reply>((resolve, reject) => {
      waiting.set(answer, { resolve, reject })
      if (Object.keys(message).length > 0) proc.send(message)
    })
  return ask({}, 'ready').then(() => ({ process: proc, ask }))
}

/** Opens every target, `perProcess` per reader process, `concurrency` connecting at once in each. */
export async function openStreamReaders(
  targets: StreamTarget[],
  options: { perProcess?: number; concurrency?: number } = {},
): Promise<StreamReaders> {
  const perProcess = options.perProcess ?? 4000
  const slices: StreamTarget[][] = []
  for (let i = 0; i < targets.length; i += perProcess) slices.push(targets.slice(i, i + perProcess))
  const children = await Promise.all(slices.map(() => child()))
  const opened = await Promise.all(
    children.map((c, i) =>
      c.ask({ type: 'open', targets: slices[i], concurrency: options.concurrency ?? 25 }, 'opened'),
    ),
  )
  return {
    count: opened.reduce((sum, reply) => sum + (reply.count as number), 0),
    failed: opened.reduce((sum, reply) => sum + (reply.failed as number), 0),
    failures: opened.flatMap((reply) => reply.failures as string[]),
    async arrivals(id) {
      const replies = await Promise.all(
        children.map((c) => c.ask({ type: 'arrivals', id }, `arrivals:${id}`)),
      )
      return replies.flatMap((reply) => reply.times as (number | null)[])
    },
    async awaitArrivals(id, timeoutMs) {
      const replies = await Promise.all(
        children.map((c) => c.ask({ type: 'await', id, timeoutMs }, `arrivals:${id}`)),
      )
      return replies.flatMap((reply) => reply.times as (number | null)[])
    },
    async cpuMs() {
      const each = await Promise.all(children.map((c) => cpuMs(c.process.pid!).catch(() => 0)))
      return each.reduce((sum, ms) => sum + ms, 0)
    },
    async close() {
      await Promise.all(
        children.map(
          (c) =>
            new Promise<void>((resolve) => {
              if (c.process.exitCode !== null) return resolve()
              c.process.once('exit', () => resolve())
              c.process.send({ type: 'close' })
            }),
        ),
      )
    },
  }
}
