import { messages, type Plan, paths } from '@edgeclub/shared'
import { defineIsland } from '../lib/island'
import { useAppNavigation } from '../lib/navigation'
import type { LoginState } from '../lib/navigation-state'
import { fetchActivePlans } from '../lib/plans-api'
import { useRemoteData } from '../lib/use-remote-data'
import { Button } from './ui/button'
import { PlanGrid } from './ui/plan-grid'

/**
 * The plans on sale on the pricing page, loaded from the API, with their loading and failure
 * states. Choosing one leads to sign-in first (no checkout here). An island.
 */
function PricingPlans() {
  const { navigate } = useAppNavigation()
  const { status, data: plans, reload } = useRemoteData(fetchActivePlans)

  const choose = (plan: Plan) => {
    // Sign in first, carrying the origin, the plan and the message.
    const state: LoginState = {
      from: paths.pricing,
      planId: plan.id,
      message: messages.pricing.signInToSubscribe,
      type: 'info',
    }
    navigate(paths.login, { state })
  }

  return (
    // Space for the cards is kept while they load, so nothing below them jumps (layout shift).
    <div className="min-h-[150rem] sm:min-h-[76rem] xl:min-h-[38rem]">
      {status === 'loading' && !plans ? (
        <p role="status" className="text-center text-slate-300">
          {messages.pricing.loading}
        </p>
      ) : null}
      {status === 'error' ? (
        <div
          role="alert"
          className="mx-auto max-w-md rounded-xl border border-rose-500/40 bg-rose-500/10 p-6 text-center"
        >
          <p className="font-semibold text-rose-200">{messages.pricing.failed}</p>
          <Button className="mt-4" variant="secondary" onClick={() => reload()}>
            Try Again
          </Button>
        </div>
      ) : null}
      {status === 'loaded' && plans ? <PlanGrid plans={plans} onChoose={choose} /> : null}
    </div>
  )
}

export const pricingPlansIsland = defineIsland('pricing-plans', PricingPlans)
