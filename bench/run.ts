import fs from 'node:fs/promises'
import os from 'node:os'
import path from 'node:path'
import pg from 'pg'
import { type BigDataset, bigDataset } from './lib/dataset'
import { printSection, round, type SectionResult, tally } from './lib/figures'
import type { BenchContext, Section } from './lib/section'
import { root } from './lib/util'
import { adminSection } from './sections/admin'
import { bundleSection } from './sections/bundle'
import { deliverySection } from './sections/delivery'
import { jobsSection } from './sections/jobs'
import { pagesSection } from './sections/pages'
import { publicJsonSection } from './sections/public-json'
import { signedInSection } from './sections/signed-in'
import { startSection } from './sections/start'

/**
 * `npm run bench [-- section ...]` (not part of `npm test`): every figure beside its goal, in the
 * terminal and in bench/results/latest.json. See bench/README.md for the sections and knobs.
 * A new figure is a new file in sections/ added to this list.
 */
const SECTIONS: Section[] = [
  bundleSection,
  startSection,
  pagesSection,
  publicJsonSection,
  signedInSection,
  adminSection,
  jobsSection,
  deliverySection,
]

const asked = process.argv.slice(2)
const find = (name: string) => SECTIONS.find((s) => s.name === name || s.aliases?.includes(name))
const unknown = asked.filter((name) => !find(name))
if (unknown.length > 0) {
  console.error(
    `Unknown section(s): ${unknown.join(', ')}. Sections: ${SECTIONS.map((s) => s.name).join(', ')}`,
  )
  process.exit(2)
}
const chosen = asked.length === 0 ? SECTIONS : SECTIONS.filter((s) => asked.some((name) => find(name) === s))

const postgresUrl = process.env.BENCH_DATABASE_URL ?? 'postgres://postgres@127.0.0.1:5432/postgres'
const log = (line: string) => console.log(`   ${line}`)
let built: Promise<BigDataset> | undefined
const context: BenchContext = {
  log,
  postgresUrl,
  dataset: () => {
    built ??= bigDataset(postgresUrl, log)
    return built
  },
}

async function postgresSettings() {
  const client = new pg.Client({ connectionString: postgresUrl })
  try {
    await client.connect()
    const names = ['server_version', 'shared_buffers', 'work_mem', 'effective_cache_size', 'max_connections']
    const settings: Record<string, string> = {}
    for (const name of names) settings[name] = (await client.query(`show ${name}`)).rows[0]?.[name]
    return settings
  } catch {
    return null
  } finally {
    await client.end().catch(() => {})
  }
}

const results: Record<string, SectionResult> = {}
const started = new Date()
for (const section of chosen) {
  console.log(`\n>> ${section.name}: ${section.title}`)
  const t0 = performance.now()
  const at = new Date().toISOString()
  const loadAtStart = round(os.loadavg()[0]!, 1)
  let result: SectionResult
  try {
    const output = await section.run(context)
    result = { title: section.title, at, seconds: 0, ...output }
  } catch (error) {
    const message = error instanceof Error ? (error.stack ?? error.message) : String(error)
    result = { title: section.title, at, seconds: 0, figures: [], error: message }
  }
  result.seconds = Math.round((performance.now() - t0) / 1000)
  result.load = { start: loadAtStart, end: round(os.loadavg()[0]!, 1) }
  results[section.name] = result
  printSection(section.name, result)
  // After every section, so an interrupted run still leaves what it measured.
  await save(null)
}

let dataset: Record<string, unknown> | null = null
if (built) {
  const data = await built.catch(() => null)
  if (data) {
    dataset = { ...data.shape, buildSeconds: data.buildSeconds, reused: data.reused }
    await data.drop()
  }
}

const summary = await save(dataset)
console.log(
  `\n${summary.passed} met, ${summary.failed} missed, ${summary.notMeasured} not measured yet · bench/results/latest.json`,
)
const failedSections = Object.entries(results).filter(([, r]) => r.error)
if (failedSections.length > 0)
  console.log(`sections that failed to run: ${failedSections.map(([n]) => n).join(', ')}`)
process.exit(failedSections.length > 0 ? 1 : 0)

/**
 * latest.json keeps the sections of earlier runs that this run did not repeat (each carries its
 * own `at`), so `npm run bench -- admin` refreshes one section of the full picture.
 */
async function earlierSections(): Promise<Record<string, SectionResult>> {
  try {
    const text = await fs.readFile(path.join(root, 'bench/results/latest.json'), 'utf8')
    return (JSON.parse(text) as { sections?: Record<string, SectionResult> }).sections ?? {}
  } catch {
    return {}
  }
}

async function save(dataset: Record<string, unknown> | null) {
  const merged = { ...(await earlierSections()), ...results }
  // In the order of SECTIONS, whichever run each came from.
  const sections = Object.fromEntries(
    Object.entries(merged).sort(
      ([a], [b]) => SECTIONS.findIndex((s) => s.name === a) - SECTIONS.findIndex((s) => s.name === b),
    ),
  )
  const summary = tally(sections)
  const output = {
    at: started.toISOString(),
    seconds: Math.round((Date.now() - started.getTime()) / 1000),
    machine: {
      cpus: os.cpus().length,
      memoryGB: Math.round(os.totalmem() / 1024 ** 3),
      node: process.version,
      postgres: await postgresSettings(),
    },
    dataset,
    summary,
    sections,
  }
  const dir = path.join(root, 'bench/results')
  await fs.mkdir(dir, { recursive: true })
  await fs.writeFile(path.join(dir, 'latest.json'), `${JSON.stringify(output, null, 2)}\n`)
  return summary
}
