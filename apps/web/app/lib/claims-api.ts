import type { ShownClaims } from '@edgeclub/shared'
import { useQuery } from '@tanstack/react-query'
import { apiRequest } from './api-client'
import { contract } from './contract'

/** GET /claims: the marketing claims as the owner set them (the app's pages; prerendered ones get them from the server). */
async function fetchClaims(): Promise<ShownClaims> {
  const result = await apiRequest('/claims', { auth: false, schema: contract('ShownClaimsSchema') })
  if (!result.success || !result.data) throw new Error(result.error ?? 'Failed to load the claims')
  return result.data
}

/** The claims, or undefined while loading (pages then show the defaults). */
export function useClaims() {
  return useQuery({ queryKey: ['claims'], queryFn: fetchClaims, staleTime: 60_000 }).data
}
