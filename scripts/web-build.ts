import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/**
 * Builds the web app when it is missing or older than its sources (`npm start` on a fresh clone), and
 * always for `npm run build`. One build at a time per checkout: instances started together on one
 * checkout would otherwise all write into apps/web/build at once; the others wait for the one that
 * builds, then find the build fresh.
 */

const root = path.resolve(import.meta.dirname, '..')
const built = path.join(root, 'apps/web/build/client/index.html')
const lockDir = path.join(root, 'apps/web/.build-lock')
const sources = [
  'apps/web/app',
  'apps/web/public',
  'packages/shared/src',
  'apps/web/vite.config.ts',
  'apps/web/react-router.config.ts',
  'apps/web/vite.islands.config.ts',
  'apps/web/scripts',
  'apps/web/service-worker',
]

/** The latest modification time of a file, or of any file under a folder (a path from the repository root). */
export function newest(target: string): number {
  const full = path.join(root, target)
  if (!fs.existsSync(full)) return 0
  const stat = fs.statSync(full)
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = 0
  for (const entry of fs.readdirSync(full)) latest = Math.max(latest, newest(path.join(target, entry)))
  return latest
}

function builtAt(): number {
  return fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0
}

function isFresh(): boolean {
  const at = builtAt()
  return at > 0 && sources.every((source) => newest(source) <= at)
}

function sleepSync(ms: number): void {
  Atomics.wait(new Int32Array(new SharedArrayBuffer(4)), 0, 0, ms)
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0)
    return true
  } catch (error) {
    return (error as NodeJS.ErrnoException).code === 'EPERM'
  }
}

/**
 * The lock is a directory (mkdir is atomic) holding the builder's pid. A lock whose process is gone
 * (a build killed mid-way) is taken over; a live one is waited for.
 */
function acquireLock(): void {
  let announced = false
  const deadline = Date.now() + 15 * 60_000
  for (;;) {
    try {
      fs.mkdirSync(lockDir)
      fs.writeFileSync(path.join(lockDir, 'pid'), String(process.pid))
      return
    } catch (error) {
      if ((error as NodeJS.ErrnoException).code !== 'EEXIST') throw error
    }
    let owner = Number.NaN
    try {
      owner = Number(fs.readFileSync(path.join(lockDir, 'pid'), 'utf8'))
    } catch {
      // Created a moment ago, pid not written yet: wait for it like for any other builder.
    }
    if (Number.isInteger(owner) && owner > 0 && !alive(owner)) {
      fs.rmSync(lockDir, { recursive: true, force: true })
      continue
    }
    if (Date.now() > deadline) throw new Error(`another web build has held ${lockDir} for 15 minutes`)
    if (!announced) console.log('Another process is building the web app: waiting for it...')
    announced = true
    sleepSync(250)
  }
}

function releaseLock(): void {
  fs.rmSync(lockDir, { recursive: true, force: true })
}

/** Runs the build while holding the lock; exits the process (lock released) if the build fails. */
function buildLocked(): void {
  const result = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' })
  if (result.status === 0) return
  releaseLock()
  console.error('The web app failed to build.')
  process.exit(result.status ?? 1)
}

/** `npm start` in development: builds only when the build is missing or stale. */
export function buildWebIfNeeded(): void {
  if (isFresh()) return
  acquireLock()
  try {
    // Another instance may have built it while this one waited.
    if (isFresh()) return
    console.log(
      builtAt() ? 'Web sources changed: rebuilding the web app...' : 'Building the web app (first start)...',
    )
    buildLocked()
  } finally {
    releaseLock()
  }
}

/** `npm run build`: always builds, still one at a time. */
export function buildWeb(): void {
  acquireLock()
  try {
    buildLocked()
  } finally {
    releaseLock()
  }
}
