// Puts the dashboard page's boot script (app/lib/dashboard-boot.ts; written by the client build to
// build/dashboard-boot.json) into the SPA fallback page, first in its head: it runs as the page is
// parsed, before the stylesheet and the app's scripts have arrived. The server allows it by its hash
// like React Router's own inline scripts (apps/api/src/plugins/web.ts).
import fs from 'node:fs/promises'
import path from 'node:path'

const web = path.resolve(import.meta.dirname, '..')
const page = path.join(web, 'build/client/__spa-fallback.html')
const { script } = JSON.parse(await fs.readFile(path.join(web, 'build/dashboard-boot.json'), 'utf8'))
const html = await fs.readFile(page, 'utf8')
const anchor = '<link rel="modulepreload"'
if (!html.includes(anchor)) throw new Error('dashboard boot: the SPA fallback page preloads no module')
if (script.includes('</')) throw new Error('dashboard boot: the script would end its element early')
await fs.writeFile(
  page,
  html.replace(anchor, () => `<script>${script}</script>${anchor}`),
)
console.log(`dashboard boot script written (${script.length} bytes)`)
