import { paths, site } from '@edgeclub/shared'
import { Claim } from '../components/claim'
import { ButtonLink } from '../components/ui/button'
import { Card, Container, PageHero, Section } from '../components/ui/layout'
import { islandsPage } from '../lib/island'
import { seo } from '../lib/seo'

export function meta() {
  return seo(
    'About',
    `Why ${site.name} exists: a proven ${site.figures.winRate} win rate over ${site.figures.trackRecord}, AI analysis at ${site.figures.aiAccuracy} accuracy, and payments secured on a blockchain network.`,
  )
}

const reasons = [
  {
    title: 'Proven track record',
    body: (
      <>
        A <Claim name="winRate" /> win rate over <Claim name="trackRecord" />, every pick logged and public to
        members — wins and losses.
      </>
    ),
  },
  {
    title: 'AI analysis',
    body: (
      <>
        Models trained on years of odds, line movement and market data reach <Claim name="aiAccuracy" />{' '}
        accuracy on tracked signals.
      </>
    ),
  },
  {
    title: 'Security on a blockchain network',
    body: 'Pay by card or over a blockchain payment network; we never hold your card details or your coins.',
  },
]

const team = [
  {
    initials: 'MR',
    name: 'Marcus Reed',
    role: 'Founder & Head of Research',
    bio: 'Former sportsbook trader who spent a decade pricing NFL and NBA lines before building EdgeClub’s models.',
  },
  {
    initials: 'EP',
    name: 'Elena Park',
    role: 'Chief Technology Officer',
    bio: 'Quant developer behind our signal engine, real-time analytics and the systems that keep picks flowing 24/7.',
  },
]

export const handle = islandsPage

export default function About() {
  return (
    <>
      <PageHero
        title={`About ${site.name}`}
        intro="A community of bettors and traders who replace hunches with data, discipline and each other."
      />
      <Container className="grid gap-6 py-14 md:grid-cols-2">
        <Card>
          <h2 className="text-2xl font-bold text-white">Our mission</h2>
          <p className="mt-3 text-slate-300">
            To give everyday bettors and traders the tools professionals use: AI-driven picks, clear risk
            management and a community that shares what works — so every decision is made with an edge.
          </p>
        </Card>
        <Card>
          <h2 className="text-2xl font-bold text-white">Our vision</h2>
          <p className="mt-3 text-slate-300">
            A world where <Claim name="members" /> members and counting build lasting capital through
            informed, responsible play — in sports, markets and life.
          </p>
        </Card>
      </Container>

      <Section
        id="why"
        title={`Why choose ${site.name}`}
        className="border-y border-slate-800 bg-slate-900/40"
      >
        <ul className="grid gap-6 md:grid-cols-3">
          {reasons.map((reason) => (
            <li key={reason.title}>
              <Card className="h-full">
                <h3 className="text-lg font-semibold text-white">{reason.title}</h3>
                <p className="mt-2 text-sm text-slate-300">{reason.body}</p>
              </Card>
            </li>
          ))}
        </ul>
      </Section>

      <Section id="team" title="The team">
        <ul className="mx-auto grid max-w-4xl gap-6 md:grid-cols-2">
          {team.map((person) => (
            <li key={person.name}>
              <Card className="flex h-full gap-4">
                <span
                  aria-hidden="true"
                  className="flex h-14 w-14 shrink-0 items-center justify-center rounded-full bg-emerald-400 text-lg font-bold text-slate-950"
                >
                  {person.initials}
                </span>
                <div>
                  <h3 className="text-lg font-semibold text-white">{person.name}</h3>
                  <p className="text-sm text-emerald-300">{person.role}</p>
                  <p className="mt-2 text-sm text-slate-300">{person.bio}</p>
                </div>
              </Card>
            </li>
          ))}
        </ul>
        <div className="mt-10 text-center">
          <ButtonLink to={paths.pricing}>See membership plans</ButtonLink>
        </div>
      </Section>
    </>
  )
}
