import type { PlanRow } from '../../../db/types'
import { conflict } from '../../../lib/errors'

interface CurrentAccess {
  plan_id: string
  plan_name: string
  plan_interval: string
  provider: string
  end_date: Date | null
}

/**
 * One plan at a time (docs/decisions/007): while a member has access, buying another plan is refused,
 * except an upgrade to lifetime, and (crypto only, which never renews by itself) paying again for
 * the same crypto plan to extend it (docs/decisions/009).
 */
export function assertCanBuy(
  current: CurrentAccess | undefined,
  plan: PlanRow,
  rail: 'card' | 'crypto',
): void {
  if (!current) return
  const upgradingToLifetime = plan.interval === 'lifetime' && current.plan_interval !== 'lifetime'
  const extendingCrypto =
    rail === 'crypto' &&
    current.provider === 'crypto' &&
    current.plan_id === plan.id &&
    current.end_date !== null
  if (upgradingToLifetime || extendingCrypto) return
  const until = current.end_date ? ` until ${new Date(current.end_date).toISOString().slice(0, 10)}` : ''
  throw conflict(
    `You already have an active ${current.plan_name} membership${until}. Manage it in the Subscription tab.`,
  )
}
