import { API_BASE, type Plan } from '@edgeclub/shared'
import { apiRequest, refreshAccessToken } from '../../lib/api-client'
import { session } from '../../lib/session-store'

/** SPEC §3 payment intent, and what the payment page receives with it. */
export interface PaymentIntentData {
  clientSecret: string
  paymentIntentId: string
  amount: number
  currency: string
  paymentId?: string
  plan?: Plan | null
}

export interface PaymentSessionState {
  paymentIntent: PaymentIntentData
  plan: Plan
}

export interface PaymentRecord {
  _id: string
  planId: { _id: string; name: string } | null
  amount: number
  amountRefunded: number
  currency: string
  status: 'completed' | 'pending' | 'failed' | 'cancelled' | 'refunded' | 'partially_refunded' | string
  provider: string
  kind: string
  message: string | null
  failureMessage: string | null
  createdAt: string
  completedAt: string | null
  stripeClientSecret: string | null
  stripePaymentIntentId: string | null
  checkoutUrl: string | null
  expiresAt: string | null
}

export interface PaymentSummary {
  totals: { currency: string; amount: number }[]
  completedCount: number
}

export const paymentKeys = {
  history: (limit: number) => ['payments', 'history', limit] as const,
  summary: ['payments', 'summary'] as const,
}

/** SPEC §7/§8: the payment history call throws 'HTTP error! status: {code}' on a non-OK answer. */
export async function fetchPaymentHistory(limit = 10): Promise<PaymentRecord[]> {
  const request = () =>
    fetch(`${API_BASE}/payments/history?page=1&limit=${limit}&sortBy=createdAt&sortOrder=desc`, {
      headers: { accept: 'application/json', authorization: `Bearer ${session.getState().token ?? ''}` },
    })
  let response = await request()
  if (response.status === 401 && (await refreshAccessToken())) response = await request()
  if (!response.ok) throw new Error(`HTTP error! status: ${response.status}`)
  const body = (await response.json()) as { data: { items: PaymentRecord[] } }
  return body.data.items
}

export async function fetchPaymentSummary(): Promise<PaymentSummary> {
  const result = await apiRequest<PaymentSummary>('/payments/summary')
  if (!result.success || !result.data) throw new Error(result.error ?? 'Failed to load your payments')
  return result.data
}

export function createPaymentIntent(planId: string) {
  return apiRequest<PaymentIntentData>('/payments/create-intent', {
    method: 'POST',
    body: { planId, currency: 'USD' },
  })
}

export function confirmPayment(paymentIntentId: string) {
  return apiRequest<{ paymentId: string; status: string }>('/payments/confirm', {
    method: 'POST',
    body: { paymentIntentId },
  })
}
