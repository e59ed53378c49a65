import fs from 'node:fs/promises'
import path from 'node:path'
import { benchBundle } from './bundle'
import { benchHttp } from './http'
import { benchLighthouse } from './lighthouse'
import { benchLists } from './lists'
import { root } from './util'

/**
 * `npm run bench` (not part of `npm test`): throughput of cached public endpoints against a bare
 * route, the landing page's JS and CSS, Lighthouse mobile scores, and the admin lists at scale.
 * `BENCH_DATABASE_URL` names the PostgreSQL server for the list benchmark. Results go to bench/results/.
 */
const only = process.argv.slice(2)
const want = (name: string) => only.length === 0 || only.includes(name)
const results: Record<string, unknown> = { at: new Date().toISOString() }

if (want('bundle')) {
  results.bundle = await benchBundle()
  console.log('bundle', results.bundle)
}
if (want('http')) {
  results.http = await benchHttp()
  console.log('http', JSON.stringify(results.http, null, 2))
}
if (want('lighthouse')) {
  results.lighthouse = await benchLighthouse()
  console.log('lighthouse', results.lighthouse)
}
if (want('lists')) {
  results.lists = await benchLists(
    process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres',
  )
  console.log('lists', JSON.stringify(results.lists, null, 2))
}

const dir = path.join(root, 'bench/results')
await fs.mkdir(dir, { recursive: true })
await fs.writeFile(path.join(dir, 'latest.json'), `${JSON.stringify(results, null, 2)}\n`)
console.log(`\nSaved to bench/results/latest.json`)
process.exit(0)
