import {
  PUSH_KIND_LABELS,
  PUSH_KINDS,
  type PushKind,
  type PushPreferences,
  pushMessages,
  SPORTS,
} from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { Button } from '../../components/ui/button'
import { Alert } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import {
  currentSubscription,
  pushKeys,
  pushSupported,
  savePreferences,
  turnOff,
  turnOn,
  usePushSettings,
} from './push-api'

type Notice = { tone: 'success' | 'error'; text: string } | null

const checkbox = 'h-4 w-4 rounded border-slate-600 bg-slate-950 text-emerald-400'

/**
 * Notifications in Settings: on or off for this browser, and what notifies (new picks, new trading
 * signals, results; the sports whose picks do). Each pick arrives as a notification even with the
 * site closed; tapping it opens the pick.
 */
export function NotificationsPanel() {
  const queryClient = useQueryClient()
  const settings = usePushSettings()
  const [choices, setChoices] = useState<PushPreferences | null>(null)
  const [endpoint, setEndpoint] = useState<string | null | undefined>(undefined)
  const [busy, setBusy] = useState(false)
  const [notice, setNotice] = useState<Notice>(null)
  const supported = pushSupported()

  useEffect(() => {
    if (settings.data && !choices) setChoices({ kinds: settings.data.kinds, sports: settings.data.sports })
  }, [settings.data, choices])
  useEffect(() => {
    if (!supported) return
    void currentSubscription()
      .then((found) => setEndpoint(found?.endpoint ?? null))
      .catch(() => setEndpoint(null))
  }, [supported])

  const on = Boolean(endpoint)
  const toggleKind = (kind: PushKind, checked: boolean) => {
    setNotice(null)
    setChoices((current) =>
      current
        ? { ...current, kinds: checked ? [...current.kinds, kind] : current.kinds.filter((k) => k !== kind) }
        : current,
    )
  }
  const toggleSport = (sport: (typeof SPORTS)[number], checked: boolean) => {
    setNotice(null)
    setChoices((current) =>
      current
        ? {
            ...current,
            sports: checked ? [...current.sports, sport] : current.sports.filter((s) => s !== sport),
          }
        : current,
    )
  }

  const run = async (action: () => Promise<Notice>) => {
    setBusy(true)
    setNotice(null)
    try {
      setNotice(await action())
    } finally {
      setBusy(false)
      void queryClient.invalidateQueries({ queryKey: pushKeys.settings })
    }
  }

  const enable = () =>
    run(async () => {
      if (!choices || choices.kinds.length === 0) return { tone: 'error', text: pushMessages.noKinds }
      const outcome = await turnOn(choices)
      if (!outcome.ok) return { tone: 'error', text: outcome.message }
      setEndpoint((await currentSubscription())?.endpoint ?? null)
      return { tone: 'success', text: pushMessages.subscribed }
    })
  const disable = () =>
    run(async () => {
      if (!endpoint) return null
      const outcome = await turnOff(endpoint)
      if (!outcome.ok) return { tone: 'error', text: outcome.message }
      setEndpoint(null)
      return { tone: 'success', text: pushMessages.unsubscribed }
    })
  const save = () =>
    run(async () => {
      if (!choices) return null
      const saved = await savePreferences(choices)
      return saved.success
        ? { tone: 'success', text: pushMessages.saved }
        : { tone: 'error', text: saved.error ?? 'Could not save your choices' }
    })

  return (
    <Panel
      title="Notifications"
      description="Get each new pick or signal, and its result, as a notification on this device within a second of its publication, even with EdgeClub closed."
    >
      <div className="space-y-4">
        {notice ? <Alert tone={notice.tone}>{notice.text}</Alert> : null}
        {!supported ? (
          <Alert tone="info">This browser cannot show notifications from websites.</Alert>
        ) : settings.isError ? (
          <Alert tone="error">{settings.error.message}</Alert>
        ) : !choices || endpoint === undefined ? (
          <p className="text-sm text-slate-300">Loading your notification settings...</p>
        ) : (
          <>
            <p className="text-sm text-slate-200">
              {on ? 'Notifications are on for this device.' : 'Notifications are off for this device.'}
            </p>
            <fieldset className="space-y-2">
              <legend className="text-sm font-medium text-white">Notify me of</legend>
              {PUSH_KINDS.map((kind) => (
                <label key={kind} className="flex items-center gap-3 text-sm text-slate-200">
                  <input
                    type="checkbox"
                    className={checkbox}
                    checked={choices.kinds.includes(kind)}
                    disabled={busy}
                    onChange={(event) => toggleKind(kind, event.target.checked)}
                  />
                  {PUSH_KIND_LABELS[kind]}
                </label>
              ))}
            </fieldset>
            <fieldset className="space-y-2">
              <legend className="text-sm font-medium text-white">Sports (none chosen: every sport)</legend>
              <div className="flex flex-wrap gap-x-5 gap-y-2">
                {SPORTS.map((sport) => (
                  <label key={sport} className="flex items-center gap-2 text-sm text-slate-200">
                    <input
                      type="checkbox"
                      className={checkbox}
                      checked={choices.sports.includes(sport)}
                      disabled={busy}
                      onChange={(event) => toggleSport(sport, event.target.checked)}
                    />
                    {sport}
                  </label>
                ))}
              </div>
            </fieldset>
            <div className="flex flex-wrap gap-3">
              {on ? (
                <>
                  <Button onClick={() => void save()} disabled={busy}>
                    Save notification choices
                  </Button>
                  <Button variant="secondary" onClick={() => void disable()} disabled={busy}>
                    Turn off notifications
                  </Button>
                </>
              ) : (
                <Button onClick={() => void enable()} disabled={busy}>
                  {busy ? 'Turning on...' : 'Turn on notifications'}
                </Button>
              )}
            </div>
          </>
        )}
      </div>
    </Panel>
  )
}
