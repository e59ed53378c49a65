import { type ChildProcess, spawn, spawnSync } from 'node:child_process'
import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { afterAll, beforeAll, describe, expect, it } from 'vitest'
import { freePort } from './helpers/server-process'

/**
 * The Dockerfile without a container engine (none runs on these machines): its production stages'
 * instructions are read from the file and carried out in a scratch directory standing for /app — the
 * production install exactly as the file runs it, the build output copied as the file copies it —
 * then `npm run migrate` and the file's CMD run with its ENV, and its HEALTHCHECK must pass. The build
 * stage is this checkout after `npm run build` (which `npm test` runs first).
 */

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../..')

interface Stage {
  name: string
  instructions: { op: string; args: string }[]
}

function parseDockerfile(text: string): Stage[] {
  const lines = text
    .replace(/\\\n/g, ' ')
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line && !line.startsWith('#'))
  const stages: Stage[] = []
  for (const line of lines) {
    const [, op = '', args = ''] = /^(\w+)\s+(.*)$/.exec(line) ?? []
    if (op === 'FROM') stages.push({ name: /\bAS\s+(\S+)/i.exec(args)?.[1] ?? '', instructions: [] })
    else stages.at(-1)?.instructions.push({ op, args: args.replace(/\s+/g, ' ') })
  }
  return stages
}

/** COPY [--from=stage] <source>... <destination>, relative to WORKDIR /app. */
async function copy(args: string, context: { scratch: string }) {
  const parts = args.split(' ')
  const from = parts[0]?.startsWith('--from=') ? parts.shift()!.slice(7) : undefined
  const destination = parts.pop()!
  for (const source of parts) {
    // The build stage's /app is this checkout after `npm run build`; production-deps' is the scratch dir.
    const fromPath =
      from === 'production-deps'
        ? path.join(context.scratch, source.replace(/^\/app\/?/, ''))
        : path.join(root, source.replace(/^\/app\/?/, ''))
    const toPath = destination.endsWith('/')
      ? path.join(context.scratch, destination, path.basename(source))
      : path.join(context.scratch, destination)
    if (path.resolve(fromPath) === path.resolve(toPath)) continue
    await fs.mkdir(path.dirname(toPath), { recursive: true })
    await fs.cp(fromPath, toPath, { recursive: true })
  }
}

async function stop(child: ChildProcess): Promise<void> {
  if (child.exitCode !== null || child.signalCode !== null) return
  const exited = new Promise((resolve) => child.once('exit', resolve))
  if (child.spawnargs[0] === 'npm') process.kill(-child.pid!, 'SIGTERM')
  else child.kill('SIGTERM')
  await exited
}

describe.skipIf(process.env.TEST_DB === 'postgres')(
  'the Dockerfile, carried out without a container engine',
  () => {
    let scratch: string
    let server: ChildProcess | undefined

    beforeAll(async () => {
      scratch = await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-container-'))
    })
    afterAll(async () => {
      if (server) await stop(server)
      await fs.rm(scratch, { recursive: true, force: true })
    })

    it('a production install plus the build output starts with plain node and passes its health check', async () => {
      for (const built of ['apps/api/dist/server.js', 'apps/web/build/client/index.html'])
        await fs.access(path.join(root, built)).catch(() => {
          throw new Error(`${built} is missing: run \`npm run build\` first`)
        })
      const stages = parseDockerfile(await fs.readFile(path.join(root, 'Dockerfile'), 'utf8'))
      const deps = stages.find((stage) => stage.name === 'production-deps')
      const production = stages.find((stage) => stage.name === 'production')
      expect(deps && production && stages.at(-1) === production).toBe(true)
      const app = path.join(scratch, 'app')
      await fs.mkdir(app)
      const context = { scratch: app }

      for (const { op, args } of deps!.instructions) {
        if (op === 'WORKDIR') expect(args).toBe('/app')
        else if (op === 'COPY') await copy(args, context)
        else if (op === 'RUN') {
          // As written, from the npm cache this machine already has.
          const run = spawnSync('sh', ['-c', args], {
            cwd: app,
            env: { ...process.env, npm_config_prefer_offline: 'true', NODE_ENV: '' },
            encoding: 'utf8',
            timeout: 300_000,
          })
          expect(run.status, `${args}\n${run.stdout}${run.stderr}`).toBe(0)
          expect(`${run.stdout}${run.stderr}`).not.toContain('EBADENGINE')
        } else throw new Error(`the test does not know ${op} in production-deps`)
      }
      // Production dependencies only: no TypeScript runner, no bundler, no web tooling.
      for (const devOnly of ['tsx', 'esbuild', 'vite', 'vitest', 'typescript'])
        await expect(fs.access(path.join(app, 'node_modules', devOnly))).rejects.toThrow()

      const env: Record<string, string> = {}
      let user = 'root'
      let healthcheck = ''
      let command: string[] = []
      for (const { op, args } of production!.instructions) {
        if (op === 'ENV')
          for (const [, key = '', value = ''] of args.matchAll(/(\w+)=(\S+)/g)) env[key] = value
        else if (op === 'WORKDIR') expect(args).toBe('/app')
        else if (op === 'COPY') await copy(args, context)
        else if (op === 'RUN') expect(args).toMatch(/^mkdir -p \/data && chown node:node \/data$/)
        else if (op === 'USER') user = args
        else if (op === 'HEALTHCHECK') healthcheck = /\bCMD (.*)$/.exec(args)?.[1] ?? ''
        else if (op === 'CMD') command = JSON.parse(args) as string[]
        else if (!['VOLUME', 'EXPOSE'].includes(op))
          throw new Error(`the test does not know ${op} in production`)
      }
      expect(user).not.toMatch(/^(root|0)$/)
      expect(healthcheck).toContain('/readyz')
      expect(env.NODE_ENV).toBe('production')
      expect(command).toEqual(['node', 'apps/api/dist/server.js'])

      const port = await freePort()
      const runEnv = {
        PATH: process.env.PATH ?? '',
        HOME: os.homedir(),
        ...env,
        // What `docker run` would be given, and a port and data directory of this test's own.
        JWT_SECRET: 'container-test-secret-'.padEnd(48, 'x'),
        PORT: String(port),
        HOST: '127.0.0.1',
        DATA_DIR: path.join(scratch, 'data'),
        PRICE_FEED_URL: 'http://127.0.0.1:9/unreachable',
        LOG_LEVEL: 'warn',
      }
      // A deploy pipeline's migrate step, in the image.
      const migrate = spawnSync('npm', ['run', 'migrate'], {
        cwd: app,
        env: runEnv,
        encoding: 'utf8',
        timeout: 120_000,
      })
      expect(migrate.status, `${migrate.stdout}${migrate.stderr}`).toBe(0)
      expect(migrate.stdout).toContain('database is up to date')

      let output = ''
      server = spawn(process.execPath, command.slice(1), {
        cwd: app,
        env: runEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
      })
      server.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString()
      })
      server.stderr?.on('data', (chunk: Buffer) => {
        output += chunk.toString()
      })
      const healthy = () =>
        spawnSync('sh', ['-c', healthcheck], { cwd: app, env: runEnv, timeout: 5_000 }).status === 0
      const deadline = Date.now() + 60_000
      while (!healthy()) {
        if (server.exitCode !== null || Date.now() > deadline) throw new Error(`not healthy:\n${output}`)
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
      const page = await fetch(`http://127.0.0.1:${port}/`)
      expect(page.status).toBe(200)
      expect(await page.text()).toContain('<html')
      const plans = await fetch(`http://127.0.0.1:${port}/discord/api/subscriptions/plans`)
      expect(((await plans.json()) as { data: unknown[] }).data).toHaveLength(4)
      await stop(server)

      // The README's way, in the same install: `NODE_ENV=production npm start` runs the build, never builds.
      // In a process group of its own, signalled as a whole as a terminal or systemd does (npm does
      // not pass SIGTERM on through its shell).
      server = spawn('npm', ['start'], {
        cwd: app,
        env: runEnv,
        stdio: ['ignore', 'pipe', 'pipe'],
        detached: true,
      })
      server.stdout?.on('data', (chunk: Buffer) => {
        output += chunk.toString()
      })
      const startDeadline = Date.now() + 60_000
      while (!healthy()) {
        if (server.exitCode !== null || Date.now() > startDeadline)
          throw new Error(`npm start failed:\n${output}`)
        await new Promise((resolve) => setTimeout(resolve, 250))
      }
      expect(output).not.toContain('Building')
      await stop(server)
    }, 400_000)
  },
)
