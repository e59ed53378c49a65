/** Widgets of the consoles (admin, signals): inline inputs, notices, confirm buttons, display helpers. */
import { formatDay, formatMoment, formatMoney } from '@edgeclub/shared'
import { type QueryKey, useQueryClient } from '@tanstack/react-query'
import { type ReactNode, useEffect, useId, useRef, useState } from 'react'
import { buttonClasses } from './button'
import { Alert, inputClasses } from './field'

/** The form input look without its full width and with less height, for inline controls (add a w-*). */
export const smallInput = inputClasses.replace('block w-full', 'block').replace('py-2.5', 'py-1.5')

export type NoticeState = { tone: 'success' | 'error'; text: string } | null

/** Runs an operator action that resolves to its outcome in words, reloads what changed, then shows the outcome. */
export type RunAction = (work: () => Promise<string>) => Promise<void>

/** The longest an action's outcome waits for the reload of what it changed. */
const RELOAD_WAIT_MS = 5_000

/**
 * A console's notice and the runner of its actions: `run` does the work, reloads the queries under
 * `changes` (`reload`, also for a console's own saves), and only then says how it went (success or the
 * error's text). Said before the reload, the outcome told the operator "done" while the page still
 * showed the old state; the reload's re-render (a question closing, a button appearing for the new
 * role) then moved the controls under the next click, which landed on whatever had taken their place.
 */
export function useConsoleAction(changes: QueryKey) {
  const queryClient = useQueryClient()
  const [notice, setNotice] = useState<NoticeState>(null)
  const reload = () => queryClient.invalidateQueries({ queryKey: changes })
  const run: RunAction = async (work) => {
    setNotice(null)
    let outcome: NoticeState
    try {
      outcome = { tone: 'success', text: await work() }
    } catch (error) {
      outcome = { tone: 'error', text: failureText(error) }
    }
    // A server that stopped answering must not keep the outcome from the operator: it waits for the
    // reload at most RELOAD_WAIT_MS.
    let waited: ReturnType<typeof setTimeout> | undefined
    await Promise.race([
      reload(),
      new Promise<void>((resolve) => {
        waited = setTimeout(resolve, RELOAD_WAIT_MS)
      }),
    ])
    clearTimeout(waited)
    setNotice(outcome)
  }
  return { notice, setNotice, run, reload }
}

/** An action's outcome; scrolled into view, since on a phone the action may be far below it. */
export function Notice({ notice }: { notice: NoticeState }) {
  const ref = useRef<HTMLDivElement>(null)
  useEffect(() => {
    if (notice) ref.current?.scrollIntoView?.({ block: 'nearest' })
  }, [notice])
  return notice ? (
    <div ref={ref} className="scroll-mt-4">
      <Alert tone={notice.tone}>{notice.text}</Alert>
    </div>
  ) : null
}

/** The error text of a failed admin action. */
export const failureText = (error: unknown, fallback = 'The action failed') =>
  error instanceof Error && error.message ? error.message : fallback

/**
 * A destructive action asks once more before it runs. Focus moves to the question's Cancel (the
 * safe choice) and comes back to the button afterwards, so the keyboard never loses its place.
 * `children` are extra fields of the question (a refund's amount, for instance); `onConfirm` may
 * return false to keep the question open (e.g. when those fields are invalid).
 */
export function ConfirmButton({
  label,
  confirmLabel,
  question,
  onConfirm,
  variant = 'secondary',
  disabled = false,
  children,
  context,
}: {
  label: string
  confirmLabel: string
  question: string
  /** Resolving to false keeps the question open. */
  onConfirm: () => unknown
  variant?: 'secondary' | 'danger' | 'ghost' | 'primary'
  disabled?: boolean
  children?: ReactNode
  /** Said after the label to screen readers when several rows have the same button (e.g. the member). */
  context?: string
}) {
  const [asking, setAsking] = useState(false)
  const [busy, setBusy] = useState(false)
  const questionId = useId()
  const triggerRef = useRef<HTMLButtonElement>(null)
  const cancelRef = useRef<HTMLButtonElement>(null)
  const restoreFocus = useRef(false)

  useEffect(() => {
    if (asking) cancelRef.current?.focus()
    else if (restoreFocus.current) {
      restoreFocus.current = false
      triggerRef.current?.focus()
    }
  }, [asking])

  const close = () => {
    restoreFocus.current = true
    setAsking(false)
  }

  if (!asking) {
    return (
      <button
        ref={triggerRef}
        type="button"
        className={buttonClasses(variant, 'px-3 py-1.5')}
        onClick={() => setAsking(true)}
        disabled={disabled}
      >
        {label}
        {context ? <span className="sr-only"> {context}</span> : null}
      </button>
    )
  }
  return (
    <fieldset
      aria-labelledby={questionId}
      className="flex flex-wrap items-end gap-2 rounded-lg border border-amber-400/40 bg-amber-500/10 px-3 py-2"
    >
      <span id={questionId} className="w-full text-sm text-amber-100">
        {question}
      </span>
      {children}
      <button
        type="button"
        className={buttonClasses('danger', 'px-3 py-1.5')}
        disabled={busy}
        onClick={async () => {
          setBusy(true)
          let keepOpen = false
          try {
            keepOpen = (await onConfirm()) === false
          } finally {
            setBusy(false)
            if (!keepOpen) close()
          }
        }}
      >
        {busy ? 'Working...' : confirmLabel}
      </button>
      <button
        ref={cancelRef}
        type="button"
        className={buttonClasses('ghost', 'px-3 py-1.5')}
        onClick={close}
        disabled={busy}
      >
        Cancel
      </button>
    </fieldset>
  )
}

export const money = (amount: number, currency = 'USD') => formatMoney(amount, currency)
/** "Nov 28, 2026", or a dash when there is no date. */
export const day = formatDay
/** "Nov 28, 2026, 3:05 PM", or a dash when there is no moment. */
export const moment = formatMoment
/** API words (past_due, partially_refunded) as people read them. */
export const words = (value: string) => value.replace(/_/g, ' ')

/** Who took the money: the filter options and the words the lists use. */
export const PROVIDERS = [
  { value: 'stripe', label: 'Card' },
  { value: 'crypto', label: 'Crypto' },
  { value: 'admin', label: 'Complimentary' },
]
export const providerLabel = (provider: string) =>
  PROVIDERS.find((item) => item.value === provider)?.label ?? provider
