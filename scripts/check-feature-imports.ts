import fs from 'node:fs'
import path from 'node:path'

/**
 * Part of `npm run lint`: a file in apps/web/app/features/<a>/ never imports from
 * apps/web/app/features/<b>/. What several features need lives in components/ui or lib, and the
 * route modules compose features. Run as `tsx scripts/check-feature-imports.ts [features folder]`.
 */

export interface CrossFeatureImport {
  /** The importing file, relative to the features folder. */
  file: string
  line: number
  specifier: string
  /** The feature folder the import reaches into. */
  target: string
}

const SOURCE = /\.(ts|tsx|js|jsx|mts|cts)$/

/**
 * Every module specifier a file names: `import … from`, `export … from`, `import '…'` and `import('…')`,
 * type-only imports included. Matched on the text, so an import quoted in a comment counts as well:
 * the rule errs towards reporting.
 */
export function importSpecifiers(source: string): { specifier: string; line: number }[] {
  const found: { specifier: string; line: number }[] = []
  const pattern = /\b(?:from|import)\s*\(?\s*(['"])([^'"\n]+)\1/g
  for (const match of source.matchAll(pattern)) {
    const line = source.slice(0, match.index).split('\n').length
    found.push({ specifier: match[2]!, line })
  }
  return found
}

function sourceFiles(folder: string): string[] {
  return fs.readdirSync(folder, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(folder, entry.name)
    if (entry.isDirectory()) return entry.name === 'node_modules' ? [] : sourceFiles(full)
    return SOURCE.test(entry.name) ? [full] : []
  })
}

/** The feature a path belongs to (its first folder under the features folder), or null outside it. */
function featureOf(featuresRoot: string, target: string): string | null {
  const relative = path.relative(featuresRoot, target)
  if (relative === '' || relative.startsWith('..') || path.isAbsolute(relative)) return null
  const [first, ...rest] = relative.split(path.sep)
  // A file directly in the features folder belongs to no feature; importing it is reaching across too.
  return rest.length > 0 ? first! : ''
}

export function findCrossFeatureImports(featuresRoot: string): CrossFeatureImport[] {
  const root = path.resolve(featuresRoot)
  const problems: CrossFeatureImport[] = []
  for (const file of sourceFiles(root)) {
    const own = featureOf(root, file)
    for (const { specifier, line } of importSpecifiers(fs.readFileSync(file, 'utf8'))) {
      if (!specifier.startsWith('.')) continue
      const target = featureOf(root, path.resolve(path.dirname(file), specifier))
      if (target !== null && target !== own) {
        problems.push({ file: path.relative(root, file), line, specifier, target: target || '.' })
      }
    }
  }
  return problems.sort((a, b) => a.file.localeCompare(b.file) || a.line - b.line)
}

if (import.meta.filename === process.argv[1]) {
  const root = path.resolve(import.meta.dirname, '..')
  const featuresRoot = path.resolve(root, process.argv[2] ?? 'apps/web/app/features')
  const problems = findCrossFeatureImports(featuresRoot)
  for (const problem of problems) {
    console.error(
      `${path.relative(root, path.join(featuresRoot, problem.file))}:${problem.line} imports '${problem.specifier}' from the ${problem.target} feature`,
    )
  }
  if (problems.length > 0) {
    console.error(
      `\n${problems.length} import(s) cross feature folders. Move what several features share to components/ui or lib, or compose the features in a route module.`,
    )
    process.exit(1)
  }
  console.log(`Feature folders keep to themselves (${path.relative(root, featuresRoot)}).`)
}
