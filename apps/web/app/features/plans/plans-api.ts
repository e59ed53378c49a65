import { messages, type Plan, sortPlansBySlug } from '@edgeclub/shared'
import { apiRequest } from '../../lib/api-client'

/** SPEC §2 Pricing: the active plans, in slug order. */
export async function fetchActivePlans(signal?: AbortSignal): Promise<Plan[]> {
  const result = await apiRequest<Plan[]>('/admin/plans/public/active', { auth: false, signal })
  if (!result.success || !Array.isArray(result.data)) throw new Error(messages.pricing.failed)
  return sortPlansBySlug(result.data)
}
