/** How long into a page's life the work that must not compete with its first screen waits, at the least. */
export const FIRST_SCREEN_MS = 2_000

/**
 * Runs `run` once the page's first screen is up: at least FIRST_SCREEN_MS after the page opened,
 * when the browser is idle (within a second). For work a member does not wait for (a production
 * build's check of the API's answers, the dashboard's install manifest), which on a phone would
 * otherwise take bandwidth, connections and CPU from the first screen. Returns a cancel function.
 */
export function afterFirstScreen(run: () => void): () => void {
  const idle = globalThis as {
    requestIdleCallback?: (callback: () => void, options: { timeout: number }) => number
    cancelIdleCallback?: (handle: number) => void
  }
  let handle: number | undefined
  const timer = setTimeout(
    () => {
      if (idle.requestIdleCallback) handle = idle.requestIdleCallback(run, { timeout: 1_000 })
      else run()
    },
    Math.max(0, FIRST_SCREEN_MS - performance.now()),
  )
  return () => {
    clearTimeout(timer)
    if (handle !== undefined) idle.cancelIdleCallback?.(handle)
  }
}

/**
 * Runs `run` once, right after the browser has shown the frame being rendered now: for work that
 * should start at once but not ahead of the screen it belongs to (lib/use-painted.ts).
 * A page that paints no frames (a background tab) runs it within 100 ms anyway. Returns a cancel
 * function.
 */
export function afterNextPaint(run: () => void): () => void {
  let done = false
  const once = () => {
    if (done) return
    done = true
    cancelAnimationFrame(frame)
    clearTimeout(fallback)
    run()
  }
  // A frame's callbacks run before it is painted, and the paint reaches the screen a moment later:
  // the callback of the frame after it runs once it is there.
  let frame = requestAnimationFrame(() => {
    frame = requestAnimationFrame(() => setTimeout(once, 0))
  })
  const fallback = setTimeout(once, 100)
  return () => {
    done = true
    cancelAnimationFrame(frame)
    clearTimeout(fallback)
  }
}
