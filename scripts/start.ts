import { buildWebIfNeeded } from './web-build'

/** `npm start`: build the web app if needed, then run the server (it migrates on start). */
buildWebIfNeeded()
await import('../apps/api/src/server')
