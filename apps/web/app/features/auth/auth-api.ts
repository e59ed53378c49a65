import type { PublicUser, RegisterForm } from '@edgeclub/shared'
import { apiRequest } from '../../lib/api-client'
import { session } from '../../lib/session-store'
import { STORAGE_KEYS } from '../../lib/storage-keys'

interface SessionPayload {
  user: PublicUser
  tokens: { accessToken: string; refreshToken: string }
}

/** SPEC §7 Auth calls, with the session bookkeeping of SPEC §4 around them. */
async function withAuthLoading<T>(work: () => Promise<T>): Promise<T> {
  session.setLoading('auth', true)
  try {
    return await work()
  } finally {
    session.setLoading('auth', false)
  }
}

export function login(email: string, password: string, rememberMe: boolean) {
  return withAuthLoading(async () => {
    const result = await apiRequest<SessionPayload>('/auth/login', {
      method: 'POST',
      body: { email, password, rememberMe },
      auth: false,
    })
    if (result.success && result.data) {
      session.signIn(result.data.user, result.data.tokens)
      // SPEC §2: the remember-me flag is set to true, or removed.
      if (rememberMe) localStorage.setItem(STORAGE_KEYS.rememberMe, 'true')
      else localStorage.removeItem(STORAGE_KEYS.rememberMe)
    }
    return result
  })
}

export function register(form: RegisterForm) {
  return withAuthLoading(async () => {
    const { confirmPassword: _confirm, ...body } = form
    const result = await apiRequest<SessionPayload>('/auth/register', { method: 'POST', body, auth: false })
    if (result.success && result.data) session.signIn(result.data.user, result.data.tokens)
    return result
  })
}

/** SPEC §2: signing out always ends on the sign-in page, even when the server call fails. */
export async function logout(): Promise<void> {
  try {
    await apiRequest('/auth/logout', { method: 'POST' })
  } finally {
    session.clear()
  }
}

export function forgotPassword(email: string) {
  return withAuthLoading(() =>
    apiRequest('/auth/forgot-password', { method: 'POST', body: { email }, auth: false }),
  )
}

export function resetPassword(token: string, password: string) {
  return withAuthLoading(() =>
    apiRequest('/auth/reset-password', { method: 'POST', body: { token, password }, auth: false }),
  )
}

export async function fetchProfile() {
  const result = await apiRequest<PublicUser>('/auth/profile')
  if (result.success && result.data) session.setUser(result.data)
  return result
}

export async function updateProfile(changes: Record<string, unknown>) {
  const result = await apiRequest<PublicUser>('/auth/profile', { method: 'PUT', body: changes })
  if (result.success && result.data) session.setUser(result.data)
  return result
}

export async function changePassword(currentPassword: string, newPassword: string) {
  const result = await apiRequest<{ tokens: { accessToken: string; refreshToken: string } }>(
    '/auth/password',
    {
      method: 'PUT',
      body: { currentPassword, newPassword },
    },
  )
  if (result.success && result.data) session.setTokens(result.data.tokens)
  return result
}

export async function logoutEverywhere(): Promise<void> {
  try {
    await apiRequest('/auth/logout-all', { method: 'POST' })
  } finally {
    session.clear()
  }
}
