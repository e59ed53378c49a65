import type { DiscordInvite, DiscordLinkState } from '@edgeclub/shared'
import { formatMoment } from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { Link, useLocation, useNavigate } from 'react-router'
import { Button, buttonClasses } from '../../components/ui/button'
import { Alert } from '../../components/ui/field'
import { isActive, useSubscriptionStatus } from '../../lib/subscription-status-api'
import { communityKeys, createInvite, discordNoticeOf, useDiscordStatus } from './community-api'
import { DiscordConnection } from './discord-connection'

/** The copy notice lasts 3 seconds. */
const COPY_NOTICE_MS = 3_000

const stateLabels: Record<DiscordLinkState, string> = {
  unlinked: 'Not joined yet',
  invited: 'Invite sent — waiting for you to join',
  joined: 'In the server',
  removed: 'Not in the server',
  kicked: 'Removed from the server',
  banned: 'Suspended',
}

/**
 * The result of Connect Discord, handed over by the return page: kept on screen until the member
 * leaves the tab, and taken out of the history entry so a reload does not show it again.
 */
function useConnectNotice() {
  const location = useLocation()
  const navigate = useNavigate()
  const [notice] = useState(() => discordNoticeOf(location.state))
  useEffect(() => {
    if (discordNoticeOf(location.state))
      navigate(`${location.pathname}${location.search}`, { replace: true, state: null })
  }, [location.state, location.pathname, location.search, navigate])
  return notice
}

/**
 * The Discord part of the Community tab: Connect Discord (when the server offers it), and the invite
 * flow: create an invite, show it with copy and join, create a new one. A member already in the
 * server sees "You're in" instead.
 */
export function DiscordTab() {
  const queryClient = useQueryClient()
  const subscription = useSubscriptionStatus()
  const status = useDiscordStatus()
  const notice = useConnectNotice()
  const [invite, setInvite] = useState<DiscordInvite | null>(null)
  const [error, setError] = useState<string | null>(null)
  const [creating, setCreating] = useState(false)
  const [copyNotice, setCopyNotice] = useState<{ ok: boolean; text: string } | null>(null)

  useEffect(() => {
    if (!copyNotice) return
    const timer = setTimeout(() => setCopyNotice(null), COPY_NOTICE_MS)
    return () => clearTimeout(timer)
  }, [copyNotice])

  // An invite needs the server's hasAccess with an active subscription (the server checks again).
  const allowed = isActive(subscription.data)

  const create = async () => {
    setError(null)
    setCreating(true)
    try {
      const result = await createInvite()
      if (!result.success || !result.data) {
        // No answer at all (network down) is the unexpected case; a server refusal says why.
        setError(
          result.status === undefined
            ? 'An unexpected error occurred while creating the invite'
            : (result.error ?? 'Failed to create Discord invite'),
        )
        return
      }
      setInvite(result.data)
      await queryClient.invalidateQueries({ queryKey: communityKeys.status })
    } catch {
      setError('An unexpected error occurred while creating the invite')
    } finally {
      setCreating(false)
    }
  }

  const copy = async () => {
    if (!invite) return
    try {
      await navigator.clipboard.writeText(invite.inviteUrl)
      setCopyNotice({ ok: true, text: 'Discord invite link copied to clipboard!' })
    } catch {
      setCopyNotice({ ok: false, text: 'Failed to copy invite link' })
    }
  }

  return (
    <div className="max-w-2xl space-y-6">
      {notice ? <Alert tone={notice.tone}>{notice.text}</Alert> : null}
      {status.data?.connectAvailable ? (
        <section
          aria-labelledby="discord-connect-heading"
          className="rounded-2xl border border-slate-800 bg-slate-900/70 p-6"
        >
          <h2 id="discord-connect-heading" className="text-lg font-semibold text-white">
            Your Discord account
          </h2>
          <div className="mt-3">
            <DiscordConnection />
          </div>
        </section>
      ) : null}
      <section
        aria-labelledby="discord-heading"
        className="rounded-2xl border border-slate-800 bg-slate-900/70 p-6"
      >
        <h2 id="discord-heading" className="text-lg font-semibold text-white">
          Join the EdgeClub Discord
        </h2>
        <p className="mt-1 text-sm text-slate-300">
          Live picks, signals and broadcasts happen in our private server. Your invite works once and is tied
          to your Discord username{status.data?.discordUsername ? ` (${status.data.discordUsername})` : ''}.
        </p>
        {status.data && status.data.state !== 'unlinked' ? (
          <p className="mt-3 text-sm">
            <span className="text-slate-400">Discord status: </span>
            <span className="font-semibold text-white">{stateLabels[status.data.state]}</span>
            {status.data.roleGranted ? (
              <span className="ml-2 text-emerald-300">· Member role granted</span>
            ) : null}
          </p>
        ) : null}
        <div className="mt-5 space-y-4">
          {error ? <Alert tone="error">{error}</Alert> : null}
          {copyNotice ? <Alert tone={copyNotice.ok ? 'success' : 'error'}>{copyNotice.text}</Alert> : null}
          {status.data?.inServer && !invite ? (
            <div className="space-y-2 rounded-xl bg-emerald-400/10 p-4 text-sm">
              <p className="text-lg font-semibold text-emerald-200">You&apos;re in</p>
              <p className="text-slate-200">
                You are in the EdgeClub Discord
                {status.data.roleGranted ? ' with the roles your plan grants' : ''}. Open Discord to join the
                conversation.
              </p>
            </div>
          ) : invite ? (
            <div className="space-y-4">
              <dl className="grid gap-3 rounded-xl bg-slate-950 p-4 text-sm sm:grid-cols-2">
                <div className="sm:col-span-2">
                  <dt className="text-slate-400">Invite link</dt>
                  <dd className="break-all font-mono text-emerald-200">{invite.inviteUrl}</dd>
                </div>
                <div>
                  <dt className="text-slate-400">For</dt>
                  <dd className="text-white">{invite.targetUsername}</dd>
                </div>
                <div>
                  <dt className="text-slate-400">Expires</dt>
                  <dd className="text-white">{formatMoment(invite.expiresAt)}</dd>
                </div>
                <div>
                  <dt className="text-slate-400">Uses</dt>
                  <dd className="text-white">
                    {invite.maxUses === 1 ? 'Single use' : `${invite.maxUses} uses`}
                  </dd>
                </div>
              </dl>
              <div className="flex flex-wrap gap-3">
                <Button onClick={copy}>Copy Invite Link</Button>
                <a
                  href={invite.inviteUrl}
                  target="_blank"
                  rel="noreferrer"
                  className={buttonClasses('secondary')}
                >
                  Join Discord
                </a>
                <Button variant="ghost" onClick={() => setInvite(null)}>
                  Create New Invite
                </Button>
              </div>
            </div>
          ) : allowed ? (
            <Button onClick={create} disabled={creating}>
              {creating ? 'Creating Invite...' : 'Create Discord Invite'}
            </Button>
          ) : (
            <div className="flex flex-wrap items-center gap-4">
              <Button disabled>Subscription Required</Button>
              <Link to="?tab=subscription" className="text-sm font-semibold text-emerald-300 hover:underline">
                View plans
              </Link>
            </div>
          )}
        </div>
      </section>
    </div>
  )
}
