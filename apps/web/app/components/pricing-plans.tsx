import { messages, type Plan, paths } from '@edgeclub/shared'
import { useEffect, useState } from 'react'
import { apiRequest } from '../lib/api-client'
import { defineIsland } from '../lib/island'
import { useAppNavigation } from '../lib/navigation'
import type { CheckoutStartState, LoginState } from '../lib/navigation-state'
import { normalizeCode } from '../lib/navigation-state'
import { changeLabel, type PlanCardStatus, planAction, planNote } from '../lib/plan-actions'
import { fetchActivePlans } from '../lib/plans-api'
import { useRemoteData } from '../lib/use-remote-data'
import { useSession } from '../lib/use-session'
import { Button } from './ui/button'
import { PlanGrid } from './ui/plan-grid'

/** The code of a /pricing?code=CODE link, carried to the checkout. */
function codeFromAddress(): string | undefined {
  if (typeof window === 'undefined') return undefined
  return normalizeCode(new URLSearchParams(window.location.search).get('code'))
}

/**
 * A signed-in member's plan, to mark it "Current plan". Checked by hand: the public page loads no
 * validation library (see plans-api.ts); anything unexpected leaves every card as it is.
 */
function useMemberStatus(signedIn: boolean): PlanCardStatus | null {
  const [status, setStatus] = useState<PlanCardStatus | null>(null)
  useEffect(() => {
    if (!signedIn) {
      setStatus(null)
      return
    }
    const controller = new AbortController()
    apiRequest<PlanCardStatus>('/subscriptions/status', { signal: controller.signal }).then(
      (result) => {
        const data = result.data
        const plan = data?.activeSubscription?.planId
        const usable =
          result.success &&
          typeof data?.hasAccess === 'boolean' &&
          (data.activeSubscription === null || typeof plan?.id === 'string')
        setStatus(usable && data ? data : null)
      },
      () => undefined,
    )
    return () => controller.abort()
  }, [signedIn])
  return status
}

/**
 * The plans on sale on the pricing page, loaded from the API, with their loading and failure
 * states. Choosing one opens its checkout; a visitor signs in (or registers) first and then lands on
 * that checkout, with the code of a /pricing?code= link. A member on a renewing plan sees it as
 * "Current plan" and changes to another in the Subscription tab. Below them, the way in for members,
 * which a signed-in member does not need (the prerendered page shows it; once the island knows the
 * session, a signed-in member's page drops it). An island.
 */
function PricingPlans() {
  const { navigate, Link } = useAppNavigation()
  const { isAuthenticated } = useSession()
  const { status, data: plans, reload } = useRemoteData(fetchActivePlans)
  const member = useMemberStatus(isAuthenticated)

  const choose = (plan: Plan) => {
    const code = codeFromAddress()
    const action = planAction(plan, member)
    if (isAuthenticated && action === 'change') {
      navigate(`${paths.dashboard}?tab=subscription&change=${encodeURIComponent(plan.id)}`)
      return
    }
    if (isAuthenticated) {
      const state: CheckoutStartState = { checkout: { planId: plan.id, ...(code ? { code } : {}) } }
      navigate(paths.payment, { state })
      return
    }
    // Sign in first, carrying the origin, the plan, the code and the message.
    const state: LoginState = {
      from: paths.pricing,
      planId: plan.id,
      ...(code ? { code } : {}),
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
        {status === 'loaded' && plans ? (
          <PlanGrid
            plans={plans}
            onChoose={choose}
            labelFor={(plan) => (planAction(plan, member) === 'change' ? changeLabel(plan) : undefined)}
            noteFor={(plan) => planNote(planAction(plan, member))}
          />
        ) : null}
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
