import {
  type PROMO_AUDIENCES,
  type PROMO_DURATIONS,
  type PromoCode,
  PromoCodeInputSchema,
} from '@edgeclub/shared'

/** The promo code form as typed: every field is text until it is checked with the API's schema. */
export interface PromoDraft {
  code: string
  kind: 'percent' | 'amount'
  percentOff: string
  amountOff: string
  currency: string
  duration: (typeof PROMO_DURATIONS)[number]
  durationInMonths: string
  audience: (typeof PROMO_AUDIENCES)[number]
  /** Empty: every plan. */
  planIds: string[]
  /** A day (yyyy-mm-dd): the code works until the end of that day, UTC. Empty: no expiry. */
  expiresOn: string
  maxRedemptions: string
}

export const blankPromo: PromoDraft = {
  code: '',
  kind: 'percent',
  percentOff: '',
  amountOff: '',
  currency: 'USD',
  duration: 'once',
  durationInMonths: '3',
  audience: 'anyone',
  planIds: [],
  expiresOn: '',
  maxRedemptions: '',
}

/** '' stays undefined, so the schema says "required" rather than "must be a number". */
const numberOr = (text: string) => (text.trim() === '' ? undefined : Number(text.trim()))

/** The request body the draft stands for (only the fields that apply to the kind and duration chosen). */
export function promoRequest(draft: PromoDraft) {
  return {
    code: draft.code,
    ...(draft.kind === 'percent'
      ? { percentOff: numberOr(draft.percentOff) }
      : { amountOff: numberOr(draft.amountOff), currency: draft.currency }),
    duration: draft.duration,
    ...(draft.duration === 'repeating' ? { durationInMonths: numberOr(draft.durationInMonths) } : {}),
    audience: draft.audience,
    ...(draft.planIds.length > 0 ? { planIds: draft.planIds } : {}),
    ...(draft.expiresOn ? { expiresAt: `${draft.expiresOn}T23:59:59.000Z` } : {}),
    ...(draft.maxRedemptions.trim() ? { maxRedemptions: numberOr(draft.maxRedemptions) } : {}),
  }
}

/**
 * Checked with the schema POST /admin/promo-codes uses (same messages). A missing discount is
 * reported on the field the admin is filling: percent or amount.
 */
export function checkPromo(draft: PromoDraft) {
  const parsed = PromoCodeInputSchema.safeParse(promoRequest(draft))
  if (parsed.success) return { ok: true as const, input: parsed.data }
  const errors: Record<string, string> = {}
  for (const issue of parsed.error.issues) {
    let field = String(issue.path[0] ?? '')
    if (field === 'percentOff' && draft.kind === 'amount') field = 'amountOff'
    if (field === 'expiresAt') field = 'expiresOn'
    if (field && !errors[field]) errors[field] = issue.message
  }
  return { ok: false as const, errors }
}

export type PromoStatus = 'active' | 'expired' | 'used up' | 'deactivated'

/** Whether a code can be redeemed now, and if not why: deactivated, expired or used up. */
export function promoStatus(
  code: Pick<PromoCode, 'active' | 'expiresAt' | 'maxRedemptions' | 'redemptions'>,
  now: Date = new Date(),
): PromoStatus {
  if (!code.active) return 'deactivated'
  if (code.expiresAt && new Date(code.expiresAt) <= now) return 'expired'
  if (code.maxRedemptions !== null && code.redemptions >= code.maxRedemptions) return 'used up'
  return 'active'
}

export const AUDIENCE_LABELS: Record<PromoDraft['audience'], string> = {
  anyone: 'Anyone',
  new: 'New members (never paid)',
  returning: 'Returning members (had access, lapsed)',
}
