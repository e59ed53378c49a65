import type { SignalView } from '@edgeclub/shared'
import {
  categoryLabel,
  describeSignal,
  formatMoment,
  KIND_LABELS,
  outcomeOf,
  shortHash,
  timingOf,
} from '@edgeclub/shared'
import { memo, type ReactNode } from 'react'
import { SignalStatusBadge } from './signal-status'

/**
 * One signal as a card: what it is (in full when the reader may see it, else sealed behind its
 * commitment), when it plays, and how it ended. `children` holds actions (the admin's settle and void).
 * A card renders again only when its signal does: the feed re-renders on every stream status and
 * announcement, and a refetched page keeps unchanged signals as the same objects (the query cache's
 * structural sharing), so twenty cards are not formatted again for each.
 */
export const SignalCard = memo(function SignalCard({
  signal,
  children,
}: {
  signal: SignalView
  children?: ReactNode
}) {
  const description = describeSignal(signal)
  // A sealed signal is named by what it is; its content is for members with access until it settles.
  const heading = description?.title ?? `Members-only ${signal.kind === 'pick' ? 'pick' : 'signal'}`
  return (
    <article aria-label={heading} className="rounded-2xl border border-slate-800 bg-slate-900/70 p-4 sm:p-5">
      <div className="flex flex-wrap items-start justify-between gap-2">
        <div className="min-w-0">
          <p className="text-xs font-semibold uppercase tracking-wide text-emerald-300">
            {KIND_LABELS[signal.kind]} · {description?.label ?? categoryLabel(signal.category)}
          </p>
          <h3 className="mt-1 text-lg font-semibold text-white">{heading}</h3>
        </div>
        <SignalStatusBadge signal={signal} />
      </div>
      {description ? (
        <>
          {description.call ? <p className="mt-2 font-medium text-slate-100">{description.call}</p> : null}
          <p className="mt-1 text-sm text-slate-300">
            {[description.stake, timingOf(signal)].filter(Boolean).join(' · ')}
          </p>
          {description.analysis ? (
            <p className="mt-3 whitespace-pre-line text-sm text-slate-300">{description.analysis}</p>
          ) : null}
        </>
      ) : (
        <>
          <p className="mt-2 text-sm text-slate-300">Sealed until it settles · {timingOf(signal)}</p>
          <p className="mt-1 text-xs text-slate-400">
            Commitment <span className="font-mono text-slate-300">{shortHash(signal.commitment)}</span>
          </p>
        </>
      )}
      <p className="mt-3 text-xs text-slate-400">
        Published {formatMoment(signal.publishedAt)}
        {signal.status !== 'open' ? (
          <>
            {' · '}
            <span className="font-semibold text-slate-200">{outcomeOf(signal)}</span>
            {signal.settledAt ? ` · ${formatMoment(signal.settledAt)}` : ''}
          </>
        ) : null}
      </p>
      {children}
    </article>
  )
})
