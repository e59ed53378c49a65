import { paths } from '@edgeclub/shared'
import { type ReactNode, useEffect, useState } from 'react'
import { useNavigate } from 'react-router'
import { apiRequest } from './api-client'
import { contract } from './contract'
import { isAuthenticated, session } from './session-store'
import { useSession } from './use-session'

/**
 * Asks the server who is signed in (GET /auth/profile) and keeps the stored user up to date. False
 * only when the server refused the session; the API client has cleared it by then. A server that
 * cannot be reached does not lock the member out: every call is checked on the server anyway.
 */
async function verifySession(): Promise<boolean> {
  const result = await apiRequest('/auth/profile', { schema: contract('PublicUserSchema') })
  if (result.success && result.data) session.setUser(result.data)
  return result.success || result.code !== 'UNAUTHORIZED'
}

let early: Promise<boolean> | undefined
/** The early check's answer, once it has come. */
let earlyAnswer: boolean | undefined

/**
 * Starts the check before the area's code has loaded, for a page opened at a signed-in area: the
 * guard then waits on this answer instead of asking once it has rendered, and if the answer is
 * already here when it first renders (the dashboard page's boot script asked before the app's code
 * had arrived), there is nothing left to verify: it renders the area at once. `alongside` (the open
 * tab's code) is waited for with the answer, so that the area renders with it rather than a moment
 * before it (React would then hold the tab back for its 300 ms fallback time). A page without a
 * stored session asks nothing (the guard sends it to the sign-in page).
 */
export function startSessionCheck(alongside?: Promise<unknown>): void {
  if (isAuthenticated(session.getState()))
    early ??= Promise.all([verifySession(), alongside?.catch(() => undefined)]).then(([accepted]) => {
      earlyAnswer = accepted
      return accepted
    })
}

/**
 * The signed-in areas (/dashboard, /admin): 'Verifying authentication...' while the session is
 * checked with the server, the sign-in page (replacing this entry in history) when nobody is
 * signed in or the session ends, else the area itself.
 */
export function SessionGuard({ children }: { children: ReactNode }) {
  const navigate = useNavigate()
  const { isAuthenticated } = useSession()
  const [verified, setVerified] = useState(() => isAuthenticated && earlyAnswer === true)

  useEffect(() => {
    if (!isAuthenticated) {
      navigate(paths.login, { replace: true })
      return
    }
    if (verified) {
      // The early answer is used once: a later visit to a signed-in area checks again.
      early = undefined
      earlyAnswer = undefined
      return
    }
    let cancelled = false
    const check = early ?? verifySession()
    early = undefined
    earlyAnswer = undefined
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
