import type { SignalView } from '@edgeclub/shared'
import { STATUS_TONES, statusLabel } from '../../lib/signal-text'

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
