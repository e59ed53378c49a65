import fs from 'node:fs'
import path from 'node:path'
import { importSpecifiers } from './check-feature-imports'

/**
 * Part of `npm run lint`: the API's layering rules, read from the source of apps/api/src.
 *
 * 1. **One writer of access.** Only modules/subscriptions/ writes the `subscriptions` and
 *    `subscription_periods` tables (Kysely `insertInto`/`updateTable`/`deleteFrom`/`mergeInto`, or
 *    SQL text); migrations, which define the schema and its triggers, are exempt.
 * 2. **Repositories are private.** A module (modules/<name>/) never imports another module's
 *    `*-repository`: it asks for the narrow operations it needs (a `Pick<>` of that module's service).
 * 3. **The queue is below the modules.** Nothing in queue/ imports from modules/.
 *
 * Run as `tsx scripts/check-api-layers.ts [apps/api/src]`.
 */

export interface LayerProblem {
  rule: 'access-writer' | 'private-repository' | 'queue-below-modules'
  /** Relative to the source folder. */
  file: string
  line: number
  detail: string
}

const ACCESS_TABLES = ['subscriptions', 'subscription_periods']
const KYSELY_WRITE =
  /\b(insertInto|updateTable|deleteFrom|mergeInto|replaceInto)\(\s*(['"`])([a-z_]+)(?:\s+as\s+\w+)?\2/g
const SQL_WRITE =
  /\b(insert\s+into|update|delete\s+from|merge\s+into|truncate(?:\s+table)?)\s+("?)([a-z_]+)\2(?=[\s(,;`'"]|$)/gi

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full)
    return /\.tsx?$/.test(entry.name) && !/\.test\.tsx?$/.test(entry.name) ? [full] : []
  })
}

const lineOf = (source: string, index: number) => source.slice(0, index).split('\n').length

/** Writes to the access tables in one file's text: Kysely calls and SQL statements. */
export function accessWrites(source: string): { line: number; detail: string }[] {
  const found: { line: number; detail: string }[] = []
  for (const match of source.matchAll(KYSELY_WRITE))
    if (ACCESS_TABLES.includes(match[3]!))
      found.push({ line: lineOf(source, match.index), detail: `${match[1]}('${match[3]}')` })
  for (const match of source.matchAll(SQL_WRITE))
    if (ACCESS_TABLES.includes(match[3]!.toLowerCase()))
      found.push({ line: lineOf(source, match.index), detail: `${match[1]} ${match[3]}` })
  return found
}

/** modules/<name>/… → name; anything else → null. */
function moduleOf(relative: string): string | null {
  const parts = relative.split(path.sep)
  return parts[0] === 'modules' && parts.length > 2 ? parts[1]! : null
}

export function findLayerProblems(sourceRoot: string): LayerProblem[] {
  const root = path.resolve(sourceRoot)
  const problems: LayerProblem[] = []
  for (const file of sourceFiles(root)) {
    const relative = path.relative(root, file)
    const source = fs.readFileSync(file, 'utf8')
    const own = moduleOf(relative)
    const inMigrations = relative.startsWith(`db${path.sep}migrations${path.sep}`)

    if (own !== 'subscriptions' && !inMigrations)
      for (const write of accessWrites(source))
        problems.push({
          rule: 'access-writer',
          file: relative,
          line: write.line,
          detail: `${write.detail}: access is written only by modules/subscriptions (its access service)`,
        })

    for (const { specifier, line } of importSpecifiers(source)) {
      if (!specifier.startsWith('.')) continue
      const target = path.relative(root, path.resolve(path.dirname(file), specifier))
      const targetModule = moduleOf(target)
      if (own && targetModule && targetModule !== own && /-repository$/.test(target))
        problems.push({
          rule: 'private-repository',
          file: relative,
          line,
          detail: `imports '${specifier}': ask the ${targetModule} module's service for what you need`,
        })
      if (relative.startsWith(`queue${path.sep}`) && target.startsWith(`modules${path.sep}`))
        problems.push({
          rule: 'queue-below-modules',
          file: relative,
          line,
          detail: `imports '${specifier}': the job runner knows no module (modules declare their queues)`,
        })
    }
  }
  return problems.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
}

if (import.meta.filename === process.argv[1]) {
  const repo = path.resolve(import.meta.dirname, '..')
  const sourceRoot = path.resolve(repo, process.argv[2] ?? 'apps/api/src')
  const problems = findLayerProblems(sourceRoot)
  for (const problem of problems)
    console.error(
      `${path.relative(repo, path.join(sourceRoot, problem.file))}:${problem.line} [${problem.rule}] ${problem.detail}`,
    )
  if (problems.length > 0) {
    console.error(`\n${problems.length} layering problem(s) in ${path.relative(repo, sourceRoot)}.`)
    process.exit(1)
  }
  console.log(
    `API layers hold (${path.relative(repo, sourceRoot)}): one writer of access, private repositories, the queue below the modules.`,
  )
}
