import fs from 'node:fs/promises'
import path from 'node:path'
import { gzipSync } from 'node:zlib'
import { atMost, figure, round } from '../lib/figures'
import type { Section } from '../lib/section'
import { root } from '../lib/util'
import { buildWeb } from './pages'

/**
 * What the landing page loads before it is interactive: its modulepreloads, scripts and styles
 * (stylesheets and inline <style>), gzipped.
 */
export const bundleSection: Section = {
  name: 'bundle',
  title: 'landing page JS and CSS from the build (gzip)',
  async run() {
    buildWeb()
    const client = path.join(root, 'apps/web/build/client')
    const html = await fs.readFile(path.join(client, 'index.html'), 'utf8')
    const refs = new Set<string>()
    for (const match of html.matchAll(/<link rel="modulepreload" href="([^"]+)"/g)) refs.add(match[1]!)
    for (const match of html.matchAll(/<script[^>]+src="([^"]+)"/g)) refs.add(match[1]!)
    for (const match of html.matchAll(/import\("?([^")]+\.js)"?\)/g)) refs.add(match[1]!)
    for (const match of html.matchAll(/import \* as \w+ from "([^"]+)"/g)) refs.add(match[1]!)
    // A script an inline loader adds once the page has painted (the public pages' islands).
    for (const script of html.matchAll(/<script>([\s\S]*?)<\/script>/g))
      for (const match of script[1]!.matchAll(/"(\/assets\/[^"]+\.js)"/g)) refs.add(match[1]!)
    const css = [...html.matchAll(/<link rel="stylesheet" href="([^"]+)"/g)].map((match) => match[1]!)
    const size = async (ref: string) => gzipSync(await fs.readFile(path.join(client, ref))).length
    let js = 0
    for (const ref of refs) js += await size(ref)
    let styles = 0
    for (const ref of css) styles += await size(ref)
    for (const match of html.matchAll(/<style[^>]*>([\s\S]*?)<\/style>/g))
      styles += gzipSync(match[1]!).length
    const html_ = gzipSync(html).length
    return {
      figures: [
        figure('bundle.landingJsGzipKB', '/ JS before interactive (gzip)', round(js / 1024, 1), {
          unit: 'KiB',
          goal: atMost(130),
        }),
        figure('bundle.landingCssGzipKB', '/ CSS, files and inline (gzip)', round(styles / 1024, 1), {
          unit: 'KiB',
        }),
        figure('bundle.landingHtmlGzipKB', '/ HTML (gzip)', round(html_ / 1024, 1), { unit: 'KiB' }),
        figure('bundle.landingJsFiles', '/ JS files', refs.size),
      ],
    }
  },
}
