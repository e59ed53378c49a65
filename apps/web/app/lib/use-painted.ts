import { useEffect, useState } from 'react'
import { afterNextPaint } from './after-first-screen'

/**
 * True from right after the screen has been painted with `shown` true, and from then on (a later
 * false does not take it back): for work a screen starts once it is on view, not ahead of it (on a
 * phone every request ahead of the first screen holds it back).
 */
export function usePainted(shown: boolean): boolean {
  const [painted, setPainted] = useState(false)
  useEffect(() => {
    if (!shown || painted) return
    return afterNextPaint(() => setPainted(true))
  }, [shown, painted])
  return painted
}
