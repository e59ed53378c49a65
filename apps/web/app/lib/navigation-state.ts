/** What one screen passes to the next through React Router's location state. */
export interface FlashState {
  message?: string
  type?: 'success' | 'warning' | 'info' | 'error'
}

export interface LoginState extends FlashState {
  /** Where the visitor came from (the pricing page passes '/pricing'). */
  from?: string
  planId?: string
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
