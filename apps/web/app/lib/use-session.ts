import { useSyncExternalStore } from 'react'
import { isAuthenticated, type SessionState, session } from './session-store'

/** The session as React state; prerendered HTML and hydration see the signed-out state. */
export function useSession(): SessionState & { isAuthenticated: boolean } {
  const state = useSyncExternalStore(session.subscribe, session.getState, session.getServerState)
  return { ...state, isAuthenticated: isAuthenticated(state) }
}
