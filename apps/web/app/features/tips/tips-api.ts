import { apiRequest } from '../../lib/api-client'
import { contract } from '../../lib/contract'

/** POST /tips/create: the server checks the tip with the same schema as the form. */
export function createTip(tip: { amount: number; currency: string; message?: string }) {
  return apiRequest('/tips/create', { method: 'POST', body: tip, schema: contract('TipIntentSchema') })
}

/** After Stripe.js reports success, the server checks with Stripe and records the tip as paid. */
export function checkTip(tipId: string) {
  return apiRequest(`/tips/status/${tipId}`, { schema: contract('TipSchema') })
}
