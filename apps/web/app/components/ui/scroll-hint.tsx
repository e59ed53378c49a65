import { type ReactNode, useEffect, useRef, useState } from 'react'

/** Which edges have more content behind them; null until measured (prerendered HTML, first render). */
type Edges = { left: boolean; right: boolean } | null

/**
 * Content wider than a phone (a table) that scrolls sideways, and says so: a line above it while
 * there is more to see, and a shade on each edge that hides columns. Until the browser has measured
 * it (prerendered HTML, before its script), it assumes a narrow screen overflows and a wide one does
 * not. The scrolling box is a labelled region that takes focus, so a keyboard can scroll it too.
 */
export function ScrollHint({
  label,
  className = '',
  children,
}: {
  /** Names the scrolling region for screen readers (e.g. the table's caption). */
  label: string
  /** Classes of the scrolling box (its border and corners). */
  className?: string
  children: ReactNode
}) {
  const box = useRef<HTMLElement>(null)
  const [edges, setEdges] = useState<Edges>(null)

  useEffect(() => {
    const element = box.current
    if (!element) return
    const measure = () => {
      const left = element.scrollLeft > 1
      const right = element.scrollLeft + element.clientWidth < element.scrollWidth - 1
      setEdges((before) => (before?.left === left && before.right === right ? before : { left, right }))
    }
    measure()
    element.addEventListener('scroll', measure, { passive: true })
    const resized = new ResizeObserver(measure)
    resized.observe(element)
    return () => {
      element.removeEventListener('scroll', measure)
      resized.disconnect()
    }
  }, [])

  // Before measuring: shown on narrow screens only (below md), where the tables overflow.
  const shown = (visible: boolean | undefined, before: string) =>
    edges === null ? before : visible ? '' : 'hidden'
  const scrolls = edges ? edges.left || edges.right : undefined

  return (
    <div>
      <p
        aria-hidden="true"
        className={`mb-2 text-right text-xs text-slate-400 ${shown(scrolls, 'md:hidden')}`}
      >
        Swipe sideways to see every column <span className="text-emerald-300">→</span>
      </p>
      <div className="relative">
        <section
          ref={box}
          aria-label={label}
          // biome-ignore lint/a11y/noNoninteractiveTabindex: a region that scrolls must be reachable by keyboard (WCAG 2.1.1)
          tabIndex={0}
          className={`overflow-x-auto ${className}`}
        >
          {children}
        </section>
        <span
          aria-hidden="true"
          className={`pointer-events-none absolute inset-y-0 left-0 w-8 rounded-l-2xl bg-gradient-to-r from-slate-950 to-transparent ${shown(edges?.left, 'hidden')}`}
        />
        <span
          aria-hidden="true"
          className={`pointer-events-none absolute inset-y-0 right-0 w-8 rounded-r-2xl bg-gradient-to-l from-slate-950 to-transparent ${shown(edges?.right, 'md:hidden')}`}
        />
      </div>
    </div>
  )
}
