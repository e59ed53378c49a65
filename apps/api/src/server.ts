import fs from 'node:fs'
import path from 'node:path'
import { fileURLToPath } from 'node:url'
import { ConfigError, loadConfig } from './config'
import { type Database, openDatabase } from './db/database'

/** Entry point: configuration, the app (migrated database, jobs), listen, graceful shutdown. */

const builtWeb = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../web/build/client')
// `npm run dev` serves the web app from Vite instead; then this process is the API alone.
const webRoot = fs.existsSync(builtWeb) ? builtWeb : undefined

async function main() {
  const config = loadConfig(process.env, { webRoot })
  // The embedded database's files are copied and its WebAssembly compiled (both off the main thread)
  // while the app's modules load, instead of after.
  let database: Promise<Database> | undefined
  if (!config.databaseUrl) {
    database = openDatabase({ pgliteDir: config.dataDir })
    database.catch(() => {})
  }
  const { buildApp } = await import('./app')
  const app = await buildApp(config, database ? { database: await database, closeDatabase: true } : {})

  let stopping = false
  const stop = async (signal: string) => {
    if (stopping) return
    stopping = true
    app.log.info({ signal }, 'shutting down: finishing in-flight requests')
    const timer = setTimeout(() => {
      app.log.error('shutdown took too long; exiting')
      process.exit(1)
    }, 20_000)
    timer.unref()
    try {
      await app.close()
      process.exit(0)
    } catch (error) {
      app.log.error(
        { err: { message: error instanceof Error ? error.message : String(error) } },
        'shutdown failed',
      )
      process.exit(1)
    }
  }
  // A promise nobody awaited failed (a library's background work while the database was away): report
  // it and keep serving; every request path handles its own errors.
  process.on('unhandledRejection', (reason) => {
    app.log.error(
      { err: { message: reason instanceof Error ? reason.message : String(reason) } },
      'unhandled rejection (the process keeps running)',
    )
  })
  process.on('SIGTERM', () => void stop('SIGTERM'))
  process.on('SIGINT', () => void stop('SIGINT'))

  if (!webRoot) app.log.warn('the web app is not built (npm run build): serving the API only')
  await app.listen({ port: config.port, host: config.host })
  app.log.info(`EdgeClub is running at ${config.appOrigin}`)
}

main().catch((error: unknown) => {
  if (error instanceof ConfigError) {
    console.error(error.message)
  } else {
    console.error('EdgeClub failed to start:', error instanceof Error ? error.message : error)
  }
  process.exit(1)
})
