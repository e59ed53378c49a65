import { execFileSync } from 'node:child_process'
import fs from 'node:fs'
import path from 'node:path'

/**
 * `npm run requirements [-- path/to/REQUIREMENTS.md]`: which requirement IDs no test names in its
 * title. Tests prove IDs by naming them (e.g. 'PRICING-11 shows the yearly saving').
 */

const root = path.resolve(import.meta.dirname, '..')
const file = path.resolve(root, process.argv[2] ?? '../shared/REQUIREMENTS.md')
if (!fs.existsSync(file)) {
  console.error(`No requirements file at ${file}; pass its path: npm run requirements -- <file>`)
  process.exit(1)
}

const ids = [...fs.readFileSync(file, 'utf8').matchAll(/^- ([A-Z]+-\d+):\s*(.*)$/gm)].map((match) => ({
  id: match[1] as string,
  text: match[2] as string,
}))
const testFiles = execFileSync('git', ['ls-files'], { cwd: root, encoding: 'utf8' })
  .split('\n')
  .filter((name) => /\.(test|spec)\.tsx?$/.test(name))
const named = new Set(
  testFiles.flatMap((name) => fs.readFileSync(path.join(root, name), 'utf8').match(/\b[A-Z]+-\d+\b/g) ?? []),
)

const missing = ids.filter(({ id }) => !named.has(id))
console.log(`${ids.length - missing.length} of ${ids.length} requirement IDs are named by a test.`)
for (const { id, text } of missing) console.log(`  ${id}: ${text}`)
