import type { SignalStatusLabel, SignalView } from '@edgeclub/shared'
import { statusLabel } from '@edgeclub/shared'

/** The badge colours of each status (text and background meet WCAG AA on the dark theme). */
const STATUS_TONES: Record<SignalStatusLabel, string> = {
  Live: 'bg-sky-400/15 text-sky-200 ring-sky-400/40',
  Won: 'bg-emerald-400/15 text-emerald-200 ring-emerald-400/40',
  Lost: 'bg-rose-400/15 text-rose-200 ring-rose-400/40',
  Push: 'bg-slate-400/15 text-slate-200 ring-slate-400/40',
  Closed: 'bg-amber-400/15 text-amber-100 ring-amber-400/40',
  Void: 'bg-slate-400/15 text-slate-300 ring-slate-400/40',
}

/** A signal's status as a badge: Live, Won, Lost, Push, Closed or Void. */
export function SignalStatusBadge({ signal }: { signal: Pick<SignalView, 'status' | 'result'> }) {
  const label = statusLabel(signal)
  return (
    <span
      className={`inline-flex items-center rounded-full px-2.5 py-0.5 text-xs font-semibold ring-1 ring-inset ${STATUS_TONES[label]}`}
    >
      {label}
    </span>
  )
}
