import { paths } from '@edgeclub/shared'

/** What one screen passes to the next through React Router's location state. */
export interface FlashState {
  message?: string
  type?: 'success' | 'warning' | 'info' | 'error'
}

export interface LoginState extends FlashState {
  /** Where the visitor came from (the pricing page passes '/pricing'). */
  from?: string
  planId?: string
  /** A promo code the visitor arrived with (/pricing?code=…), applied at checkout. */
  code?: string
}

/** What the payment page starts a checkout from: the plan, and the promo code if any. */
export interface CheckoutRequest {
  planId: string
  code?: string
}

/** The payment page's state before the checkout exists (from Pricing, sign-in or registration). */
export interface CheckoutStartState extends FlashState {
  checkout: CheckoutRequest
}

/** The checkout a sign-in or a registration should continue with, if the visitor chose a plan first. */
export function checkoutOf(state: LoginState | null | undefined): CheckoutRequest | null {
  if (!state?.planId || state.from !== paths.pricing) return null
  return { planId: state.planId, ...(state.code ? { code: state.code } : {}) }
}

/** A promo code as typed or carried in a link: trimmed, upper case, or nothing. */
export function normalizeCode(value: string | null | undefined): string | undefined {
  const code = value?.trim().toUpperCase()
  return code && /^[A-Z0-9][A-Z0-9_-]{0,39}$/.test(code) ? code : undefined
}

export interface DashboardState extends FlashState {
  /** Continue a checkout the visitor started on the pricing page. */
  planId?: string
}

export function flashOf(state: unknown): FlashState | null {
  if (!state || typeof state !== 'object') return null
  const { message, type } = state as FlashState
  return typeof message === 'string' ? { message, type: type ?? 'info' } : null
}
