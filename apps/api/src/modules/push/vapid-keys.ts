import fs from 'node:fs/promises'
import path from 'node:path'
import { generateVapidKeys } from '../../integrations/webpush/push-client'
import type { PushRepository } from './push-repository'

type KeyPair = { publicKey: string; privateKey: string }

const isKeyPair = (value: unknown): value is KeyPair =>
  typeof value === 'object' &&
  value !== null &&
  typeof (value as KeyPair).publicKey === 'string' &&
  typeof (value as KeyPair).privateKey === 'string'

/**
 * The server's VAPID key pair (decision 023): VAPID_PUBLIC_KEY/VAPID_PRIVATE_KEY when set; otherwise
 * made on the first start and kept — in DATA_DIR (file mode 0600) with the embedded database, which
 * one process owns; in the database with PostgreSQL, made under an advisory lock by whichever instance
 * starts first, so every instance signs with the same key the browsers subscribed with.
 */
export async function resolveVapidKeys(options: {
  configured: KeyPair | undefined
  database: 'pglite' | 'postgres'
  dataDir: string
  repo: Pick<PushRepository, 'sharedVapidKeys'>
}): Promise<KeyPair> {
  if (options.configured) return options.configured
  if (options.database === 'postgres') return options.repo.sharedVapidKeys(generateVapidKeys)
  const file = path.join(options.dataDir, 'vapid-keys.json')
  try {
    const stored: unknown = JSON.parse(await fs.readFile(file, 'utf8'))
    if (isKeyPair(stored)) return stored
  } catch {
    // Not there yet: made below.
  }
  await fs.mkdir(options.dataDir, { recursive: true })
  const keys = generateVapidKeys()
  await fs.writeFile(file, `${JSON.stringify(keys)}\n`, { mode: 0o600 })
  return keys
}
