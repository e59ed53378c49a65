import type { ReactNode } from 'react'

export function Container({ children, className = '' }: { children: ReactNode; className?: string }) {
  return <div className={`mx-auto w-full max-w-6xl px-4 sm:px-6 lg:px-8 ${className}`}>{children}</div>
}

export function Section({
  id,
  title,
  eyebrow,
  intro,
  children,
  className = '',
}: {
  id?: string
  title: string
  eyebrow?: string
  intro?: ReactNode
  children: ReactNode
  className?: string
}) {
  const headingId = id ? `${id}-heading` : undefined
  return (
    <section id={id} aria-labelledby={headingId} className={`py-16 sm:py-20 ${className}`}>
      <Container>
        <div className="mx-auto max-w-2xl text-center">
          {eyebrow ? (
            <p className="text-sm font-semibold uppercase tracking-wider text-emerald-300">{eyebrow}</p>
          ) : null}
          <h2 id={headingId} className="mt-2 text-3xl font-bold tracking-tight text-white sm:text-4xl">
            {title}
          </h2>
          {intro ? <p className="mt-4 text-base text-slate-300 sm:text-lg">{intro}</p> : null}
        </div>
        <div className="mt-10">{children}</div>
      </Container>
    </section>
  )
}

export function Card({ children, className = '' }: { children: ReactNode; className?: string }) {
  return (
    <div className={`rounded-2xl border border-slate-800 bg-slate-900/70 p-6 ${className}`}>{children}</div>
  )
}

export function Badge({
  children,
  tone = 'emerald',
}: {
  children: ReactNode
  tone?: 'emerald' | 'amber' | 'sky'
}) {
  const tones = {
    emerald: 'bg-emerald-400 text-slate-950',
    amber: 'bg-amber-300 text-slate-950',
    sky: 'bg-sky-300 text-slate-950',
  }
  return (
    <span className={`inline-block rounded-full px-3 py-1 text-xs font-bold tracking-wide ${tones[tone]}`}>
      {children}
    </span>
  )
}

export function PageHero({ title, intro }: { title: string; intro: ReactNode }) {
  return (
    <div className="border-b border-slate-800 bg-gradient-to-b from-slate-900 to-slate-950 py-14 sm:py-20">
      <Container className="text-center">
        <h1 className="text-4xl font-extrabold tracking-tight text-white sm:text-5xl">{title}</h1>
        <p className="mx-auto mt-4 max-w-2xl text-lg text-slate-300">{intro}</p>
      </Container>
    </div>
  )
}
