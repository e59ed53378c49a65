import { reactRouter } from '@react-router/dev/vite'
import tailwindcss from '@tailwindcss/vite'
import { defineConfig } from 'vite'

const apiTarget = process.env.API_ORIGIN ?? 'http://127.0.0.1:3001'

export default defineConfig({
  plugins: [tailwindcss(), reactRouter()],
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
              test: /node_modules[\\/](react|react-dom|react-router|scheduler|cookie|set-cookie-parser|@tanstack|zod)[\\/]/,
              minShareCount: 2,
              priority: 2,
            },
            {
              name: 'common',
              test: (id) =>
                /apps[\\/]web[\\/]app[\\/](lib[\\/]|components[\\/]|routes[\\/]dashboard-tabs|features[\\/]dashboard[\\/]tabs|features[\\/]auth[\\/]auth-api)|packages[\\/]shared[\\/]/.test(
                  id,
                ) && !/stripe|card-field|card-payment/.test(id),
              minShareCount: 2,
            },
          ],
        },
      },
    },
  },
})
