import { spawnSync } from 'node:child_process'
import fs from 'node:fs/promises'
import path from 'node:path'
import { buildPgliteTemplate } from '../apps/api/src/cli/build-pglite-template'
import { buildServer, serverDist } from './build-server'
import { buildWeb } from './web-build'

/**
 * `npm run build`: everything production runs (decision 018) — the web app (apps/web/build), the
 * server compiled to JavaScript (apps/api/dist) with the built server's template of a new embedded
 * database — and the sources' own template for `npm start` in development and the tests.
 */

const started = performance.now()
buildWeb()

const { files } = await buildServer()
console.log(
  `server: ${files.filter((file) => file.endsWith('.js')).length} files in ${path.relative(process.cwd(), serverDist)}`,
)

// The built template is made by the built code: its migration fingerprint is the bundle's own.
const template = spawnSync(process.execPath, [path.join(serverDist, 'pglite-template.js')], {
  stdio: ['ignore', 'pipe', 'inherit'],
  encoding: 'utf8',
})
if (template.status !== 0) {
  console.error('Building the embedded database template failed.')
  process.exit(template.status ?? 1)
}
const builtTemplate = template.stdout.trim().replace(/^embedded database template: /, '')
console.log(`embedded database template (built server): ${builtTemplate}`)
for (const entry of await fs.readdir(serverDist))
  if (entry.startsWith('pglite-template-') && path.join(serverDist, entry) !== builtTemplate)
    await fs.rm(path.join(serverDist, entry), { recursive: true, force: true })

console.log(`embedded database template (sources): ${await buildPgliteTemplate()}`)
console.log(`built in ${((performance.now() - started) / 1000).toFixed(1)} s`)
