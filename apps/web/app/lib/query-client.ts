import { QueryClient } from '@tanstack/react-query'
import { session } from './session-store'

/**
 * The server state of the member area and the admin console: one client, created once, for both.
 * Only their route modules import this file, so the public pages never load TanStack Query.
 */
export const queryClient = new QueryClient({
  defaultOptions: { queries: { retry: 1, staleTime: 5_000 } },
})

// What one account loaded never shows to the next one signed in on this tab: the cache is dropped
// whenever the signed-in user changes (sign-out included).
let cachedFor = session.getState().user?.id
session.subscribe(() => {
  const userId = session.getState().user?.id
  if (userId === cachedFor) return
  cachedFor = userId
  queryClient.clear()
})
