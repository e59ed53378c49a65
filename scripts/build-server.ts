import fs from 'node:fs/promises'
import path from 'node:path'
import { build, type Plugin } from 'esbuild'

/**
 * The server and its operator commands compiled to plain JavaScript in apps/api/dist (decision 018):
 * the app's own code and the workspace packages are bundled; every package from the registry stays
 * an import, installed by `npm ci --omit=dev` as usual (native and WebAssembly packages such as PGlite
 * and argon2 find their files where npm put them). Production runs these files with plain node.
 */

const root = path.resolve(import.meta.dirname, '..')
export const serverDist = path.join(root, 'apps/api/dist')

/** Entry points: the file name in dist → the source. */
export const SERVER_ENTRIES: Record<string, string> = {
  server: 'apps/api/src/server.ts',
  migrate: 'apps/api/src/cli/migrate.ts',
  backup: 'apps/api/src/cli/backup.ts',
  restore: 'apps/api/src/cli/restore.ts',
  admin: 'apps/api/src/cli/admin.ts',
  'pglite-template': 'apps/api/src/cli/pglite-template.ts',
}

/** `lodash/fp` → `lodash`, `@scope/name/sub` → `@scope/name`. */
function packageName(specifier: string): string {
  const parts = specifier.split('/')
  return specifier.startsWith('@') ? parts.slice(0, 2).join('/') : (parts[0] ?? specifier)
}

/**
 * Workspace packages (their sources are TypeScript) are bundled; every other package stays an import,
 * and must be a dependency of apps/api, which is what a production install (`npm ci --omit=dev
 * --workspace apps/api`) puts where the build can import it. A missing one fails the build, not the
 * first production start.
 */
/**
 * Registry packages bundled all the same: plain JavaScript modules (no native code, no files read at
 * run time) spread over hundreds of small files, whose resolution and loading one by one was a good
 * part of a start (kysely ~560 files, zod ~250, stripe ~270 per format); one chunk loads in a fraction
 * of that. They stay dependencies (a production install still has them), unused by the build.
 */
export const BUNDLED_PACKAGES = new Set(['kysely', 'kysely-pglite-dialect', 'zod', 'jose', 'stripe'])

function registryPackagesExternal(dependencies: Set<string>): Plugin {
  return {
    name: 'registry-packages-external',
    setup(builder) {
      builder.onResolve({ filter: /^[^./]/ }, (args) => {
        if (args.path.startsWith('@edgeclub/') || args.path.startsWith('node:')) return undefined
        const name = packageName(args.path)
        if (BUNDLED_PACKAGES.has(name) && dependencies.has(name)) return undefined
        if (!dependencies.has(name))
          return {
            errors: [
              {
                text: `${name} (imported by ${path.relative(root, args.importer)}) is not a dependency of apps/api: add it to apps/api/package.json, or a production install will not have it`,
              },
            ],
          }
        return { path: args.path, external: true }
      })
    },
  }
}

export async function buildServer(): Promise<{ files: string[] }> {
  const manifest = JSON.parse(await fs.readFile(path.join(root, 'apps/api/package.json'), 'utf8')) as {
    dependencies: Record<string, string>
  }
  const dependencies = new Set(Object.keys(manifest.dependencies))
  // The previous build's code goes; its database template stays if its key is still current
  // (scripts/build.ts removes stale ones once the new template is known).
  await fs.mkdir(serverDist, { recursive: true })
  for (const entry of await fs.readdir(serverDist))
    if (!entry.startsWith('pglite-template-')) await fs.rm(path.join(serverDist, entry), { recursive: true })

  const result = await build({
    absWorkingDir: root,
    entryPoints: Object.fromEntries(Object.entries(SERVER_ENTRIES).map(([name, source]) => [name, source])),
    outdir: serverDist,
    bundle: true,
    splitting: true,
    format: 'esm',
    platform: 'node',
    target: 'node20.19',
    sourcemap: 'linked',
    plugins: [registryPackagesExternal(dependencies)],
    logLevel: 'warning',
    metafile: true,
  })
  return { files: Object.keys(result.metafile.outputs) }
}
