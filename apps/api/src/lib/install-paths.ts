import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'

/**
 * Where this code runs from: the sources (through tsx, in development and tests) or the build
 * (apps/api/dist, bundled, run by plain node in production). A bundle puts every module into the
 * files of one folder, so paths are found from the API package's folder, never counted in `../`.
 */

const here = path.dirname(fileURLToPath(import.meta.url))

function findApiRoot(from: string): string {
  for (let dir = from; ; dir = path.dirname(dir)) {
    try {
      const manifest = JSON.parse(fs.readFileSync(path.join(dir, 'package.json'), 'utf8')) as {
        name?: string
      }
      if (manifest.name === '@edgeclub/api') return dir
    } catch {
      // No package.json here: keep climbing.
    }
    if (path.dirname(dir) === dir) throw new Error(`apps/api/package.json was not found above ${from}`)
  }
}

/** apps/api. */
export const apiRoot = findApiRoot(here)
/** The repository (or the installed copy of it: a container's /app). */
export const repoRoot = path.resolve(apiRoot, '../..')
/** `npm run build`'s server output. */
export const builtServerDir = path.join(apiRoot, 'dist')
/** Whether this module is part of the build rather than the sources. */
export const runningBuilt = !path.relative(builtServerDir, here).startsWith('..')
