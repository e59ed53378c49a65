// Finishes the prerendered islands pages (see app/lib/island.tsx) after both builds:
// - writes the islands loader into the head (see LOADER below) for the script built by
//   vite.islands.config.ts (build/islands.json names it);
// - replaces the app's stylesheet link with the page's own CSS, inline: Tailwind compiled from the
//   classes in the page's HTML and in the islands' sources (the states the islands render later),
//   so the first paint waits for no other request and carries none of the member area's styles.
import fs from 'node:fs/promises'
import path from 'node:path'
import { compile, optimize } from '@tailwindcss/node'
import { Scanner } from '@tailwindcss/oxide'

const web = path.resolve(import.meta.dirname, '..')
const client = path.join(web, 'build/client')
const LOADER_PLACEHOLDER = '<script data-islands-loader=""></script>'

/**
 * The islands loader, inline in the head. The page paints from its HTML and CSS alone; only once
 * all of it is parsed and on screen (the load event, then the next frame) does the loader fetch
 * the islands script, so that script never competes with the first paint. A button pressed inside
 * an island before the script has hydrated it is held (its click, or its form's submission, would
 * otherwise be lost or submit the form natively) and pressed again by the islands script once the
 * islands are live (window.__islandsPending). Links are never held: they work without any script.
 * Should the script fail to load, the buttons are let go again. The script is added as an element,
 * not import()ed: the browser then compiles it off the main thread while it downloads.
 */
const LOADER = (entry) =>
  [
    '(function(){var q=[],w=window;',
    'function h(e){var t=e.target,b=t&&t.closest&&(e.type==="submit"?t:t.closest("button"));',
    'if(b&&b.closest("[data-island]")){e.preventDefault();e.stopImmediatePropagation();q.push(b)}}',
    'addEventListener("click",h,true);addEventListener("submit",h,true);',
    'w.__islandsPending={targets:q,release:function(){',
    'removeEventListener("click",h,true);removeEventListener("submit",h,true)}};',
    'addEventListener("load",function(){requestAnimationFrame(function(){setTimeout(function(){',
    'var s=document.createElement("script");s.type="module";s.onerror=w.__islandsPending.release;',
    `s.src=${JSON.stringify(entry)};document.head.appendChild(s)})})})})()`,
  ].join('')

const STYLESHEET = /<link rel="stylesheet" href="\/assets\/root-[\w-]+\.css"\/>/g

async function* htmlFiles(dir) {
  for (const entry of await fs.readdir(dir, { withFileTypes: true })) {
    const full = path.join(dir, entry.name)
    if (entry.isDirectory()) yield* htmlFiles(full)
    else if (entry.name.endsWith('.html')) yield full
  }
}

const manifest = JSON.parse(await fs.readFile(path.join(web, 'build/islands.json'), 'utf8'))
const sources = await Promise.all(
  manifest.sources.map(async (file) => ({
    content: await fs.readFile(path.join(web, file), 'utf8'),
    extension: path.extname(file).slice(1),
  })),
)

const stylesheet = path.join(web, 'app/app.css')
const compiler = await compile(await fs.readFile(stylesheet, 'utf8'), {
  base: path.dirname(stylesheet),
  from: stylesheet,
  onDependency: () => {},
})

let pages = 0
for await (const file of htmlFiles(client)) {
  const html = await fs.readFile(file, 'utf8')
  if (!html.includes('data-islands-loader')) continue
  const relative = path.relative(client, file)
  if (!html.includes(LOADER_PLACEHOLDER))
    throw new Error(`${relative}: the islands loader placeholder changed`)
  const links = html.match(STYLESHEET) ?? []
  if (links.length !== 1)
    throw new Error(`${relative}: expected one app stylesheet link, found ${links.length}`)
  const candidates = new Scanner({}).scanFiles([...sources, { content: html, extension: 'html' }])
  const css = optimize(compiler.build(candidates), { minify: true }).code.trim()
  const finished = html
    .replace(LOADER_PLACEHOLDER, () => `<script>${LOADER(manifest.entry)}</script>`)
    .replace(links[0], () => `<style>${css}</style>`)
  await fs.writeFile(file, finished)
  pages += 1
  console.log(`${relative}: islands loader written, ${(css.length / 1024).toFixed(1)} KiB of CSS inline`)
}
if (pages === 0) throw new Error('no islands page found in the build')
