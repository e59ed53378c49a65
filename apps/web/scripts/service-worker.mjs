// Writes the dashboard's service worker (service-worker/sw.js) to build/client/sw.js with this build's
// version and the app shell's files: the hashed scripts and styles of the dashboard and its tabs.
import { createHash } from 'node:crypto'
import fs from 'node:fs'
import path from 'node:path'

const web = path.resolve(import.meta.dirname, '..')
const client = path.join(web, 'build/client')
const page = ['__spa-fallback.html', 'index.html'].map((name) => path.join(client, name)).find(fs.existsSync)
if (!page) throw new Error('service worker: the build has no SPA fallback page')
const html = fs.readFileSync(page, 'utf8')
// Every script and style the page names: those it loads, and those its boot script lists for the
// dashboard's route and each tab, so that every tab opens offline once the worker is installed.
const shell = [
  ...new Set([...html.matchAll(/"(\/assets\/[^"]+\.(?:js|css))"/g)].map((match) => match[1])),
].sort()
if (!shell.some((file) => file.endsWith('.js')))
  throw new Error('service worker: no scripts found in the SPA fallback page')
const template = fs.readFileSync(path.join(web, 'service-worker/sw.js'), 'utf8')
const version = createHash('sha256').update(template).update(html).digest('hex').slice(0, 16)
const worker = template
  .replace("'__EDGECLUB_VERSION__'", JSON.stringify(version))
  .replace("JSON.parse('__EDGECLUB_SHELL__')", JSON.stringify(shell))
fs.writeFileSync(path.join(client, 'sw.js'), worker)
console.log(`service worker ${version}: ${shell.length} shell files`)
