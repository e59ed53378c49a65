import { stdin, stdout } from 'node:process'
import { createInterface } from 'node:readline'
import { NewPasswordSchema } from '@edgeclub/shared'
import { loadConfig } from '../config'
import { openDatabase } from '../db/database'
import { migrateToLatest } from '../db/migrate'
import { ensureAdmin } from '../modules/auth/admin-accounts'
import { createAuthRepository } from '../modules/auth/auth-repository'
import { normalizeEmail } from '../modules/auth/auth-service'
import { PREPARE_LOCK } from '../prepare-database'

/**
 * `npm run admin -- create <email>`: creates that account as an admin (asking for a password without
 * echoing it) or promotes the existing account. Uses the same database settings as the server.
 */

function askHidden(question: string): Promise<string> {
  return new Promise((resolve) => {
    const rl = createInterface({ input: stdin, output: stdout, terminal: true })
    const output = rl as unknown as { _writeToOutput: (text: string) => void }
    let prompted = false
    output._writeToOutput = (text: string) => {
      // Print the question once; every later write (the typed characters) is swallowed.
      if (!prompted) {
        stdout.write(text)
        prompted = true
      }
    }
    rl.question(question, (answer) => {
      rl.close()
      stdout.write('\n')
      resolve(answer)
    })
  })
}

async function readPassword(): Promise<string> {
  if (!stdin.isTTY) {
    // Piped in (scripts, CI): the first line is the password.
    const rl = createInterface({ input: stdin })
    for await (const line of rl) return line
    return ''
  }
  for (;;) {
    const password = await askHidden('New admin password: ')
    const check = NewPasswordSchema.safeParse(password)
    if (!check.success) {
      console.error(check.error.issues[0]?.message ?? 'Invalid password')
      continue
    }
    if ((await askHidden('Repeat the password: ')) === password) return password
    console.error('The passwords do not match; try again.')
  }
}

async function main() {
  const [command, email] = process.argv.slice(2)
  if (command !== 'create' || !email || !email.includes('@')) {
    console.error('Usage: npm run admin -- create <email>')
    process.exit(2)
  }
  const config = loadConfig()
  const database = await openDatabase(
    config.databaseUrl ? { databaseUrl: config.databaseUrl } : { pgliteDir: config.dataDir },
  )
  try {
    // Under the lock instances take to migrate (db/advisory-lock.ts): never beside a starting one.
    await database.exclusively(PREPARE_LOCK, () => migrateToLatest(database.db))
    const repo = createAuthRepository(database.db)
    const existing = await repo.findUserByEmail(normalizeEmail(email))
    const password = existing ? undefined : await readPassword()
    if (password !== undefined) {
      const check = NewPasswordSchema.safeParse(password)
      if (!check.success) throw new Error(check.error.issues[0]?.message ?? 'Invalid password')
    }
    const outcome = await ensureAdmin(repo, email, password, new Date())
    console.log(
      outcome === 'created'
        ? `Created the admin account ${email.trim()}. Sign in at /login.`
        : `${existing?.email ?? email} is ${outcome === 'promoted' ? 'now' : 'already'} an admin.`,
    )
  } finally {
    await database.close()
  }
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error)
  process.exit(1)
})
