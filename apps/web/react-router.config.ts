import { prerenderedPaths } from '@edgeclub/shared'
import type { Config } from '@react-router/dev/config'

export default {
  appDirectory: 'app',
  // The API server serves the build: prerendered HTML for the public pages, an SPA fallback for the rest.
  ssr: false,
  prerender: [...prerenderedPaths],
  future: {
    v8_middleware: true,
    v8_splitRouteModules: true,
    v8_viteEnvironmentApi: true,
    v8_passThroughRequests: true,
    v8_trailingSlashAwareDataRequests: true,
  },
} satisfies Config
