import { site } from '@edgeclub/shared'
import { pricingPlansIsland } from '../components/pricing-plans'
import { Container, PageHero } from '../components/ui/layout'
import { Island, islandsPage } from '../lib/island'
import { seo } from '../lib/seo'

export function meta() {
  return seo(
    'Pricing',
    `Weekly, monthly, yearly and lifetime EdgeClub memberships. Every plan includes picks, signals and the private Discord, with a ${site.figures.moneyBackDays}-day money-back guarantee.`,
  )
}

export const handle = islandsPage

export default function Pricing() {
  return (
    <>
      <PageHero
        title="Choose your membership"
        intro={`Every plan unlocks all picks, signals and the private Discord. ${site.figures.moneyBackDays}-day money-back guarantee on all plans.`}
      />
      <Container className="py-14">
        <h2 className="sr-only">Plans</h2>
        <Island of={pricingPlansIsland} />
      </Container>
    </>
  )
}
