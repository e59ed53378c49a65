import type { ErrorCode, PublicUser, Tokens } from '@edgeclub/shared'
import { STORAGE_KEYS } from './storage-keys'

/**
 * The signed-in session: user, access token and refresh token, in memory and in
 * localStorage under the contract keys, plus the current API error and per-area loading flags.
 */

export const LOADING_AREAS = [
  'auth',
  'user',
  'bets',
  'signals',
  'portfolio',
  'dashboard',
  'news',
  'payment',
  'admin',
  'subscription',
  'tips',
] as const
export type LoadingArea = (typeof LOADING_AREAS)[number]

export interface ApiErrorState {
  code: 'API_ERROR'
  message: string
  /** The server's machine code, when the server answered. */
  serverCode?: ErrorCode
}

export interface SessionState {
  user: PublicUser | null
  token: string | null
  refreshToken: string | null
  error: ApiErrorState | null
  loading: Record<LoadingArea, boolean>
}

const idle = Object.fromEntries(LOADING_AREAS.map((area) => [area, false])) as Record<LoadingArea, boolean>
const signedOut: SessionState = { user: null, token: null, refreshToken: null, error: null, loading: idle }

let state: SessionState = signedOut
const listeners = new Set<() => void>()

function setState(next: Partial<SessionState>) {
  state = { ...state, ...next }
  for (const listener of listeners) listener()
}

function storage(): Storage | undefined {
  return typeof window === 'undefined' ? undefined : window.localStorage
}

export const session = {
  getState: () => state,
  /** What prerendered HTML was built with: nobody is signed in at build time. */
  getServerState: () => signedOut,
  subscribe(listener: () => void) {
    listeners.add(listener)
    return () => listeners.delete(listener)
  },

  /** Restores a stored user and token; a user that cannot be parsed logs the session out. */
  restore() {
    const store = storage()
    if (!store) return
    const rawUser = store.getItem(STORAGE_KEYS.user)
    const token = store.getItem(STORAGE_KEYS.token)
    const refreshToken = store.getItem(STORAGE_KEYS.refreshToken)
    if (!rawUser) {
      setState({ user: null, token, refreshToken })
      return
    }
    try {
      const user = JSON.parse(rawUser) as PublicUser
      if (!user || typeof user !== 'object' || typeof user.email !== 'string') throw new Error('corrupt user')
      setState({ user, token, refreshToken })
    } catch {
      session.clear()
    }
  },

  /** On register or login, keeps the user and both tokens in state and storage. */
  signIn(user: PublicUser, tokens: Tokens) {
    const store = storage()
    store?.setItem(STORAGE_KEYS.user, JSON.stringify(user))
    store?.setItem(STORAGE_KEYS.token, tokens.accessToken)
    store?.setItem(STORAGE_KEYS.refreshToken, tokens.refreshToken)
    setState({ user, token: tokens.accessToken, refreshToken: tokens.refreshToken, error: null })
  },

  setUser(user: PublicUser) {
    storage()?.setItem(STORAGE_KEYS.user, JSON.stringify(user))
    setState({ user })
  },

  /** A refreshed access token (and the rotated refresh token the server returns with it). */
  setTokens(tokens: Pick<Tokens, 'accessToken'> & Partial<Pick<Tokens, 'refreshToken'>>) {
    const store = storage()
    store?.setItem(STORAGE_KEYS.token, tokens.accessToken)
    if (tokens.refreshToken) store?.setItem(STORAGE_KEYS.refreshToken, tokens.refreshToken)
    setState({ token: tokens.accessToken, refreshToken: tokens.refreshToken ?? state.refreshToken })
  },

  /** Logout clears all three. */
  clear() {
    const store = storage()
    store?.removeItem(STORAGE_KEYS.user)
    store?.removeItem(STORAGE_KEYS.token)
    store?.removeItem(STORAGE_KEYS.refreshToken)
    setState({ user: null, token: null, refreshToken: null })
  },

  setError(error: ApiErrorState | null) {
    setState({ error })
  },

  setLoading(area: LoadingArea, value: boolean) {
    if (state.loading[area] === value) return
    setState({ loading: { ...state.loading, [area]: value } })
  },
}

/** Authenticated only when both a user and a token exist. */
export function isAuthenticated(value: Pick<SessionState, 'user' | 'token'>): boolean {
  return Boolean(value.user && value.token)
}
