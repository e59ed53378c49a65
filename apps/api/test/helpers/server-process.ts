import { type ChildProcess, spawn } from 'node:child_process'
import net from 'node:net'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/** The real server process (`npm start`'s entry point), for tests of what happens to the process itself. */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../..')

export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const probe = net.createServer()
    probe.once('error', reject)
    probe.listen(0, '127.0.0.1', () => {
      const { port } = probe.address() as net.AddressInfo
      probe.close(() => resolve(port))
    })
  })
}

export interface ServerProcess {
  origin: string
  child: ChildProcess
  /** Everything the process wrote so far. */
  output(): string
  /** Resolves with the exit code (null when killed by a signal). */
  exited: Promise<number | null>
  alive(): boolean
  /** SIGKILL unless it already exited. */
  kill(): Promise<void>
}

/**
 * Starts `apps/api/src/server.ts` with `env` (plus a port and the basics) and waits for /readyz.
 * A port picked here is free when probed, but another test's process may take it before this one
 * listens (starting takes seconds): then it starts again on another port.
 */
export async function startServerProcess(
  env: Record<string, string>,
  options: { port?: number } = {},
): Promise<ServerProcess> {
  for (let attempt = 1; ; attempt += 1) {
    try {
      return await startOnce(env, options.port ?? (await freePort()))
    } catch (error) {
      const portTaken = error instanceof Error && error.message.includes('EADDRINUSE')
      if (!portTaken || options.port !== undefined || attempt === 3) throw error
    }
  }
}

async function startOnce(env: Record<string, string>, port: number): Promise<ServerProcess> {
  const origin = `http://127.0.0.1:${port}`
  const child = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/server.ts'], {
    cwd: root,
    env: {
      PATH: process.env.PATH,
      PORT: String(port),
      HOST: '127.0.0.1',
      PRICE_FEED_URL: 'http://127.0.0.1:9/unreachable',
      LOG_LEVEL: 'info',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  let output = ''
  child.stdout?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  child.stderr?.on('data', (chunk: Buffer) => {
    output += chunk.toString()
  })
  const exited = new Promise<number | null>((resolve) => child.once('exit', (code) => resolve(code)))
  const server: ServerProcess = {
    origin,
    child,
    output: () => output,
    exited,
    alive: () => child.exitCode === null && child.signalCode === null,
    kill: async () => {
      if (!server.alive()) return
      child.kill('SIGKILL')
      await exited
    },
  }

  const deadline = Date.now() + 90_000
  while (Date.now() < deadline) {
    if (!server.alive()) throw new Error(`the server exited early:\n${output}`)
    const ready = await fetch(`${origin}/readyz`).then(
      (response) => response.ok,
      () => false,
    )
    if (ready) return server
    await new Promise((resolve) => setTimeout(resolve, 250))
  }
  await server.kill()
  throw new Error(`the server never became ready:\n${output}`)
}
