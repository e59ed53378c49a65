import { type ReactNode, useId } from 'react'

/** A titled card section: its heading names the region (screen readers and tests find it by title). */
export function Panel({
  title,
  description,
  actions,
  children,
}: {
  title: string
  /** A line under the title saying what the section is for. */
  description?: ReactNode
  /** Buttons beside the title (e.g. New Plan). */
  actions?: ReactNode
  children: ReactNode
}) {
  const headingId = `panel-${useId().replace(/[^\w-]/g, '')}`
  return (
    <section
      aria-labelledby={headingId}
      className="rounded-2xl border border-slate-800 bg-slate-900/70 p-4 sm:p-6"
    >
      <div className="flex flex-wrap items-center justify-between gap-3">
        <h2 id={headingId} className="text-lg font-semibold text-white">
          {title}
        </h2>
        {actions}
      </div>
      {description ? <p className="mt-1 text-sm text-slate-400">{description}</p> : null}
      <div className={description ? 'mt-5' : 'mt-4'}>{children}</div>
    </section>
  )
}
