import fs from 'node:fs'
import path from 'node:path'
import { reactRouter } from '@react-router/dev/vite'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig, type Plugin, type Rollup } from 'vite'
// The shared package's paths module alone, by file: Vite loads this config with Node, which cannot import the package's TypeScript entry.
import { API_BASE, paths, RENAMED_DASHBOARD_TABS } from '../../packages/shared/src/paths.ts'
import { dashboardBootScript } from './app/lib/dashboard-boot.ts'
import { STORAGE_KEYS } from './app/lib/storage-keys.ts'
import { FALLBACK_TAB, SESSION_CHECK, TAB_MODULES, TAB_REQUESTS } from './app/routes/dashboard-tab-preload.ts'

/**
 * The shared package's modules that build zod schemas. They stay out of the `common` chunk, which
 * every screen loads: zod would come with them. The member screens check answers with schemas
 * loaded on demand (app/lib/contract.ts), so the dashboard's first load has no zod.
 */
const sharedSource = path.join(import.meta.dirname, '../../packages/shared/src')
const schemaModules = new Set(
  fs
    .readdirSync(sharedSource)
    .filter(
      (file) =>
        file.endsWith('.ts') && /from 'zod'/.test(fs.readFileSync(path.join(sharedSource, file), 'utf8')),
    )
    .map((file) => path.join(sharedSource, file)),
)

const apiTarget = process.env.API_ORIGIN ?? 'http://127.0.0.1:3001'
const root = import.meta.dirname
const app = path.join(root, 'app')

/**
 * Writes the dashboard page's boot script (app/lib/dashboard-boot.ts) to build/dashboard-boot.json,
 * with this build's addresses of the dashboard route's chunk and of each tab's chunks (and what they
 * import, less what the page already preloads for the root route); scripts/dashboard-boot.mjs puts
 * it into the SPA fallback page once React Router has rendered it. A tab module without a chunk
 * stops the build: the list in routes/dashboard-tab-preload.ts has drifted from the code.
 */
function dashboardBoot(): Plugin {
  return {
    name: 'edgeclub-dashboard-boot',
    applyToEnvironment: (environment) => environment.name === 'client',
    generateBundle(_options, bundle) {
      const chunks = Object.values(bundle).filter((item): item is Rollup.OutputChunk => item.type === 'chunk')
      // The chunk each module ended up in (a tab's module may share a chunk with another).
      const byModule = new Map<string, Rollup.OutputChunk>()
      for (const chunk of chunks)
        for (const id of chunk.moduleIds) byModule.set(path.relative(app, id.split('?')[0]!), chunk)
      const closure = (start: Rollup.OutputChunk[]): string[] => {
        const seen = new Set<string>()
        const visit = (chunk: Rollup.OutputChunk | undefined) => {
          if (!chunk || seen.has(chunk.fileName)) return
          seen.add(chunk.fileName)
          for (const file of chunk.imports) visit(bundle[file] as Rollup.OutputChunk | undefined)
        }
        for (const chunk of start) visit(chunk)
        return [...seen]
      }
      const find = (module: string) => {
        const chunk = byModule.get(module)
        if (!chunk) throw new Error(`dashboard boot: no chunk for app/${module}`)
        return chunk
      }
      const shell = new Set(closure([find('root.tsx')]))
      const addresses = (modules: readonly string[]) =>
        closure(modules.map(find))
          .filter((file) => !shell.has(file))
          .map((file) => `/${file}`)
      const script = dashboardBootScript({
        path: paths.dashboard,
        keys: { token: STORAGE_KEYS.token, user: STORAGE_KEYS.user },
        api: API_BASE,
        route: addresses(['routes/dashboard.tsx']),
        tabs: Object.fromEntries(
          Object.entries(TAB_MODULES).map(([tab, modules]) => [tab, addresses(modules)]),
        ),
        requests: [SESSION_CHECK],
        tabRequests: Object.fromEntries(
          Object.entries(TAB_REQUESTS).map(([tab, requests]) => [tab, [...requests]]),
        ),
        renamed: { ...RENAMED_DASHBOARD_TABS },
        fallbackTab: FALLBACK_TAB,
      })
      fs.mkdirSync(path.join(root, 'build'), { recursive: true })
      fs.writeFileSync(path.join(root, 'build/dashboard-boot.json'), `${JSON.stringify({ script })}\n`)
    },
  }
}

export default defineConfig({
  plugins: [tailwindcss(), reactRouter(), dashboardBoot()],
  server: {
    port: Number(process.env.WEB_PORT ?? 3000),
    host: '127.0.0.1',
    // `npm run dev`: the API runs beside Vite; the browser sees one origin as in production.
    proxy: { '/discord/api': apiTarget, '/healthz': apiTarget, '/readyz': apiTarget },
  },
  build: {
    sourcemap: false,
    // The signed-in app came in 30-40 chunks, most under 1 KB, each with ~1.1 KB of response headers
    // and, over HTTP/1.1's six connections per origin, a turn in a queue: on a phone the dashboard
    // waited for five rounds of requests before its first tab. Shared code now comes in two chunks:
    // React, React Router, TanStack Query and zod (vendor), and the app's own shared modules (common),
    // except the card form's, which keep Stripe.js to the screens that take a card. Each route and
    // each dashboard tab keeps its own chunk. The public pages are built apart (vite.islands.config.ts).
    rolldownOptions: {
      output: {
        codeSplitting: {
          groups: [
            {
              name: 'vendor',
              test: /node_modules[\\/](react|react-dom|react-router|scheduler|cookie|set-cookie-parser|@tanstack)[\\/]/,
              minShareCount: 2,
              priority: 4,
            },
            {
              // zod with the shared schemas, in one chunk loaded only by what checks or validates with
              // them (never the first load of a member screen or a public page): a production build's
              // check of a screen's answers asks for two files (this and lib/contracts), not ten.
              name: 'zod',
              test: (id) => /node_modules[\\/]zod[\\/]/.test(id) || schemaModules.has(id),
              // After common: a group takes its modules' dependencies with it, and the zod-free rules
              // and texts the schemas import (billing-rules, payment-messages...) belong to common,
              // which the first screens load.
              priority: 1,
            },
            {
              name: 'common',
              test: (id) =>
                /apps[\\/]web[\\/]app[\\/](lib[\\/]|components[\\/]|routes[\\/]dashboard-tabs|features[\\/]dashboard[\\/]tabs|features[\\/]auth[\\/]auth-api)|packages[\\/]shared[\\/]/.test(
                  id,
                ) &&
                !/stripe|card-field|card-payment/.test(id) &&
                !schemaModules.has(id),
              minShareCount: 2,
              priority: 3,
            },
            {
              // The Signals tab's first screen in one chunk, not five: the tab, the witness line and
              // its check, the signal card and the status badge (shared with the record page and the
              // admin's signals section, they came apart). After common, so shared code stays there.
              name: 'signals-screens',
              test: /apps[\\/]web[\\/]app[\\/]features[\\/]signals[\\/](signals-tab|record-witness|record-witness-check|signal-card|signal-status)\./,
              priority: 2,
            },
          ],
        },
      },
    },
  },
})
