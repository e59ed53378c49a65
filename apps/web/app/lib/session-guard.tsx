import { PublicUserSchema, paths } from '@edgeclub/shared'
import { type ReactNode, useEffect, useState } from 'react'
import { useNavigate } from 'react-router'
import { apiRequest } from './api-client'
import { isAuthenticated, session } from './session-store'
import { useSession } from './use-session'

/**
 * Asks the server who is signed in (GET /auth/profile) and keeps the stored user up to date. False
 * only when the server refused the session; the API client has cleared it by then. A server that
 * cannot be reached does not lock the member out: every call is checked on the server anyway.
 */
async function verifySession(): Promise<boolean> {
  const result = await apiRequest('/auth/profile', { schema: PublicUserSchema })
  if (result.success && result.data) session.setUser(result.data)
  return result.success || result.code !== 'UNAUTHORIZED'
}

let early: Promise<boolean> | undefined

/**
 * Starts the check before the area's code has loaded, for a page opened at a signed-in area: the
 * guard then waits on this answer instead of asking once it has rendered. A page without a stored
 * session asks nothing (the guard sends it to the sign-in page).
 */
export function startSessionCheck(): void {
  if (isAuthenticated(session.getState())) early ??= verifySession()
}

/**
 * The signed-in areas (/dashboard, /admin): 'Verifying authentication...' while the session is
 * checked with the server, the sign-in page (replacing this entry in history) when nobody is
 * signed in or the session ends, else the area itself.
 */
export function SessionGuard({ children }: { children: ReactNode }) {
  const navigate = useNavigate()
  const { isAuthenticated } = useSession()
  const [verified, setVerified] = useState(false)

  useEffect(() => {
    if (!isAuthenticated) {
      navigate(paths.login, { replace: true })
      return
    }
    if (verified) return
    let cancelled = false
    const check = early ?? verifySession()
    early = undefined
    check.then((accepted) => {
      // A refused session was cleared by the API client; the check above then redirects.
      if (!cancelled && accepted) setVerified(true)
    })
    return () => {
      cancelled = true
    }
  }, [isAuthenticated, verified, navigate])

  if (!isAuthenticated || !verified) {
    return (
      <div className="flex min-h-screen items-center justify-center" role="status">
        <p className="text-slate-300">Verifying authentication...</p>
      </div>
    )
  }
  return children
}
