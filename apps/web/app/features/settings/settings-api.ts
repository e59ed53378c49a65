import { apiRequest } from '../../lib/api-client'
import { contract } from '../../lib/contract'
import { session } from '../../lib/session-store'

/** Profile or email changes; the stored user follows what the server saved. */
export async function updateProfile(changes: Record<string, unknown>) {
  const result = await apiRequest('/auth/profile', {
    method: 'PUT',
    body: changes,
    schema: contract('PublicUserSchema'),
  })
  if (result.success && result.data) session.setUser(result.data)
  return result
}

/** A new password ends every other session; this one carries on with the tokens the server returns. */
export async function changePassword(currentPassword: string, newPassword: string) {
  const result = await apiRequest('/auth/password', {
    method: 'PUT',
    body: { currentPassword, newPassword },
    schema: contract('PasswordChangedSchema'),
  })
  if (result.success && result.data) session.setTokens(result.data.tokens)
  return result
}

/** Ends every session of the member, this one included, even when the server call fails. */
export async function logoutEverywhere(): Promise<void> {
  try {
    await apiRequest('/auth/logout-all', { method: 'POST' })
  } finally {
    session.clear()
  }
}
