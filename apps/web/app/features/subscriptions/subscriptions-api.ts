import { CancelResultSchema, RenewResultSchema } from '@edgeclub/shared'
import { apiRequest } from '../../lib/api-client'

/** Stop renewing at the end of the paid period (PUT /subscriptions/{id}/cancel); access lasts until then. */
export function cancelSubscription(subscriptionId: string) {
  return apiRequest(`/subscriptions/${subscriptionId}/cancel`, { method: 'PUT', schema: CancelResultSchema })
}

/** Renew again after a cancellation, before the period ends (POST /subscriptions/{id}/renew). */
export function resumeSubscription(subscriptionId: string) {
  return apiRequest(`/subscriptions/${subscriptionId}/renew`, { method: 'POST', schema: RenewResultSchema })
}
