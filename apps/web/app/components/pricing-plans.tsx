import { messages, type Plan, paths } from '@edgeclub/shared'
import { defineIsland } from '../lib/island'
import { useAppNavigation } from '../lib/navigation'
import type { LoginState } from '../lib/navigation-state'
import { fetchActivePlans } from '../lib/plans-api'
import { useRemoteData } from '../lib/use-remote-data'
import { useSession } from '../lib/use-session'
import { Button } from './ui/button'
import { PlanGrid } from './ui/plan-grid'

/**
 * The plans on sale on the pricing page, loaded from the API, with their loading and failure
 * states. Choosing one leads to sign-in first (no checkout here). Below them, the way in for members,
 * which a signed-in member does not need (the prerendered page shows it; once the island knows the
 * session, a signed-in member's page drops it). An island.
 */
function PricingPlans() {
  const { navigate, Link } = useAppNavigation()
  const { isAuthenticated } = useSession()
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
    <>
      {/* Space for the cards is kept while they load, so nothing below them jumps (layout shift). */}
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
      {isAuthenticated ? null : (
        <p className="mt-12 text-center text-slate-300">
          Already a member?{' '}
          <Link
            to={paths.login}
            className="font-semibold text-emerald-300 underline-offset-4 hover:underline"
          >
            Sign in here
          </Link>
        </p>
      )}
    </>
  )
}

export const pricingPlansIsland = defineIsland('pricing-plans', PricingPlans)
