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
