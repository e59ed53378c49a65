import { useQuery } from '@tanstack/react-query'
import { apiRequest } from '../../lib/api-client'

/** SPEC §3 subscription status (GET /subscriptions/status). */
export interface SubscriptionStatus {
  hasAccess: boolean
  activeSubscription: {
    _id: string
    planId: { _id: string; name: string; slug: string; interval: string }
    status: string
    startDate: string
    endDate: string | null
    cancelAtPeriodEnd: boolean
    provider: string
  } | null
}

export const subscriptionKeys = {
  status: ['subscription-status'] as const,
  history: ['subscription-history'] as const,
}

export async function fetchSubscriptionStatus(): Promise<SubscriptionStatus> {
  const result = await apiRequest<SubscriptionStatus>('/subscriptions/status')
  if (!result.success || !result.data) throw new Error(result.error ?? 'Failed to load your subscription')
  return result.data
}

export function useSubscriptionStatus() {
  return useQuery({ queryKey: subscriptionKeys.status, queryFn: fetchSubscriptionStatus })
}

/** SPEC §2: 'Active' only when hasAccess and the status is active. */
export function isActive(status: SubscriptionStatus | undefined): boolean {
  return Boolean(status?.hasAccess && status.activeSubscription?.status === 'active')
}
