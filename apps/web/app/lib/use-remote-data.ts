import { useCallback, useEffect, useRef, useState } from 'react'

export type RemoteStatus = 'loading' | 'loaded' | 'error'

export interface RemoteData<T> {
  status: RemoteStatus
  data: T | undefined
  error: string | undefined
  /** Loads again; `silent` keeps the current status on screen (the 30-second price refresh). */
  reload: (options?: { silent?: boolean }) => void
}

/**
 * A small loader for the public pages, which must stay light (the landing page has a size budget);
 * the member and admin areas use TanStack Query.
 */
export function useRemoteData<T>(
  load: (signal: AbortSignal) => Promise<T>,
  options: { refreshMs?: number } = {},
): RemoteData<T> {
  const [state, setState] = useState<{
    status: RemoteStatus
    data: T | undefined
    error: string | undefined
  }>({
    status: 'loading',
    data: undefined,
    error: undefined,
  })
  const loadRef = useRef(load)
  loadRef.current = load
  const controllerRef = useRef<AbortController | undefined>(undefined)

  const reload = useCallback((reloadOptions: { silent?: boolean } = {}) => {
    controllerRef.current?.abort()
    const controller = new AbortController()
    controllerRef.current = controller
    if (!reloadOptions.silent) setState((previous) => ({ ...previous, status: 'loading' }))
    loadRef.current(controller.signal).then(
      (data) => {
        if (!controller.signal.aborted) setState({ status: 'loaded', data, error: undefined })
      },
      (error: unknown) => {
        if (controller.signal.aborted) return
        const message = error instanceof Error ? error.message : String(error)
        setState((previous) => ({ status: 'error', data: previous.data, error: message }))
      },
    )
  }, [])

  useEffect(() => {
    reload()
    return () => controllerRef.current?.abort()
  }, [reload])

  useEffect(() => {
    if (!options.refreshMs) return
    const timer = setInterval(() => reload({ silent: true }), options.refreshMs)
    return () => clearInterval(timer)
  }, [options.refreshMs, reload])

  return { ...state, reload }
}
