import fs from 'node:fs/promises'
import path from 'node:path'
import { sql } from 'kysely'
import { type Database, openDatabase } from '../db/database'
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
    await dropTemplateZero(database.db)
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

/**
 * template0 is a pristine copy of the catalog kept only for `CREATE DATABASE … TEMPLATE template0`,
 * which nothing runs against the embedded database (it is one database, `postgres`; a new database,
 * if one were ever made, comes from template1 as usual). Without it every new data directory is 298
 * files and 7 MB smaller, and the copy of those files is most of a first start (decision 018).
 */
async function dropTemplateZero(db: Database['db']): Promise<void> {
  await sql`update pg_database set datistemplate = false where datname = 'template0'`.execute(db)
  await sql`drop database if exists template0`.execute(db)
  await sql`checkpoint`.execute(db)
}
