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
  build: { sourcemap: false },
})
