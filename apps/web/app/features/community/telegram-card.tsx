import { formatDate, type TelegramConnect, telegramMessages } from '@edgeclub/shared'
import { useQueryClient } from '@tanstack/react-query'
import { useEffect, useState } from 'react'
import { Link } from 'react-router'
import { Button, buttonClasses } from '../../components/ui/button'
import { Alert } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import {
  connectTelegram,
  disconnectTelegram,
  saveTelegramSettings,
  telegramKeys,
  useTelegramStatus,
} from './telegram-api'

type Notice = { tone: 'success' | 'error'; text: string } | null

/** While a Connect Telegram link is out, look for the connection this often. */
const CONNECT_POLL_MS = 3_000

/**
 * Connect Telegram: a one-time link to the bot; the member presses Start in Telegram and the bot ties
 * that account to them. Connected: the chats their plan opens (in, or their personal join link),
 * reminders by bot message, and Disconnect. Shown in the Community tab and in Settings.
 */
export function TelegramConnection({ showChats = true }: { showChats?: boolean }) {
  const queryClient = useQueryClient()
  const status = useTelegramStatus()
  const [link, setLink] = useState<TelegramConnect | null>(null)
  const [busy, setBusy] = useState<'connect' | 'disconnect' | 'settings' | null>(null)
  const [confirming, setConfirming] = useState(false)
  const [notice, setNotice] = useState<Notice>(null)
  const data = status.data

  // The member is in Telegram pressing Start: look again until the account shows up here.
  useEffect(() => {
    if (!link || data?.connected) return
    const timer = setInterval(() => {
      void queryClient.invalidateQueries({ queryKey: telegramKeys.status })
    }, CONNECT_POLL_MS)
    return () => clearInterval(timer)
  }, [link, data?.connected, queryClient])

  if (!data?.configured) return null

  const connect = async () => {
    setNotice(null)
    setBusy('connect')
    const started = await connectTelegram()
    setBusy(null)
    if (started.success && started.data) setLink(started.data)
    else setNotice({ tone: 'error', text: started.error ?? telegramMessages.notConfigured })
  }

  const disconnect = async () => {
    setBusy('disconnect')
    const done = await disconnectTelegram()
    setBusy(null)
    setConfirming(false)
    setLink(null)
    setNotice(
      done.success
        ? { tone: 'success', text: done.message ?? telegramMessages.disconnected(done.data?.username ?? '') }
        : { tone: 'error', text: done.error ?? 'Could not disconnect Telegram' },
    )
    await queryClient.invalidateQueries({ queryKey: telegramKeys.status })
  }

  const toggleReminders = async (reminders: boolean) => {
    setBusy('settings')
    const saved = await saveTelegramSettings({ reminders })
    setBusy(null)
    if (saved.success && saved.data) queryClient.setQueryData(telegramKeys.status, saved.data)
    else setNotice({ tone: 'error', text: saved.error ?? 'Could not save' })
  }

  if (data.banned) return <Alert tone="error">{telegramMessages.banned}</Alert>

  if (!data.connected)
    return (
      <div className="space-y-4">
        {notice ? <Alert tone={notice.tone}>{notice.text}</Alert> : null}
        <p className="text-sm text-slate-300">
          Tie your Telegram account to your membership: the EdgeClub bot then lets you into the chats your
          plan opens, and out when it ends.
        </p>
        {link ? (
          <div className="space-y-3 rounded-xl bg-slate-950 p-4 text-sm">
            <p className="text-slate-200">{telegramMessages.connectHint}</p>
            <a href={link.url} target="_blank" rel="noreferrer" className={buttonClasses('primary')}>
              Open the EdgeClub bot
            </a>
            <p className="text-slate-400">
              Waiting for you to press Start… (the link expires{' '}
              {formatDate(link.expiresAt, { timeStyle: 'short' })})
            </p>
          </div>
        ) : (
          <Button onClick={connect} disabled={busy !== null}>
            {busy === 'connect' ? 'Making your link...' : 'Connect Telegram'}
          </Button>
        )}
      </div>
    )

  return (
    <div className="space-y-4">
      {notice ? <Alert tone={notice.tone}>{notice.text}</Alert> : null}
      <p className="text-sm text-slate-300">
        Connected as <strong className="text-white">{data.username}</strong>
      </p>
      {showChats ? (
        data.chats.length > 0 ? (
          <ul className="space-y-2" aria-label="Your Telegram chats">
            {data.chats.map((chat) => (
              <li
                key={chat.title}
                className="flex flex-wrap items-center justify-between gap-3 rounded-xl bg-slate-950 px-4 py-3 text-sm"
              >
                <span className="font-semibold text-white">{chat.title}</span>
                {chat.member ? (
                  <span className="text-emerald-300">You&apos;re in</span>
                ) : chat.inviteLink ? (
                  <a
                    href={chat.inviteLink}
                    target="_blank"
                    rel="noreferrer"
                    className={buttonClasses('secondary')}
                    aria-label={`Join ${chat.title}`}
                  >
                    Join
                  </a>
                ) : (
                  <span className="text-slate-400">Your link is on its way from the bot</span>
                )}
              </li>
            ))}
          </ul>
        ) : (
          <p className="text-sm text-slate-400">
            Your plan does not open any Telegram chat.{' '}
            <Link to="?tab=subscription" className="font-semibold text-emerald-300 hover:underline">
              View plans
            </Link>
          </p>
        )
      ) : null}
      <label className="flex items-center gap-3 text-sm text-slate-200">
        <input
          type="checkbox"
          checked={data.reminders}
          disabled={busy !== null}
          onChange={(event) => void toggleReminders(event.target.checked)}
          className="h-4 w-4 rounded border-slate-600 bg-slate-950 text-emerald-400"
        />
        {telegramMessages.reminders}
      </label>
      {confirming ? (
        <fieldset className="flex flex-wrap items-center gap-3">
          <legend className="sr-only">Confirm disconnecting Telegram</legend>
          <p className="text-sm text-slate-200">Disconnect {data.username}? It leaves the EdgeClub chats.</p>
          <Button variant="danger" onClick={disconnect} disabled={busy !== null}>
            {busy === 'disconnect' ? 'Disconnecting...' : 'Yes, disconnect'}
          </Button>
          <Button variant="ghost" onClick={() => setConfirming(false)} disabled={busy !== null}>
            Keep it
          </Button>
        </fieldset>
      ) : (
        <Button variant="secondary" onClick={() => setConfirming(true)} disabled={busy !== null}>
          Disconnect Telegram
        </Button>
      )}
    </div>
  )
}

/** The Community tab's Telegram card (nothing when the club has no Telegram bot). */
export function TelegramCard() {
  const status = useTelegramStatus()
  if (!status.data?.configured) return null
  return (
    <Panel title="Telegram" description="The EdgeClub chats on Telegram your plan opens.">
      <TelegramConnection />
    </Panel>
  )
}

/** Settings' panel for the connected Telegram account. */
export function TelegramSettingsPanel() {
  const status = useTelegramStatus()
  if (!status.data?.configured) return null
  return (
    <Panel title="Telegram account" description="The Telegram account the EdgeClub bot knows as yours.">
      <TelegramConnection showChats={false} />
    </Panel>
  )
}
