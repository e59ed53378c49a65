import type { ReactNode } from 'react'

/** The frame of the sign-in screens. */
export function AuthCard({
  title,
  intro,
  children,
}: {
  title: string
  intro?: ReactNode
  children: ReactNode
}) {
  return (
    <div className="mx-auto w-full max-w-md px-4 py-12 sm:py-16">
      <div className="rounded-2xl border border-slate-800 bg-slate-900/80 p-6 shadow-xl sm:p-8">
        <h1 className="text-2xl font-bold text-white">{title}</h1>
        {intro ? <p className="mt-2 text-sm text-slate-300">{intro}</p> : null}
        <div className="mt-6">{children}</div>
      </div>
    </div>
  )
}
