import { API_BASE, type PaymentView } from '@edgeclub/shared'
import { useQuery } from '@tanstack/react-query'
import { checkAnswer, refreshAccessToken } from './api-client'
import { contract } from './contract'
import { earlyOr } from './dashboard-boot'
import { session } from './session-store'

/** Everything under `all` is the member's payments: a new payment or tip invalidates the lot. */
export const paymentKeys = {
  all: ['payments'] as const,
  history: (limit: number) => ['payments', 'history', limit] as const,
  summary: ['payments', 'summary'] as const,
}

/** The dashboard lists the 10 newest payments. */
const HISTORY_LIMIT = 10

/** GET /payments/history as Payment History and the overview ask for it (the dashboard's boot script asks it early). */
export const paymentHistoryPath = (limit = HISTORY_LIMIT) =>
  `/payments/history?page=1&limit=${limit}&sortBy=createdAt&sortOrder=desc`

/** Reads the raw answer, not the envelope: a non-OK answer throws 'HTTP error! status: {code}'. */
export async function fetchPaymentHistory(limit = HISTORY_LIMIT): Promise<PaymentView[]> {
  const path = paymentHistoryPath(limit)
  const request = () =>
    fetch(`${API_BASE}${path}`, {
      headers: { accept: 'application/json', authorization: `Bearer ${session.getState().token ?? ''}` },
    })
  // Asked already by the dashboard page's boot script, with this session: that answer, once.
  let response = await earlyOr(path, session.getState().token, request)
  if (response.status === 401 && (await refreshAccessToken())) response = await request()
  if (!response.ok) throw new Error(`HTTP error! status: ${response.status}`)
  const body = (await response.json()) as { data?: unknown }
  return (await checkAnswer(`GET ${path}`, contract('PaymentPageSchema'), body.data)).items
}

/** The newest payments, for Payment History and the overview's recent activity. */
export function usePaymentHistory() {
  return useQuery({
    queryKey: paymentKeys.history(HISTORY_LIMIT),
    queryFn: () => fetchPaymentHistory(HISTORY_LIMIT),
    // Back from a crypto checkout: watch the payment go from pending to completed.
    refetchInterval: (query) =>
      query.state.data?.some((payment) => payment.status === 'pending' && payment.provider === 'crypto')
        ? 5_000
        : false,
  })
}
