import { messages, type Plan, sortPlansBySlug } from '@edgeclub/shared'
import { apiRequest } from './api-client'
import type { Contract } from './contract'

/**
 * The plans on sale, in slug order: the pricing page and the member's plan choice show the same
 * cards. No TanStack Query and no schema here: the public pricing page imports this file, so it
 * checks only that a list came back; the member area passes the schema to check each plan.
 */
export async function fetchActivePlans(signal?: AbortSignal, schema?: Contract<Plan[]>): Promise<Plan[]> {
  const result = await apiRequest<Plan[]>('/admin/plans/public/active', { auth: false, signal, schema })
  if (!result.success || !Array.isArray(result.data)) throw new Error(messages.pricing.failed)
  return sortPlansBySlug(result.data)
}
