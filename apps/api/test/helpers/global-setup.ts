import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import type { TestProject } from 'vitest/node'
import { openDatabase } from '../../src/db/database'
import { migrateToLatest } from '../../src/db/migrate'

declare module 'vitest' {
  export interface ProvidedContext {
    pgliteSnapshot: string
  }
}

/**
 * Creating an embedded database runs initdb (about 4 s). Do it once per run, migrated, and let
 * every test database start from that snapshot instead.
 */
export default async function setup(project: TestProject) {
  const database = await openDatabase({ pgliteDir: null })
  await migrateToLatest(database.db)
  const file = path.join(await fs.mkdtemp(path.join(os.tmpdir(), 'edgeclub-pglite-')), 'snapshot.tar')
  const dump = await database.snapshot!()
  await fs.writeFile(file, Buffer.from(await dump.arrayBuffer()))
  await database.close()
  project.provide('pgliteSnapshot', file)
  return async () => {
    await fs.rm(path.dirname(file), { recursive: true, force: true })
  }
}
