import { type BroadcastResult, BroadcastResultSchema, BroadcastSchema } from '@edgeclub/shared'
import { useEffect, useRef, useState } from 'react'
import { buttonClasses } from '../../components/ui/button'
import { failureText, Notice, type NoticeState } from '../../components/ui/console'
import { Alert, Field, TextArea, TextField } from '../../components/ui/field'
import { Panel } from '../../components/ui/panel'
import { zodFieldErrors } from '../../lib/form-errors'
import { act, useDiscordHealth } from './admin-api'

/** How the answer says what went out, channel by channel. */
function sentText(data: BroadcastResult): string {
  const members = (count: number | null) => `${count ?? 0} ${count === 1 ? 'member' : 'members'}`
  const parts = data.deliveries.map((delivery) =>
    delivery.channel === 'email'
      ? `emailed to ${members(delivery.recipients)}`
      : delivery.channel === 'telegram'
        ? `queued on Telegram for ${members(delivery.recipients)}`
        : 'posted to Discord',
  )
  return `Broadcast sent: ${parts.join(' and ')}.`
}

export function BroadcastSection() {
  // The identity of the broadcast being composed: sending it twice (a double click, a retry after a
  // lost answer) is refused by the server as already sent. A new one is made once this one went out.
  const [broadcastId, setBroadcastId] = useState(() => crypto.randomUUID())
  const [title, setTitle] = useState('')
  const [message, setMessage] = useState('')
  const [alsoEmail, setAlsoEmail] = useState(false)
  const [alsoTelegram, setAlsoTelegram] = useState(false)
  const [errors, setErrors] = useState<Record<string, string>>({})
  const [confirming, setConfirming] = useState(false)
  const [sending, setSending] = useState(false)
  const [notice, setNotice] = useState<NoticeState>(null)
  const cancelRef = useRef<HTMLButtonElement>(null)
  const reviewRef = useRef<HTMLButtonElement>(null)
  const wasConfirming = useRef(false)
  // The question takes the Review button's place: focus goes to its safe answer, and back afterwards.
  useEffect(() => {
    if (confirming) cancelRef.current?.focus()
    else if (wasConfirming.current) reviewRef.current?.focus()
    wasConfirming.current = confirming
  }, [confirming])
  const health = useDiscordHealth()

  const review = () => {
    const parsed = BroadcastSchema.safeParse({
      title: title.trim() || undefined,
      message,
      alsoEmail,
      alsoTelegram,
    })
    if (!parsed.success) {
      setErrors(zodFieldErrors(parsed.error))
      return
    }
    setConfirming(true)
  }
  const send = async () => {
    setNotice(null)
    setSending(true)
    try {
      const { data } = await act('/admin/broadcast', 'POST', BroadcastResultSchema, {
        broadcastId,
        title: title.trim() || undefined,
        message,
        alsoEmail,
        alsoTelegram,
      })
      setNotice({ tone: 'success', text: sentText(data) })
      setBroadcastId(crypto.randomUUID())
      setTitle('')
      setMessage('')
      setAlsoEmail(false)
      setAlsoTelegram(false)
    } catch (error) {
      setNotice({ tone: 'error', text: failureText(error, 'The broadcast failed') })
    } finally {
      setSending(false)
      setConfirming(false)
    }
  }

  return (
    <div className="grid gap-6 lg:grid-cols-2">
      <Panel title="New announcement">
        <div className="space-y-4">
          <Notice notice={notice} />
          <TextField
            id="broadcast-title"
            label="Title (optional)"
            error={errors.title}
            value={title}
            maxLength={120}
            onChange={(e) => {
              setTitle(e.target.value)
              setConfirming(false)
            }}
          />
          <Field
            id="broadcast-message"
            label="Message"
            error={errors.message}
            hint={`${message.length}/1800`}
          >
            <TextArea
              id="broadcast-message"
              rows={6}
              value={message}
              error={errors.message}
              hasHint
              onChange={(e) => {
                setMessage(e.target.value)
                setErrors({})
                setConfirming(false)
              }}
            />
          </Field>
          <label className="flex items-center gap-2 text-sm text-slate-200">
            <input
              type="checkbox"
              className="h-4 w-4 accent-emerald-400"
              checked={alsoEmail}
              onChange={(e) => {
                setAlsoEmail(e.target.checked)
                setConfirming(false)
              }}
            />
            Also email members who opted in to updates
          </label>
          <label className="flex items-center gap-2 text-sm text-slate-200">
            <input
              type="checkbox"
              className="h-4 w-4 accent-emerald-400"
              checked={alsoTelegram}
              onChange={(e) => {
                setAlsoTelegram(e.target.checked)
                setConfirming(false)
              }}
            />
            Also send it by the Telegram bot to every member who connected Telegram
          </label>
          {message.trim() ? (
            <div className="rounded-xl bg-slate-950 p-4 text-sm text-slate-200">
              <p className="mb-1 text-xs uppercase tracking-wide text-slate-400">Preview in #announcements</p>
              {title.trim() ? <p className="font-bold text-white">{title.trim()}</p> : null}
              <p className="whitespace-pre-wrap">{message}</p>
            </div>
          ) : null}
          {confirming ? (
            <fieldset
              aria-labelledby="broadcast-question"
              className="flex flex-wrap items-center gap-2 rounded-lg border border-amber-400/40 bg-amber-500/10 px-3 py-2"
            >
              <span id="broadcast-question" className="w-full text-sm text-amber-100">
                Post this in the Discord announcements channel
                {alsoEmail ? ', email it to every member who opted in to updates' : ''}
                {alsoTelegram ? ', send it to every member on Telegram' : ''}? It cannot be unsent from here.
              </span>
              <button
                type="button"
                className={buttonClasses('danger', 'px-3 py-1.5')}
                onClick={send}
                disabled={sending}
              >
                {sending ? 'Sending...' : 'Yes, send'}
              </button>
              <button
                ref={cancelRef}
                type="button"
                className={buttonClasses('ghost', 'px-3 py-1.5')}
                onClick={() => setConfirming(false)}
                disabled={sending}
              >
                Cancel
              </button>
            </fieldset>
          ) : (
            <button ref={reviewRef} type="button" className={buttonClasses('primary')} onClick={review}>
              Review Broadcast
            </button>
          )}
        </div>
      </Panel>
      <Panel
        title="Discord connection"
        actions={
          <button
            type="button"
            className={buttonClasses('ghost', 'px-3 py-1.5')}
            onClick={() => health.refetch()}
            disabled={health.isFetching}
          >
            {health.isFetching ? 'Checking...' : 'Check again'}
          </button>
        }
      >
        {health.isPending ? <p className="text-sm text-slate-300">Checking...</p> : null}
        {health.isError ? <Alert tone="error">{health.error.message}</Alert> : null}
        {health.data ? (
          <div className="space-y-3 text-sm">
            <ul className="space-y-1">
              {health.data.checks.map((check) => (
                <li key={check.name} className={check.ok ? 'text-emerald-200' : 'text-rose-200'}>
                  {check.ok ? '✓' : '✗'} {check.name}: {check.detail}
                </li>
              ))}
            </ul>
            <p className="text-slate-300">
              Drift: {health.data.drift.missingRole} members with access but no role,{' '}
              {health.data.drift.extraRole} roles without access (the next sync repairs them).
            </p>
          </div>
        ) : null}
      </Panel>
    </div>
  )
}
