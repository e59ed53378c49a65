import { randomBytes } from 'node:crypto'
import fs from 'node:fs/promises'
import path from 'node:path'

/**
 * JWT_SECRET when set (required in production); otherwise one generated on the first start and kept
 * in DATA_DIR, so sessions survive restarts of a local install.
 */
export async function resolveJwtSecret(configured: string | undefined, dataDir: string): Promise<string> {
  if (configured) return configured
  const file = path.join(dataDir, 'jwt-secret')
  try {
    const stored = (await fs.readFile(file, 'utf8')).trim()
    if (stored.length >= 32) return stored
  } catch {
    // Not there yet: create it below.
  }
  await fs.mkdir(dataDir, { recursive: true })
  const secret = randomBytes(48).toString('base64url')
  await fs.writeFile(file, secret, { mode: 0o600 })
  return secret
}
