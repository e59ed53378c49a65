import { AppError } from '../../lib/errors'
import type { AuthRepository } from './auth-repository'
import { normalizeEmail } from './auth-service'
import { hashPassword } from './passwords'

/** ADMIN_EMAIL/ADMIN_PASSWORD at start and `npm run admin`: make the account an admin, creating it if needed. */
export async function ensureAdmin(
  repo: AuthRepository,
  email: string,
  password: string | undefined,
  now: Date,
): Promise<'created' | 'promoted' | 'unchanged'> {
  const existing = await repo.findUserByEmail(normalizeEmail(email))
  if (existing) {
    if (existing.role === 'admin') return 'unchanged'
    await repo.updateUser(existing.id, { role: 'admin', updated_at: now })
    return 'promoted'
  }
  if (!password) throw new AppError('VALIDATION_ERROR', 'A password is needed to create the admin account')
  await repo.insertUser({
    email: email.trim(),
    email_normalized: normalizeEmail(email),
    password_hash: await hashPassword(password),
    first_name: 'Admin',
    last_name: '',
    discord_username: '',
    role: 'admin',
    password_changed_at: now,
  })
  return 'created'
}
