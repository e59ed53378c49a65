import { dashboardTab, discordConnectMessages } from '@edgeclub/shared'
import { useEffect } from 'react'
import { useNavigate, useSearchParams } from 'react-router'
import { completeDiscordConnect, type DiscordConnectNotice } from '../features/community/community-api'
import { seo } from '../lib/seo'
import { SessionGuard } from '../lib/session-guard'

export function meta() {
  return [
    ...seo('Connecting Discord', 'Finishing your Discord connection.'),
    { name: 'robots', content: 'noindex' },
  ]
}

/** Each return from Discord is passed on once (a code works once), even if the page renders twice. */
const handled = new Set<string>()

/**
 * Where Discord sends the member back after Connect Discord (the OAuth2 redirect URI): passes what
 * Discord put on the address to the server, then shows the result in the Community tab.
 */
export default function DiscordCallback() {
  return (
    <SessionGuard>
      <Finish />
    </SessionGuard>
  )
}

function Finish() {
  const navigate = useNavigate()
  const [params] = useSearchParams()

  useEffect(() => {
    const key = params.toString()
    if (handled.has(key)) return
    handled.add(key)
    const field = (name: string) => params.get(name) ?? undefined
    completeDiscordConnect({
      code: field('code'),
      state: field('state'),
      error: field('error'),
      errorDescription: field('error_description'),
    }).then((result) => {
      const notice: DiscordConnectNotice = result.success
        ? {
            tone: 'success',
            text:
              result.message ?? discordConnectMessages.connectedOnly(result.data?.connection.username ?? ''),
          }
        : {
            tone: 'error',
            text:
              result.status === undefined
                ? discordConnectMessages.unreachable
                : (result.error ?? discordConnectMessages.discordDown),
          }
      // Replaces this entry: the code and state leave the address bar and the history.
      navigate(dashboardTab('community'), { replace: true, state: { discordConnect: notice } })
    })
  }, [params, navigate])

  return (
    <div className="flex min-h-screen items-center justify-center" role="status">
      <p className="text-slate-300">Connecting your Discord account...</p>
    </div>
  )
}
