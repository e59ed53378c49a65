import { TipIntentSchema, TipSchema } from '@edgeclub/shared'
import { apiRequest } from '../../lib/api-client'

/** POST /tips/create: the server checks the tip with the same schema as the form. */
export function createTip(tip: { amount: number; currency: string; message?: string }) {
  return apiRequest('/tips/create', { method: 'POST', body: tip, schema: TipIntentSchema })
}

/** After Stripe.js reports success, the server checks with Stripe and records the tip as paid. */
export function checkTip(tipId: string) {
  return apiRequest(`/tips/status/${tipId}`, { schema: TipSchema })
}
