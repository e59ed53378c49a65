import type { AccessStatus } from '@edgeclub/shared'
import { useQuery } from '@tanstack/react-query'
import { apiRequest } from './api-client'
import { contract } from './contract'

export const subscriptionKeys = {
  status: ['subscription-status'] as const,
}

/** GET /subscriptions/status: whether the member has access (decided by the server) and their current plan. */
export async function fetchSubscriptionStatus(): Promise<AccessStatus> {
  const result = await apiRequest('/subscriptions/status', { schema: contract('AccessStatusSchema') })
  if (!result.success || !result.data) throw new Error(result.error ?? 'Failed to load your subscription')
  return result.data
}

/** The member's own status, shared by the sidebar, the overview and the tabs that depend on it. */
export function useSubscriptionStatus() {
  return useQuery({ queryKey: subscriptionKeys.status, queryFn: fetchSubscriptionStatus })
}

/**
 * A membership reads 'Active' (and unlocks the Discord invite) only when the server grants access
 * and the subscription itself is active: a renewal in its grace period keeps access but is not
 * shown as active. Access is never worked out from dates here; `hasAccess` is the server's answer.
 */
export function isActive(status: AccessStatus | undefined): boolean {
  return Boolean(status?.hasAccess && status.activeSubscription?.status === 'active')
}
