import { spawnSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/** Builds the web app when it is missing or older than its sources (`npm start` on a fresh clone). */

const root = path.resolve(import.meta.dirname, '..')
const built = path.join(root, 'apps/web/build/client/index.html')
const sources = [
  'apps/web/app',
  'apps/web/public',
  'packages/shared/src',
  'apps/web/vite.config.ts',
  'apps/web/react-router.config.ts',
  'apps/web/vite.islands.config.ts',
  'apps/web/scripts',
]

function newest(target: string): number {
  const full = path.join(root, target)
  if (!fs.existsSync(full)) return 0
  const stat = fs.statSync(full)
  if (!stat.isDirectory()) return stat.mtimeMs
  let latest = 0
  for (const entry of fs.readdirSync(full)) latest = Math.max(latest, newest(path.join(target, entry)))
  return latest
}

export function buildWebIfNeeded(): void {
  const builtAt = fs.existsSync(built) ? fs.statSync(built).mtimeMs : 0
  if (builtAt > 0 && sources.every((source) => newest(source) <= builtAt)) return
  console.log(
    builtAt ? 'Web sources changed: rebuilding the web app...' : 'Building the web app (first start)...',
  )
  const result = spawnSync('npm', ['run', 'build', '-w', 'apps/web'], { cwd: root, stdio: 'inherit' })
  if (result.status !== 0) {
    console.error('The web app failed to build.')
    process.exit(result.status ?? 1)
  }
}
