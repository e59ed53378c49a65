import {
  type BillingSettings,
  BillingSettingsSchema,
  PauseResultSchema,
  type PromoCodeInput,
  PromoCodeListSchema,
  PromoCodeSchema,
} from '@edgeclub/shared'
import { useQuery } from '@tanstack/react-query'
import { z } from 'zod'
import { act, fetchData } from './admin-api'

/** GET /admin/promo-codes: every code, newest first, with its redemptions and the revenue it brought. */
export function usePromoCodes() {
  return useQuery({
    queryKey: ['admin', 'promo-codes'],
    queryFn: () => fetchData('/admin/promo-codes', PromoCodeListSchema),
  })
}

export function createPromoCode(input: PromoCodeInput) {
  return act('/admin/promo-codes', 'POST', PromoCodeSchema, input)
}

export function deactivatePromoCode(id: string) {
  return act(`/admin/promo-codes/${encodeURIComponent(id)}/deactivate`, 'POST', PromoCodeSchema)
}

/** GET /admin/billing-settings: the offer a member sees before cancelling. */
export function useBillingSettings() {
  return useQuery({
    queryKey: ['admin', 'billing-settings'],
    queryFn: () => fetchData('/admin/billing-settings', BillingSettingsSchema),
  })
}

export function saveBillingSettings(settings: BillingSettings) {
  return act('/admin/billing-settings', 'PUT', BillingSettingsSchema, settings)
}

/** Pauses a member's renewing card plan for 1–3 billing periods, from the end of the paid one. */
export function pauseMember(userId: string, periods: 1 | 2 | 3) {
  return act(`/admin/users/${encodeURIComponent(userId)}/pause`, 'POST', PauseResultSchema, { periods })
}

/** Free days: a card plan is charged that much later; anyone else gets complimentary access. */
export function addFreeDays(userId: string, days: number) {
  return act(
    `/admin/users/${encodeURIComponent(userId)}/free-days`,
    'POST',
    z.object({ endDate: z.string() }),
    { days },
  )
}
