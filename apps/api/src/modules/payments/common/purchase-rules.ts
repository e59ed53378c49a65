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
 * A member with access changes plan rather than buying a second one (docs/decisions/019): a card
 * checkout of another plan is refused (the Subscription tab changes it, with Stripe's proration),
 * except lifetime, which anyone may buy; crypto, which never renews by itself, pays for any plan and
 * the new period starts when the paid one ends (docs/decisions/009).
 */
export function assertCanBuy(
  current: CurrentAccess | undefined,
  plan: PlanRow,
  rail: 'card' | 'crypto',
): void {
  if (!current) return
  const upgradingToLifetime = plan.interval === 'lifetime' && current.plan_interval !== 'lifetime'
  const nextCryptoPeriod = rail === 'crypto' && current.provider === 'crypto' && current.end_date !== null
  if (upgradingToLifetime || nextCryptoPeriod) return
  const until = current.end_date ? ` until ${new Date(current.end_date).toISOString().slice(0, 10)}` : ''
  throw conflict(
    `You already have an active ${current.plan_name} membership${until}. Change plans in the Subscription tab.`,
  )
}
