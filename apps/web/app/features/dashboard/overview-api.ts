import type { PaymentSummary } from '@edgeclub/shared'
import { useQuery } from '@tanstack/react-query'
import { apiRequest } from '../../lib/api-client'
import { contract } from '../../lib/contract'
import { paymentKeys } from '../../lib/payment-history-api'

/** What the member has paid in total, per currency, counting completed payments only. */
async function fetchPaymentSummary(): Promise<PaymentSummary> {
  const result = await apiRequest('/payments/summary', { schema: contract('PaymentSummarySchema') })
  if (!result.success || !result.data) throw new Error(result.error ?? 'Failed to load your payments')
  return result.data
}

export function usePaymentSummary() {
  return useQuery({ queryKey: paymentKeys.summary, queryFn: fetchPaymentSummary })
}
