import { PlanSchema } from '@edgeclub/shared'
import { useQuery } from '@tanstack/react-query'
import { fetchActivePlans } from './plans-api'

const ActivePlansSchema = PlanSchema.array()

/** The plans on sale as a query of the member area (choosing a plan, completing a payment), each checked. */
export function useActivePlans() {
  return useQuery({ queryKey: ['plans'], queryFn: () => fetchActivePlans(undefined, ActivePlansSchema) })
}
