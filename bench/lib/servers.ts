import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import { statSync } from 'node:fs'
import fs from 'node:fs/promises'
import path from 'node:path'
import { newest } from '../../scripts/web-build'
import { cpuMs, envNumber, freePort, root, rssMB, sleep, tempDir } from './util'

/**
 * The real server (apps/api/src/server.ts, as `npm start` runs it) and the bare Fastify baseline,
 * each as its own process started the same way, so a ratio between them compares like with like.
 */

export interface RunningProcess {
  url: string
  pid: number
  /** Milliseconds from spawn to the first 200 of the readiness URL. */
  startMs: number
  /** CPU time the process had used by then (ms). */
  startCpuMs: number
  rssMB(): Promise<number>
  /** The last few KB the process wrote to stderr (and stdout when captured). */
  output(): string
  /** Ends the process and removes what the bench made for it. */
  stop(): Promise<void>
  /** Ends the process only. */
  stopProcess(): Promise<void>
}

const JWT_SECRET = 'bench-secret-'.padEnd(48, 'x')
export const benchJwtSecret = JWT_SECRET

/**
 * The node flags `npm start` passes (package.json's start script, before the launcher), which the
 * production server runs with: the built server is measured as an operator runs it.
 */
export async function productionNodeFlags(): Promise<string[]> {
  const manifest = JSON.parse(await fs.readFile(path.join(root, 'package.json'), 'utf8')) as {
    scripts: Record<string, string>
  }
  const start = manifest.scripts.start ?? ''
  return start
    .split(/\s+/)
    .slice(1, start.split(/\s+/).indexOf('scripts/run.mjs'))
    .filter((flag) => flag.startsWith('--'))
}

async function launch(
  script: string,
  env: Record<string, string>,
  readyPath: string,
  port: number,
  cleanup: () => Promise<void>,
  nodeArgs: string[] = ['--import', 'tsx'],
): Promise<RunningProcess> {
  const url = `http://127.0.0.1:${port}`
  let output = ''
  const keep = (chunk: Buffer) => {
    output = (output + chunk.toString()).slice(-8000)
  }
  const spawnedAt = performance.now()
  // BENCH_CPU_PROF=<folder>: every server writes a V8 CPU profile there when it stops (Node refuses
  // --cpu-prof in NODE_OPTIONS); open it in Chrome DevTools or read it with any .cpuprofile tool.
  const profile = process.env.BENCH_CPU_PROF
    ? ['--cpu-prof', `--cpu-prof-dir=${process.env.BENCH_CPU_PROF}`]
    : []
  const child: ChildProcess = spawn(process.execPath, [...profile, ...nodeArgs, script], {
    cwd: root,
    env: { ...process.env, ...env },
    // Logs go where an operator's would (a pipe), at the level the operator runs; drained here.
    stdio: ['ignore', 'pipe', 'pipe'],
  })
  child.stdout?.on('data', env.BENCH_CAPTURE_STDOUT ? keep : () => {})
  child.stderr?.on('data', keep)

  // A crowded machine can take minutes to start a server: BENCH_READY_S (120) is how long to wait.
  const readyS = envNumber('BENCH_READY_S', 120)
  const deadline = Date.now() + readyS * 1000
  let startMs = 0
  while (true) {
    if (child.exitCode !== null) throw new Error(`${script} exited during start:\n${output}`)
    if (Date.now() > deadline) {
      child.kill('SIGKILL')
      throw new Error(`${script} was not ready within ${readyS} s:\n${output}`)
    }
    const ready = await fetch(`${url}${readyPath}`).then(
      (response) => response.ok,
      () => false,
    )
    if (ready) {
      startMs = performance.now() - spawnedAt
      break
    }
    await sleep(20)
  }
  const pid = child.pid!
  const startCpuMs = await cpuMs(pid).catch(() => Number.NaN)
  const stopProcess = async () => {
    if (child.exitCode !== null) return
    const exited = new Promise((resolve) => child.once('exit', resolve))
    child.kill('SIGTERM')
    const timer = setTimeout(() => child.kill('SIGKILL'), 25_000)
    await exited
    clearTimeout(timer)
  }
  return {
    url,
    pid,
    startMs: Math.round(startMs),
    startCpuMs,
    rssMB: () => rssMB(pid),
    output: () => output,
    stopProcess,
    async stop() {
      await stopProcess()
      await cleanup()
    },
  }
}

export interface AppServerOptions {
  /** PostgreSQL; unset runs the embedded database in a fresh DATA_DIR. */
  databaseUrl?: string
  /** A data directory to reuse (second start); a fresh temporary one otherwise. */
  dataDir?: string
  env?: Record<string, string>
  /**
   * The build (apps/api/dist/server.js) with plain node and `npm start`'s flags, as production runs it
   * (the default; built first when older than its sources), or (false) the sources through tsx.
   */
  built?: boolean
}

/** Sources the built server is made from: newer than apps/api/dist/server.js means a stale build. */
const SERVER_SOURCES = ['apps/api/src', 'packages/shared/src', 'scripts/build-server.ts']

let buildChecked = false
/** `npm run build` when apps/api/dist is missing or older than its sources: a bench never measures old code. */
export function ensureBuiltServer(log: (line: string) => void = console.log): void {
  if (buildChecked) return
  const builtAt =
    statSync(path.join(root, 'apps/api/dist/server.js'), { throwIfNoEntry: false })?.mtimeMs ?? 0
  const stale = SERVER_SOURCES.some((source) => newest(source) > builtAt)
  if (builtAt === 0 || stale) {
    log(
      builtAt === 0
        ? 'apps/api/dist is missing: npm run build'
        : 'apps/api/dist is older than its sources: npm run build',
    )
    const build = spawnSync('npm', ['run', 'build'], { cwd: root, stdio: 'ignore' })
    if (build.status !== 0) throw new Error('npm run build failed')
  }
  buildChecked = true
}

/** The app in production mode, behind a trusted proxy hop so X-Forwarded-For names the client. */
export async function startApp(
  options: AppServerOptions = {},
): Promise<RunningProcess & { dataDir: string }> {
  const built = options.built ?? process.env.BENCH_SERVER !== 'sources'
  if (built) ensureBuiltServer()
  const port = await freePort()
  const fresh = !options.dataDir
  const dataDir = options.dataDir ?? (await tempDir())
  const running = await launch(
    built ? 'apps/api/dist/server.js' : 'apps/api/src/server.ts',
    {
      NODE_ENV: 'production',
      JWT_SECRET,
      PORT: String(port),
      HOST: '127.0.0.1',
      APP_ORIGIN: `http://127.0.0.1:${port}`,
      DATA_DIR: dataDir,
      DATABASE_URL: options.databaseUrl ?? '',
      // What an operator runs: request logs at info. BENCH_LOG_LEVEL=warn shows what logging costs.
      LOG_LEVEL: process.env.BENCH_LOG_LEVEL ?? 'info',
      // One proxy hop in front (a load balancer): today's config takes true/false/1/0, and "1" stays
      // valid if it becomes a hop count.
      TRUST_PROXY: '1',
      PRICE_FEED_URL: 'http://127.0.0.1:9/no-feed',
      ...options.env,
    },
    '/readyz',
    port,
    async () => {
      if (fresh) await fs.rm(dataDir, { recursive: true, force: true })
    },
    built ? await productionNodeFlags() : undefined,
  )
  return { ...running, dataDir }
}

/** The bare Fastify baseline: serves each file in `payloads` (name → bytes) at /bare/<name>. */
export async function startBare(payloads: Record<string, string>): Promise<RunningProcess> {
  const port = await freePort()
  const dir = await tempDir()
  const file = path.join(dir, 'payloads.json')
  await fs.writeFile(file, JSON.stringify(payloads))
  return launch(
    'bench/lib/bare-server.ts',
    { BARE_PORT: String(port), BARE_PAYLOADS: file },
    '/bare/ready',
    port,
    () => fs.rm(dir, { recursive: true, force: true }),
  )
}

/** The bare live-stream baseline (bench/lib/bare-stream-server.ts): event streams and a publish, nothing else. */
export async function startBareStream(): Promise<RunningProcess> {
  const port = await freePort()
  return launch(
    'bench/lib/bare-stream-server.ts',
    { BARE_PORT: String(port) },
    '/bare/ready',
    port,
    async () => {},
  )
}
