import fs from 'node:fs'
import path from 'node:path'
import { pathToFileURL } from 'node:url'

/**
 * `npm start`, `npm run migrate`, `npm run backup`, `npm run restore`, `npm run admin`: plain
 * JavaScript, so it runs where only production dependencies are installed (decision 018).
 *
 * - NODE_ENV=production: the build (apps/api/dist/<command>.js) with plain node. It never builds: a
 *   missing build is an error that says to run `npm run build`.
 * - Otherwise: the sources through tsx, as in development (`npm start` builds the web app when it is
 *   stale); where tsx is not installed (`npm ci --omit=dev`), the build.
 */

const root = path.resolve(import.meta.dirname, '..')
const SOURCES = {
  start: 'scripts/start.ts',
  migrate: 'apps/api/src/cli/migrate.ts',
  backup: 'apps/api/src/cli/backup.ts',
  restore: 'apps/api/src/cli/restore.ts',
  admin: 'apps/api/src/cli/admin.ts',
}
const BUILT = { start: 'server', migrate: 'migrate', backup: 'backup', restore: 'restore', admin: 'admin' }

const command = process.argv[2]
if (!command || !(command in SOURCES)) {
  console.error(`Usage: node scripts/run.mjs <${Object.keys(SOURCES).join('|')}> [arguments]`)
  process.exit(2)
}
// The command's own arguments, as if it had been started directly.
process.argv.splice(2, 1)

const built = path.join(root, 'apps/api/dist', `${BUILT[command]}.js`)
const runBuilt = async () => {
  if (!fs.existsSync(built)) {
    console.error(
      `${path.relative(root, built)} is missing: run \`npm run build\` first (production never builds).`,
    )
    process.exit(1)
  }
  await import(pathToFileURL(built).href)
}

if (process.env.NODE_ENV === 'production') {
  await runBuilt()
} else {
  let register
  try {
    ;({ register } = await import('tsx/esm/api'))
  } catch {
    register = undefined
  }
  if (register) {
    register()
    await import(pathToFileURL(path.join(root, SOURCES[command])).href)
  } else {
    await runBuilt()
  }
}
