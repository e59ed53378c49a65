import type { CancelRequest } from '@edgeclub/shared'
import { apiRequest } from '../../lib/api-client'
import { contract } from '../../lib/contract'

/**
 * Stop renewing at the end of the paid period (PUT /subscriptions/{id}/cancel); access lasts until then.
 * The reason, when given, goes to the owner's numbers.
 */
export function cancelSubscription(subscriptionId: string, reason?: CancelRequest) {
  return apiRequest(`/subscriptions/${subscriptionId}/cancel`, {
    method: 'PUT',
    ...(reason ? { body: reason } : {}),
    schema: contract('CancelResultSchema'),
  })
}

/** Renew again after a cancellation, before the period ends (POST /subscriptions/{id}/renew). */
export function resumeSubscription(subscriptionId: string) {
  return apiRequest(`/subscriptions/${subscriptionId}/renew`, {
    method: 'POST',
    schema: contract('RenewResultSchema'),
  })
}

/** What changing to a plan costs today (Stripe's proration) and when it takes effect. */
export function previewPlanChange(planId: string) {
  return apiRequest(`/subscriptions/change-plan/preview?planId=${encodeURIComponent(planId)}`, {
    schema: contract('ChangePlanPreviewSchema'),
  })
}

/** Changes plan at the previewed moment, so the charge is the amount the member saw. */
export function changePlan(planId: string, prorationDate?: string) {
  return apiRequest('/subscriptions/change-plan', {
    method: 'POST',
    body: { planId, ...(prorationDate ? { prorationDate } : {}) },
    schema: contract('ChangePlanResultSchema'),
  })
}

export function undoPlanChange() {
  return apiRequest('/subscriptions/change-plan', {
    method: 'DELETE',
    schema: contract('PlanChangeUndoneSchema'),
  })
}

export function pauseSubscription(periods: 1 | 2 | 3) {
  return apiRequest('/subscriptions/pause', {
    method: 'POST',
    body: { periods },
    schema: contract('PauseResultSchema'),
  })
}

export function unpauseSubscription() {
  return apiRequest('/subscriptions/unpause', { method: 'POST', schema: contract('UnpauseResultSchema') })
}

/** A SetupIntent for a new renewal card, which the card form confirms. */
export function startCardUpdate() {
  return apiRequest('/subscriptions/payment-method', { method: 'POST', schema: contract('CardSetupSchema') })
}

/** The saved card becomes the renewal card; an open renewal invoice is paid with it at once. */
export function finishCardUpdate(setupIntentId: string) {
  return apiRequest('/subscriptions/payment-method/confirm', {
    method: 'POST',
    body: { setupIntentId },
    schema: contract('CardUpdateResultSchema'),
  })
}

export function fetchRetentionOffer() {
  return apiRequest('/subscriptions/retention', { schema: contract('RetentionOfferSchema') })
}

export function acceptRetention(input: {
  offer: 'code' | 'pause'
  periods?: 1 | 2 | 3
  reason?: CancelRequest['reason']
  detail?: string
}) {
  return apiRequest('/subscriptions/retention/accept', {
    method: 'POST',
    body: input,
    schema: contract('RetentionAcceptedSchema'),
  })
}
