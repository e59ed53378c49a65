import fs from 'node:fs/promises'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { root } from './util'

/** What the landing page loads before it is interactive: its modulepreloads, scripts and styles, gzipped. */
export async function benchBundle() {
  const client = path.join(root, 'apps/web/build/client')
  const html = await fs.readFile(path.join(client, 'index.html'), 'utf8')
  const refs = new Set<string>()
  for (const match of html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)) refs.add(match[1]!)
  for (const match of html.matchAll(/<script[^>]+src="([^"]+)"/g)) refs.add(match[1]!)
  for (const match of html.matchAll(/import\("?([^")]+\.js)"?\)/g)) refs.add(match[1]!)
  for (const match of html.matchAll(/import \* as \w+ from "([^"]+)"/g)) refs.add(match[1]!)
  const css = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((match) => match[1]!)
  const size = async (ref: string) => gzipSync(await fs.readFile(path.join(client, ref))).length
  let js = 0
  for (const ref of refs) js += await size(ref)
  let styles = 0
  for (const ref of css) styles += await size(ref)
  return {
    landingJsGzipKB: Math.round(js / 102.4) / 10,
    landingCssGzipKB: Math.round(styles / 102.4) / 10,
    files: refs.size,
    budget: 'JS ≤ 130 KB gzip',
  }
}
