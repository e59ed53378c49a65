import fs from 'node:fs'
import path from 'node:path'
import { defineConfig, type Plugin } from 'vite'

/**
 * The script of the prerendered public pages (app/islands.client.tsx): React and the islands,
 * without React Router, built after `react-router build` into the same assets folder. Its address
 * and the app sources it contains are written to build/islands.json for scripts/public-pages.mjs,
 * which links the script from each islands page and builds the page's inline CSS from the classes
 * in the page and in those sources.
 */

const root = import.meta.dirname

function islandsManifest(): Plugin {
  return {
    name: 'edgeclub-islands-manifest',
    generateBundle(_options, bundle) {
      const entry = Object.values(bundle).find((item) => item.type === 'chunk' && item.isEntry)
      if (entry?.type !== 'chunk') throw new Error('the islands build has no entry chunk')
      const sources = new Set<string>()
      for (const item of Object.values(bundle)) {
        if (item.type !== 'chunk') continue
        for (const id of item.moduleIds) {
          const file = id.split('?')[0]!
          if (!file.includes(`${path.sep}node_modules${path.sep}`) && fs.existsSync(file))
            sources.add(path.relative(root, file))
        }
      }
      fs.mkdirSync(path.join(root, 'build'), { recursive: true })
      fs.writeFileSync(
        path.join(root, 'build/islands.json'),
        `${JSON.stringify({ entry: `/${entry.fileName}`, sources: [...sources].sort() }, null, 2)}\n`,
      )
    },
  }
}

export default defineConfig({
  root,
  publicDir: false,
  plugins: [islandsManifest()],
  build: {
    outDir: 'build/client',
    emptyOutDir: false,
    sourcemap: false,
    // One script per page: no preload helper, no polyfill.
    modulePreload: false,
    rollupOptions: {
      input: path.join(root, 'app/islands.client.tsx'),
      // React Router's "use client" marker: the islands import none of its code (tree-shaken).
      onLog(level, log, handler) {
        if (log.code === 'MODULE_LEVEL_DIRECTIVE' && log.id?.includes('/node_modules/react-router/')) return
        handler(level, log)
      },
      output: {
        entryFileNames: 'assets/islands-[hash].js',
        // V8's compile hint: compile every function while the script streams in, off the main
        // thread, instead of each on its first call during hydration (~20% less main-thread time
        // after the first paint, measured).
        postBanner: (chunk) => (chunk.isEntry ? '//# allFunctionsCalledOnLoad' : ''),
        chunkFileNames: 'assets/islands-[name]-[hash].js',
      },
    },
  },
})
