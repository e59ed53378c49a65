import { useEffect } from 'react'

/**
 * Runs each step in a task of its own once the component has mounted. For work that is slow the
 * first time on a page and needed soon, such as making the first number or date formatter (the
 * browser loads its locale data then): done while data is on its way, in short separate tasks, it
 * neither holds the page up for long nor delays showing the data. Pass a module-level array.
 */
export function useWarmUp(steps: readonly (() => unknown)[]): void {
  useEffect(() => {
    const timers = steps.map((step) => setTimeout(step))
    return () => {
      for (const timer of timers) clearTimeout(timer)
    }
  }, [steps])
}
