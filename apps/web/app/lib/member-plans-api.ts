import { useQuery } from '@tanstack/react-query'
import { contract } from './contract'
import { fetchActivePlans } from './plans-api'

/** The plans on sale as a query of the member area (choosing a plan, completing a payment), each checked. */
export function useActivePlans() {
  return useQuery({
    queryKey: ['plans'],
    queryFn: () => fetchActivePlans(undefined, contract('ActivePlansSchema')),
  })
}
