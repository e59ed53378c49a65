import fs from 'node:fs/promises'
import path from 'node:path'
import { openDatabase } from '../db/database'
import { migrateToLatest } from '../db/migrate'
import { pgliteTemplatePath } from '../db/pglite-template'
import { installJobSchema } from '../queue/job-runner'
import { QUEUES } from '../workers'

/**
 * Builds the embedded database's template (db/pglite-template.ts): the migrations, the job queue's
 * schema and its queues in an empty cluster, unless it exists for the current schema. Run by `npm run build` (for the
 * sources, and through cli/pglite-template.ts for the built server); the server itself only copies
 * the result. Returns the template's directory.
 */
export async function buildPgliteTemplate(): Promise<string> {
  const target = pgliteTemplatePath()
  try {
    await fs.access(path.join(target, 'PG_VERSION'))
    return target
  } catch {}
  // Built beside the target and renamed into place: a reader never sees half a template.
  await fs.mkdir(path.dirname(target), { recursive: true })
  const work = await fs.mkdtemp(`${target}.tmp-`)
  const database = await openDatabase({ pgliteDir: work, template: false })
  try {
    await migrateToLatest(database.db)
    const quiet = { info() {}, warn() {}, error() {}, debug() {}, child: () => quiet } as never
    await installJobSchema(database, quiet, QUEUES)
  } finally {
    await database.close()
  }
  await fs.rename(path.join(work, 'pglite'), target).catch(async (error: NodeJS.ErrnoException) => {
    // Another process built it meanwhile: theirs is as good.
    if (error.code !== 'ENOTEMPTY' && error.code !== 'EEXIST') throw error
  })
  await fs.rm(work, { recursive: true, force: true })
  return target
}
