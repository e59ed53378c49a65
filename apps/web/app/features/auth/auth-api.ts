import type { RegisterForm } from '@edgeclub/shared'
import { apiRequest } from '../../lib/api-client'
import { contract } from '../../lib/contract'
import { session } from '../../lib/session-store'
import { STORAGE_KEYS } from '../../lib/storage-keys'

/** Sign-in calls, with the session bookkeeping around them (the auth loading flag, stored user and tokens). */
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
    const result = await apiRequest('/auth/login', {
      method: 'POST',
      body: { email, password, rememberMe },
      auth: false,
      schema: contract('AuthSessionSchema'),
    })
    if (result.success && result.data) {
      session.signIn(result.data.user, result.data.tokens)
      // The remember-me flag is set to 'true', or removed.
      if (rememberMe) localStorage.setItem(STORAGE_KEYS.rememberMe, 'true')
      else localStorage.removeItem(STORAGE_KEYS.rememberMe)
    }
    return result
  })
}

export function register(form: RegisterForm) {
  return withAuthLoading(async () => {
    const { confirmPassword: _confirm, ...body } = form
    const result = await apiRequest('/auth/register', {
      method: 'POST',
      body,
      auth: false,
      schema: contract('AuthSessionSchema'),
    })
    if (result.success && result.data) session.signIn(result.data.user, result.data.tokens)
    return result
  })
}

/** Signing out always ends the session here, even when the server call fails. */
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
