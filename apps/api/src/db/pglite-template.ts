import { createHash } from 'node:crypto'
import { constants } from 'node:fs'
import fs from 'node:fs/promises'
import { createRequire } from 'node:module'
import path from 'node:path'
import { builtServerDir, repoRoot, runningBuilt } from '../lib/install-paths'
import { MIGRATIONS_FINGERPRINT } from './migrate'

/**
 * A new embedded database starts from a template instead of running initdb (about 5 s of CPU and a
 * second PGlite instance in memory): an empty cluster with this app's migrations, the job queue's
 * schema and queues, and no data (no plans, no accounts), and no template0. It is built once per machine and per schema (PGlite's
 * version, the migrations' names and code), by `npm run build` (cli/build-pglite-template.ts). The sources'
 * template is kept under node_modules/.cache; the built server's is part of the build (apps/api/dist),
 * because a bundle's code, and so its fingerprint, differs from the sources' and a production
 * install has no cache. Without it a first start runs initdb as before.
 */

const require = createRequire(import.meta.url)

function pgliteVersion(): string {
  const entry = require.resolve('@electric-sql/pglite')
  // …/node_modules/@electric-sql/pglite/dist/index.cjs → its package.json
  const manifest = path.join(path.dirname(entry), '..', 'package.json')
  return (require(manifest) as { version: string }).version
}

/** The template's directory: its name changes with PGlite's version and with the migrations. */
export function pgliteTemplatePath(): string {
  const key = createHash('sha256')
    .update(
      JSON.stringify({
        pglite: pgliteVersion(),
        migrations: MIGRATIONS_FINGERPRINT,
        extensions: ['pg_trgm'],
        // 2: the job queues are made in the template too (a start only checks their policies).
        // 3: without template0 (cli/build-pglite-template.ts).
        format: 3,
      }),
    )
    .digest('hex')
    .slice(0, 16)
  const parent = runningBuilt ? builtServerDir : path.join(repoRoot, 'node_modules', '.cache', 'edgeclub')
  return path.join(parent, `pglite-template-${key}`)
}

/**
 * Copies the template into a new data directory (a plain file copy: far quicker than initdb or
 * unpacking a dump); false when no template was built for this schema.
 */
export async function copyPgliteTemplate(dataDir: string): Promise<boolean> {
  const template = pgliteTemplatePath()
  try {
    await fs.access(path.join(template, 'PG_VERSION'))
  } catch {
    return false
  }
  await copyTree(template, dataDir)
  return true
}

/**
 * A directory copied file by file, many at a time (fs.cp copies one after another: over a thousand
 * small files, that is most of a start); copy-on-write clones where the file system has them.
 */
async function copyTree(from: string, to: string): Promise<void> {
  const entries = await fs.readdir(from, { recursive: true, withFileTypes: true })
  await fs.mkdir(to, { recursive: true })
  const relative = (entry: { parentPath: string; name: string }) =>
    path.relative(from, path.join(entry.parentPath, entry.name))
  for (const entry of entries)
    if (entry.isDirectory()) await fs.mkdir(path.join(to, relative(entry)), { recursive: true })
  const files = entries.filter((entry) => entry.isFile()).map(relative)
  let next = 0
  await Promise.all(
    Array.from({ length: 16 }, async () => {
      for (let index = next++; index < files.length; index = next++) {
        const file = files[index]!
        await fs.copyFile(path.join(from, file), path.join(to, file), constants.COPYFILE_FICLONE)
      }
    }),
  )
}
