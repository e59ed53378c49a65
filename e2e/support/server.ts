import { type ChildProcess, spawn } from 'node:child_process'
import fs from 'node:fs/promises'
import net from 'node:net'
import os from 'node:os'
import path from 'node:path'

/** Runs the real server (`apps/api/src/server.ts`, serving the built web app) as a child process. */

const root = path.resolve(import.meta.dirname, '../..')

export interface RunningServer {
  url: string
  dataDir: string
  output: () => string
  stop(): Promise<void>
}

export async function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = net.createServer()
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo
      server.close(() => resolve(port))
    })
    server.on('error', reject)
  })
}

/**
 * `port` and `dataDir` start it again where an earlier one stood (same origin, so the browser keeps its
 * storage; same data): a given `dataDir` is left in place when it stops.
 */
export async function startServer(
  env: Record<string, string>,
  options: { port?: number; dataDir?: string } = {},
): Promise<RunningServer> {
  const port = options.port ?? (await freePort())
  const dataDir = options.dataDir ?? (await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-e2e-')))
  const url = `http://127.0.0.1:${port}`
  let output = ''
  const child: ChildProcess = spawn(process.execPath, ['--import', 'tsx', 'apps/api/src/server.ts'], {
    cwd: root,
    env: {
      ...process.env,
      NODE_ENV: 'test',
      PORT: String(port),
      HOST: '127.0.0.1',
      DATA_DIR: dataDir,
      APP_ORIGIN: url,
      LOG_LEVEL: 'warn',
      DATABASE_URL: '',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', (chunk) => {
    output += chunk
  })
  child.stderr?.on('data', (chunk) => {
    output += chunk
  })

  // A busy machine (several suites at once) may need longer: E2E_SERVER_START_MS.
  const deadline = Date.now() + Number(process.env.E2E_SERVER_START_MS ?? 180_000)
  while (Date.now() < deadline) {
    if (child.exitCode !== null) throw new Error(`The server exited during start:\n${output}`)
    const ready = await fetch(`${url}/readyz`).then(
      (response) => response.ok,
      () => false,
    )
    if (ready) break
    await new Promise((resolve) => setTimeout(resolve, 200))
  }
  if (Date.now() >= deadline) throw new Error(`The server did not become ready:\n${output}`)

  return {
    url,
    dataDir,
    output: () => output,
    stop: async () => {
      if (child.exitCode === null) {
        const exited = new Promise((resolve) => child.once('exit', resolve))
        child.kill('SIGTERM')
        await exited
      }
      if (!options.dataDir) await fs.rm(dataDir, { recursive: true, force: true })
    },
  }
}
