import { discordConnectMessages } from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useState } from 'react'
import { Button } from '../../components/ui/button'
import { Alert } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import { useSubscriptionStatus } from '../../lib/subscription-status-api'
import { communityKeys, disconnectDiscord, startDiscordConnect, useDiscordStatus } from './community-api'

/**
 * Connect Discord: the member proves which Discord account is theirs on Discord's own consent page,
 * and (with an active plan) comes back in the server with the member role. Connected: the account,
 * Join the Server when they are not in it yet, and Disconnect. Shown in the Community tab and
 * in Settings.
 */
export function DiscordConnection() {
  const queryClient = useQueryClient()
  const status = useDiscordStatus()
  const subscription = useSubscriptionStatus()
  const [busy, setBusy] = useState<'connect' | 'disconnect' | null>(null)
  const [confirming, setConfirming] = useState(false)
  const [result, setResult] = useState<{ tone: 'success' | 'error'; text: string } | null>(null)

  const data = status.data
  if (!data?.connectAvailable) return null
  const connection = data.connection

  // Off to Discord's consent page; Discord sends the member back to the return page afterwards.
  const connect = async () => {
    setResult(null)
    setBusy('connect')
    const started = await startDiscordConnect()
    if (started.success && started.data) {
      window.location.assign(started.data.authorizeUrl)
      return
    }
    setBusy(null)
    setResult({
      tone: 'error',
      text:
        started.status === undefined
          ? discordConnectMessages.unreachable
          : (started.error ?? discordConnectMessages.discordDown),
    })
  }

  const disconnect = async () => {
    setBusy('disconnect')
    const done = await disconnectDiscord()
    setBusy(null)
    setConfirming(false)
    setResult(
      done.success
        ? {
            tone: 'success',
            text: done.message ?? discordConnectMessages.disconnected(connection?.username ?? ''),
          }
        : { tone: 'error', text: done.error ?? 'Could not disconnect Discord' },
    )
    await queryClient.invalidateQueries({ queryKey: communityKeys.status })
  }

  const inServer = data.state === 'joined' && data.roleGranted
  const canJoin = Boolean(subscription.data?.hasAccess) && !inServer && data.state !== 'banned'

  return (
    <div className="space-y-4">
      {result ? <Alert tone={result.tone}>{result.text}</Alert> : null}
      {connection ? (
        <>
          <p className="text-sm text-slate-300">
            Connected as <strong className="text-white">{connection.username}</strong>
            <span className="ml-2 rounded-full bg-emerald-400/10 px-2 py-0.5 text-xs text-emerald-300">
              verified
            </span>
          </p>
          {confirming ? (
            <fieldset className="flex flex-wrap items-center gap-3">
              <legend className="sr-only">Confirm disconnecting Discord</legend>
              <p className="text-sm text-slate-200">
                Disconnect {connection.username}? It loses the member role.
              </p>
              <Button variant="danger" onClick={disconnect} disabled={busy !== null}>
                {busy === 'disconnect' ? 'Disconnecting...' : 'Yes, disconnect'}
              </Button>
              <Button variant="ghost" onClick={() => setConfirming(false)} disabled={busy !== null}>
                Keep it
              </Button>
            </fieldset>
          ) : (
            <div className="flex flex-wrap gap-3">
              {canJoin ? (
                <Button onClick={connect} disabled={busy !== null}>
                  {busy === 'connect' ? 'Opening Discord...' : 'Join the Server'}
                </Button>
              ) : null}
              <Button variant="secondary" onClick={() => setConfirming(true)} disabled={busy !== null}>
                Disconnect
              </Button>
            </div>
          )}
        </>
      ) : (
        <>
          <p className="text-sm text-slate-300">
            Sign in with Discord to prove which account is yours. With an active plan you are added to the
            server with the member role in the same step.
          </p>
          {data.verificationRequired ? (
            <p className="text-sm text-amber-200">{discordConnectMessages.verificationRequired}</p>
          ) : null}
          <Button onClick={connect} disabled={busy !== null}>
            {busy === 'connect' ? 'Opening Discord...' : 'Connect Discord'}
          </Button>
        </>
      )}
    </div>
  )
}

/** Settings' panel for the connected Discord account (nothing when Connect Discord is not offered). */
export function DiscordSettingsPanel() {
  const status = useDiscordStatus()
  if (!status.data?.connectAvailable) return null
  return (
    <Panel title="Discord account" description="The Discord account that receives your member role.">
      <DiscordConnection />
    </Panel>
  )
}
