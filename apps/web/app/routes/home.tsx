import { paths, site } from '@edgeclub/shared'
import { Claim } from '../components/claim'
import { ButtonLink } from '../components/ui/button'
import { CheckIcon } from '../components/ui/icons'
import { Card, Container, Section } from '../components/ui/layout'
import { priceCardIsland } from '../features/market/price-card'
import { Island, islandsPage } from '../lib/island'
import { seo } from '../lib/seo'

export function meta() {
  return seo(
    site.name,
    `AI-driven sports betting picks, stock and crypto trading signals and a private Discord community. ${site.figures.members} members, a ${site.figures.winRate} win rate over ${site.figures.trackRecord}.`,
  )
}

const memberships = [
  {
    title: 'Sports Betting',
    body: 'AI-ranked picks every day across the NFL, NBA, MLB, NHL, soccer and UFC, with stake sizing.',
  },
  {
    title: 'Stock Trading',
    body: 'Entry, target and stop levels for equities and crypto, posted the moment our models fire.',
  },
  {
    title: 'Fitness',
    body: 'Training and nutrition plans that keep you sharp through long sessions at the screen.',
  },
  { title: 'Life', body: 'Habits, focus and mindset coaching from members who treat discipline as an edge.' },
  {
    title: 'Capital Creation',
    body: 'Bankroll growth, risk management and compounding plans for long-term wealth.',
  },
  {
    title: 'Fantasy Football',
    body: 'Weekly projections, waiver targets and lineup optimisation for every format.',
  },
]

const offerings = [
  '24/7 signals',
  'Real-time analytics',
  'Social trading',
  'Crypto payment networks',
  'Expert guidance',
  'Live broadcast with tips',
]

export const handle = islandsPage

export default function Home() {
  return (
    <>
      <div className="relative overflow-hidden border-b border-slate-800 bg-gradient-to-b from-slate-900 via-slate-950 to-slate-950">
        <Container className="grid gap-12 py-14 sm:py-20 lg:grid-cols-2 lg:items-center">
          <div>
            <p className="text-sm font-semibold uppercase tracking-wider text-emerald-300">
              Sports picks · Trading signals · Community
            </p>
            <h1 className="mt-3 text-4xl font-extrabold tracking-tight text-white sm:text-5xl">
              Bet and trade with an AI-driven edge
            </h1>
            <p className="mt-5 max-w-xl text-lg text-slate-300">
              Join <Claim name="members" /> members who get AI-powered sports betting signals, stock and
              crypto trading alerts and fantasy football predictions, with a <Claim name="winRate" /> win rate
              over <Claim name="trackRecord" /> and 24/7 support.
            </p>
            <div className="mt-8 flex flex-wrap gap-3">
              <ButtonLink to={paths.dashboard}>Get Started</ButtonLink>
              <ButtonLink to={paths.pricing} variant="secondary">
                View Pricing
              </ButtonLink>
            </div>
            <dl className="mt-10 grid max-w-lg grid-cols-3 gap-6">
              {[
                { key: 'members', value: <Claim name="members" />, label: 'members' },
                {
                  key: 'win-rate',
                  value: <Claim name="winRate" />,
                  label: (
                    <>
                      win rate over <Claim name="trackRecord" />
                    </>
                  ),
                },
                { key: 'support', value: '24/7', label: 'support' },
              ].map((stat) => (
                <div key={stat.key}>
                  <dt className="sr-only">{stat.label}</dt>
                  <dd>
                    <span className="block text-xl font-bold text-white sm:text-2xl">{stat.value}</span>
                    <span className="text-sm text-slate-400">{stat.label}</span>
                  </dd>
                </div>
              ))}
            </dl>
            <a
              href={paths.record}
              className="mt-4 inline-block text-sm font-semibold text-emerald-300 underline-offset-4 hover:underline"
            >
              Check every pick on the verified record
            </a>
          </div>
          <Island of={priceCardIsland} aiAccuracy={site.figures.aiAccuracy} />
        </Container>
      </div>

      <section aria-labelledby="discover-heading" className="border-b border-slate-800 py-14">
        <Container className="flex flex-col items-start gap-6 md:flex-row md:items-center md:justify-between">
          <div className="max-w-2xl">
            <h2 id="discover-heading" className="text-2xl font-bold text-white sm:text-3xl">
              Every major league, one signal room
            </h2>
            <p className="mt-3 text-slate-300">
              Coverage of the {site.sports.slice(0, -1).join(', ')} and {site.sports.at(-1)}, plus stocks and
              crypto. Pay by card or over a blockchain payment network, and every plan comes with a{' '}
              {site.figures.moneyBackDays}-day money-back guarantee.
            </p>
          </div>
          <ButtonLink to={paths.register}>Discover Now</ButtonLink>
        </Container>
      </section>

      <Section
        id="membership"
        eyebrow="Membership"
        title="One membership, six ways to win"
        intro="Your plan unlocks every program. Pick the ones that fit your goals and switch any time."
      >
        <ul className="grid gap-6 sm:grid-cols-2 lg:grid-cols-3">
          {memberships.map((item) => (
            <li key={item.title}>
              <Card className="h-full">
                <h3 className="text-lg font-semibold text-white">{item.title}</h3>
                <p className="mt-2 text-sm text-slate-300">{item.body}</p>
              </Card>
            </li>
          ))}
        </ul>
        <div className="mt-10 text-center">
          <ButtonLink to={paths.pricing}>Join Us</ButtonLink>
        </div>
      </Section>

      <Section
        id="offerings"
        eyebrow="What you get"
        title="Built for people who play to win"
        className="border-y border-slate-800 bg-slate-900/40"
      >
        <ul className="mx-auto grid max-w-3xl gap-4 sm:grid-cols-2">
          {offerings.map((offering) => (
            <li
              key={offering}
              className="flex items-center gap-3 rounded-xl bg-slate-900 px-4 py-3 ring-1 ring-slate-800"
            >
              <CheckIcon className="h-5 w-5 shrink-0 text-emerald-300" />
              <span className="font-medium text-white">{offering}</span>
            </li>
          ))}
        </ul>
      </Section>

      <Section id="news" eyebrow="News" title="Latest from the club">
        <Card className="mx-auto max-w-xl text-center">
          <p className="text-2xl font-bold text-white">Coming Soon!</p>
          <p className="mt-2 text-sm text-slate-300">
            Match previews, market recaps and member wins will appear here.
          </p>
        </Card>
      </Section>

      <section
        aria-labelledby="cta-heading"
        className="border-t border-slate-800 bg-gradient-to-r from-emerald-500/15 to-sky-500/10 py-16"
      >
        <Container className="text-center">
          <h2 id="cta-heading" className="text-3xl font-bold text-white">
            Ready to find your edge?
          </h2>
          <p className="mx-auto mt-3 max-w-xl text-slate-300">
            Create your free account in a minute, then choose the plan that fits. {site.figures.moneyBackDays}
            -day money-back guarantee on all plans.
          </p>
          <div className="mt-8 flex flex-wrap justify-center gap-3">
            <ButtonLink to={paths.register}>Create Your Account</ButtonLink>
            <ButtonLink to={paths.pricing} variant="secondary">
              View Pricing Plans
            </ButtonLink>
          </div>
        </Container>
      </section>
    </>
  )
}
