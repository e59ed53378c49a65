import { messages, type Plan, paths, site } from '@edgeclub/shared'
import { Link, useNavigate } from 'react-router'
import { Button } from '../components/ui/button'
import { Container, PageHero } from '../components/ui/layout'
import { PlanGrid } from '../components/ui/plan-grid'
import type { LoginState } from '../lib/navigation-state'
import { fetchActivePlans } from '../lib/plans-api'
import { seo } from '../lib/seo'
import { useRemoteData } from '../lib/use-remote-data'

export function meta() {
  return seo(
    'Pricing',
    `Weekly, monthly, yearly and lifetime EdgeClub memberships. Every plan includes picks, signals and the private Discord, with a ${site.figures.moneyBackDays}-day money-back guarantee.`,
  )
}

export default function Pricing() {
  const navigate = useNavigate()
  const { status, data: plans, reload } = useRemoteData(fetchActivePlans)

  const choose = (plan: Plan) => {
    // Sign in first, carrying the origin, the plan and the message; no checkout here.
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
      <PageHero
        title="Choose your membership"
        intro={`Every plan unlocks all picks, signals and the private Discord. ${site.figures.moneyBackDays}-day money-back guarantee on all plans.`}
      />
      <Container className="py-14">
        <h2 className="sr-only">Plans</h2>
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
        <p className="mt-12 text-center text-slate-300">
          Already a member?{' '}
          <Link
            to={paths.login}
            className="font-semibold text-emerald-300 underline-offset-4 hover:underline"
          >
            Sign in here
          </Link>
        </p>
      </Container>
    </>
  )
}
