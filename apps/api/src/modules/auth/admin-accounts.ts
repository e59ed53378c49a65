import { authMessages, NewPasswordSchema } from '@edgeclub/shared'
import { AppError } from '../../lib/errors'
import type { AuthRepository } from './auth-repository'
import { normalizeEmail } from './auth-service'
import { isCommonPassword } from './common-passwords'
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
  // The admin's password meets the members' rules: composition, and not a (dressed-up) common one.
  const rule = NewPasswordSchema.safeParse(password)
  if (!rule.success)
    throw new AppError('VALIDATION_ERROR', `The admin password: ${rule.error.issues[0]?.message}`)
  if (await isCommonPassword(password))
    throw new AppError('VALIDATION_ERROR', `The admin password: ${authMessages.passwordTooCommon}`)
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
